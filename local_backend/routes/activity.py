"""The activity page shape shared by every ``.../activity/`` endpoint: ``page``/``limit`` with ``total_count``."""

from __future__ import annotations

import sqlite3
from typing import Any

from fastapi import Request

from ..models.common import activity_entry
from ..pagination import parse_int_param, replace_query, request_url
from ..store.activity import list_activity

__all__ = ["activity_page", "ACTIVITY_PAGE_SIZE"]

ACTIVITY_PAGE_SIZE = 10
MAX_ACTIVITY_PAGE_SIZE = 1000


def activity_page(
    request: Request, conn: sqlite3.Connection, *, project_id: int, scopes: list[str], item_id: int | None
) -> dict[str, Any]:
    """One page of activity, newest first. ``page`` is 1-based; a page past the end is empty."""
    limit = parse_int_param(
        request.query_params.get("limit"),
        name="limit",
        default=ACTIVITY_PAGE_SIZE,
        minimum=1,
        maximum=MAX_ACTIVITY_PAGE_SIZE,
    )
    page = parse_int_param(request.query_params.get("page"), name="page", default=1, minimum=1, maximum=2**31)
    rows, total = list_activity(
        conn, project_id=project_id, scopes=scopes, item_id=item_id, limit=limit, offset=(page - 1) * limit
    )
    url = request_url(request)
    return {
        "results": [activity_entry(row) for row in rows],
        "next": replace_query(url, page=page + 1, limit=limit) if page * limit < total else None,
        "previous": replace_query(url, page=page - 1, limit=limit) if page > 1 else None,
        "total_count": total,
    }
