"""The activity log: who changed what, with the before and after of each field."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from .db import transaction
from .ids import new_uuid

__all__ = ["log_activity", "log_item_change", "list_activity", "Change"]

Change = dict[str, Any]  # {type, action, field, before, after}


def log_activity(
    conn: sqlite3.Connection,
    *,
    project_id: int,
    scope: str,
    item_id: int | str,
    activity: str,
    user_id: int | None,
    detail: dict[str, Any],
    now: str,
) -> None:
    """Append one entry. ``detail`` holds ``changes``, ``name``, ``short_id`` and the like."""
    with transaction(conn):
        conn.execute(
            "INSERT INTO activity_log (id, project_id, scope, item_id, activity, user_id, is_system, detail,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                new_uuid(),
                project_id,
                scope,
                str(item_id),
                activity,
                user_id,
                int(user_id is None),
                json.dumps(detail),
                now,
            ),
        )


def list_activity(
    conn: sqlite3.Connection,
    *,
    project_id: int,
    scopes: list[str],
    item_id: int | str | None,
    limit: int,
    offset: int,
) -> tuple[list[dict[str, Any]], int]:
    """Newest first: one page of entries and the total count. Each entry embeds its user."""
    where = f"a.project_id = ? AND a.scope IN ({','.join('?' for _ in scopes)})"
    params: list[Any] = [project_id, *scopes]
    if item_id is not None:
        where += " AND a.item_id = ?"
        params.append(str(item_id))
    total = int(conn.execute(f"SELECT count(*) FROM activity_log a WHERE {where}", params).fetchone()[0])
    rows = conn.execute(
        "SELECT a.*, u.first_name AS user_first_name, u.email AS user_email FROM activity_log a"
        f" LEFT JOIN users u ON u.id = a.user_id WHERE {where} ORDER BY a.seq DESC LIMIT ? OFFSET ?",
        [*params, limit, offset],
    ).fetchall()
    entries = []
    for row in rows:
        entry = dict(row)
        entry["detail"] = json.loads(entry["detail"])
        entries.append(entry)
    return entries, total


def log_item_change(
    conn: sqlite3.Connection,
    *,
    project_id: int,
    user_id: int | None,
    scope: str,
    item_id: int | str,
    name: str | None,
    activity: str,
    changes: list[dict[str, Any]] | None,
    now: str,
    short_id: str | None = None,
) -> None:
    """Log ``activity`` (created, updated, deleted, ...) on one item, with its field ``changes``, in the
    detail shape PostHog's activity log has for insights, actions and cohorts alike."""
    log_activity(
        conn,
        project_id=project_id,
        scope=scope,
        item_id=item_id,
        activity=activity,
        user_id=user_id,
        detail={"changes": changes, "trigger": None, "type": None, "name": name, "short_id": short_id},
        now=now,
    )
