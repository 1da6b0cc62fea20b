"""``/api/projects/:id/dashboards/``: just enough to make dashboards that insights can be placed on."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from fastapi import APIRouter, Depends, Request

from ..auth import ProjectAccess, project_access
from ..errors import NotFound
from ..models.common import Paginated, user_basic
from ..models.insights import Dashboard, DashboardWrite
from ..pagination import Page, page_params, paginated
from ..storage import get_conn, now_iso
from ..store.accounts import get_user
from ..store.db import transaction
from .insights import parse_insight_id

__all__ = ["router"]

router = APIRouter(tags=["dashboards"])


def _body(conn: sqlite3.Connection, row: sqlite3.Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "name": row["name"] or "",
        "description": row["description"] or "",
        "filters": json.loads(row["filters"]),
        "created_at": row["created_at"],
        "created_by": user_basic(get_user(conn, row["created_by_id"])) if row["created_by_id"] else None,
        "deleted": bool(row["deleted"]),
    }


@router.get("/api/projects/{project_id}/dashboards", response_model=Paginated[Dashboard], summary="List dashboards")
def list_dashboards(
    request: Request,
    access: ProjectAccess = Depends(project_access("dashboard:read")),
    page: Page = Depends(page_params),
    conn: sqlite3.Connection = Depends(get_conn),
) -> Any:
    where = "project_id = ? AND deleted = 0"
    total = conn.execute(f"SELECT count(*) FROM dashboards WHERE {where}", (access.project_id,)).fetchone()[0]
    rows = conn.execute(
        f"SELECT * FROM dashboards WHERE {where} ORDER BY id LIMIT ? OFFSET ?",
        (access.project_id, page.limit, page.offset),
    ).fetchall()
    return paginated(request, page, total, [_body(conn, row) for row in rows])


@router.post(
    "/api/projects/{project_id}/dashboards", response_model=Dashboard, status_code=201, summary="Create a dashboard"
)
def create_dashboard(
    request: Request,
    body: DashboardWrite,
    access: ProjectAccess = Depends(project_access("dashboard:write")),
    conn: sqlite3.Connection = Depends(get_conn),
) -> Any:
    now = now_iso(request)
    with transaction(conn):
        cursor = conn.execute(
            "INSERT INTO dashboards (project_id, name, description, filters, deleted, created_by_id, created_at,"
            " updated_at) VALUES (?, ?, ?, ?, 0, ?, ?, ?)",
            (access.project_id, body.name, body.description, json.dumps(body.filters), access.user_id, now, now),
        )
    row = conn.execute("SELECT * FROM dashboards WHERE id = ?", (cursor.lastrowid,)).fetchone()
    return _body(conn, row)


@router.get(
    "/api/projects/{project_id}/dashboards/{dashboard_id}", response_model=Dashboard, summary="Retrieve a dashboard"
)
def retrieve_dashboard(
    dashboard_id: str,
    access: ProjectAccess = Depends(project_access("dashboard:read")),
    conn: sqlite3.Connection = Depends(get_conn),
) -> Any:
    row = conn.execute(
        "SELECT * FROM dashboards WHERE project_id = ? AND id = ? AND deleted = 0",
        (access.project_id, parse_insight_id(dashboard_id)),
    ).fetchone()
    if row is None:
        raise NotFound()
    return _body(conn, row)
