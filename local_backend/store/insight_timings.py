"""Client timing reports of insights ("how long until the numbers showed"), kept as sent."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from .db import transaction

__all__ = ["add_insight_timing", "list_insight_timings"]


def add_insight_timing(
    conn: sqlite3.Connection, *, project_id: int, user_id: int | None, report: dict[str, Any], now: str
) -> int:
    with transaction(conn):
        cursor = conn.execute(
            "INSERT INTO insight_timings (project_id, user_id, report, created_at) VALUES (?, ?, ?, ?)",
            (project_id, user_id, json.dumps(report, separators=(",", ":")), now),
        )
    return int(cursor.lastrowid or 0)


def list_insight_timings(conn: sqlite3.Connection, project_id: int) -> list[dict[str, Any]]:
    """The project's reports, oldest first."""
    rows = conn.execute(
        "SELECT id, user_id, report, created_at FROM insight_timings WHERE project_id = ? ORDER BY id", (project_id,)
    )
    return [{**dict(row), "report": json.loads(row["report"])} for row in rows]
