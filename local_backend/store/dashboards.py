"""Dashboards: named groups of insight tiles with filters applied to every tile; soft-deleted."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from .db import row_dict, transaction

__all__ = [
    "create_dashboard",
    "get_dashboard",
    "list_dashboards",
    "existing_dashboard_ids",
    "dashboard_filters_of",
]

_LIVE = "project_id = ? AND deleted = 0"


def _decode(row: sqlite3.Row | None) -> dict[str, Any] | None:
    dashboard = row_dict(row)
    if dashboard is not None:
        dashboard["filters"] = json.loads(dashboard["filters"] or "{}")
        dashboard["deleted"] = bool(dashboard["deleted"])
    return dashboard


def create_dashboard(
    conn: sqlite3.Connection, *, project_id: int, user_id: int | None, values: dict[str, Any], now: str
) -> int:
    with transaction(conn):
        cursor = conn.execute(
            "INSERT INTO dashboards (project_id, name, description, filters, deleted, created_by_id, created_at,"
            " updated_at) VALUES (?, ?, ?, ?, 0, ?, ?, ?)",
            (project_id, values["name"], values["description"], json.dumps(values["filters"]), user_id, now, now),
        )
    return int(cursor.lastrowid or 0)


def get_dashboard(conn: sqlite3.Connection, project_id: int, dashboard_id: int) -> dict[str, Any] | None:
    """The project's dashboard with this id, unless it is deleted."""
    row = conn.execute(f"SELECT * FROM dashboards WHERE {_LIVE} AND id = ?", (project_id, dashboard_id)).fetchone()
    return _decode(row)


def list_dashboards(
    conn: sqlite3.Connection, project_id: int, *, limit: int, offset: int
) -> tuple[list[dict[str, Any]], int]:
    """One page of live dashboards by id, and their count."""
    total = int(conn.execute(f"SELECT count(*) FROM dashboards WHERE {_LIVE}", (project_id,)).fetchone()[0])
    rows = conn.execute(
        f"SELECT * FROM dashboards WHERE {_LIVE} ORDER BY id LIMIT ? OFFSET ?", (project_id, limit, offset)
    ).fetchall()
    return [dashboard for dashboard in map(_decode, rows) if dashboard is not None], total


def existing_dashboard_ids(conn: sqlite3.Connection, project_id: int, ids: list[int]) -> set[int]:
    """Those of ``ids`` that are live dashboards of the project."""
    if not ids:
        return set()
    marks = ",".join("?" for _ in ids)
    rows = conn.execute(f"SELECT id FROM dashboards WHERE {_LIVE} AND id IN ({marks})", [project_id, *ids])
    return {r[0] for r in rows}


def dashboard_filters_of(conn: sqlite3.Connection, project_id: int, dashboard_id: int) -> dict[str, Any] | None:
    """The filters of a dashboard of the project that is not deleted, or None when there is no such dashboard."""
    dashboard = get_dashboard(conn, project_id, dashboard_id)
    return dashboard["filters"] if dashboard is not None else None
