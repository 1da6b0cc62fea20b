"""Actions: named sets of event matchers, soft-deleted, with their steps and tags stored as JSON."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from .db import transaction
from .text_search import search_condition

__all__ = [
    "create_action",
    "get_action",
    "list_actions",
    "update_action",
    "action_named",
    "action_names",
]

_JSON_FIELDS = ("steps", "tags")


def _decode(row: sqlite3.Row | None) -> dict[str, Any] | None:
    if row is None:
        return None
    action = dict(row)
    for field in _JSON_FIELDS:
        action[field] = json.loads(action[field])
    action["deleted"] = bool(action["deleted"])
    return action


def create_action(
    conn: sqlite3.Connection, *, project_id: int, user_id: int | None, values: dict[str, Any], now: str
) -> int:
    with transaction(conn):
        cursor = conn.execute(
            "INSERT INTO actions (project_id, name, description, steps, tags, deleted, created_by_id, created_at,"
            " updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)",
            (
                project_id,
                values["name"],
                values.get("description") or "",
                json.dumps(values.get("steps") or []),
                json.dumps(values.get("tags") or []),
                user_id,
                now,
                now,
            ),
        )
    return int(cursor.lastrowid or 0)


def get_action(conn: sqlite3.Connection, project_id: int, action_id: int) -> dict[str, Any] | None:
    """The project's action with this id, deleted or not."""
    row = conn.execute("SELECT * FROM actions WHERE project_id = ? AND id = ?", (project_id, action_id)).fetchone()
    return _decode(row)


def action_names(conn: sqlite3.Connection, project_id: int, action_ids: list[Any]) -> dict[int, str]:
    """``{id: name}`` of the project's actions among ``action_ids``, deleted or not."""
    if not action_ids:
        return {}
    marks = ",".join("?" for _ in action_ids)
    rows = conn.execute(
        f"SELECT id, name FROM actions WHERE project_id = ? AND id IN ({marks})", [project_id, *action_ids]
    )
    return {row[0]: row[1] for row in rows}


def action_named(conn: sqlite3.Connection, project_id: int, name: str, *, other_than: int | None) -> int | None:
    """The id of a live action with this name (other than ``other_than``), if there is one."""
    row = conn.execute(
        "SELECT id FROM actions WHERE project_id = ? AND name = ? AND deleted = 0 AND id IS NOT ? ORDER BY id LIMIT 1",
        (project_id, name, other_than),
    ).fetchone()
    return int(row[0]) if row else None


def list_actions(
    conn: sqlite3.Connection, project_id: int, *, search: str | None, limit: int, offset: int
) -> tuple[list[dict[str, Any]], int]:
    """One page of live actions by name, and their count."""
    condition, params = search_condition(["name", "description"], search)
    where = f"project_id = ? AND deleted = 0 AND {condition}"
    total = int(conn.execute(f"SELECT count(*) FROM actions WHERE {where}", [project_id, *params]).fetchone()[0])
    rows = conn.execute(
        f"SELECT * FROM actions WHERE {where} ORDER BY name, id LIMIT ? OFFSET ?", [project_id, *params, limit, offset]
    ).fetchall()
    return [action for action in map(_decode, rows) if action is not None], total


def update_action(conn: sqlite3.Connection, action_id: int, changes: dict[str, Any], *, now: str) -> None:
    """Write the given fields (name, description, steps, tags, deleted)."""
    columns: dict[str, Any] = {}
    for field, value in changes.items():
        if field in _JSON_FIELDS:
            columns[field] = json.dumps(value)
        elif field == "deleted":
            columns[field] = int(bool(value))
        elif field in ("name", "description"):
            columns[field] = value
    columns["updated_at"] = now
    assignments = ", ".join(f"{column} = ?" for column in columns)
    with transaction(conn):
        conn.execute(f"UPDATE actions SET {assignments} WHERE id = ?", [*columns.values(), action_id])
