"""Plugin configs: one row per configured plugin in a project. Deleting is a flag; nothing is removed."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import Any

from .db import transaction

__all__ = [
    "get_plugin_config",
    "list_plugin_configs",
    "count_plugin_configs",
    "list_enabled_plugin_configs",
    "insert_plugin_config",
    "update_plugin_config",
]

WRITABLE_COLUMNS = frozenset(
    {"enabled", "order", "config", "config_schema_version", "name", "description", "deleted", "error"}
)
_LIST_ORDER = 'ORDER BY "order", plugin_id, id'


def _decode(row: sqlite3.Row) -> dict[str, Any]:
    config = dict(row)
    config["config"] = json.loads(config["config"] or "{}")
    config["error"] = json.loads(config["error"]) if config["error"] else None
    config["enabled"] = bool(config["enabled"])
    config["deleted"] = bool(config["deleted"])
    config["config_schema_version"] = int(config["config_schema_version"] or 1)
    return config


def get_plugin_config(conn: sqlite3.Connection, project_id: int, config_id: int) -> dict[str, Any] | None:
    """A config of the project, deleted ones included."""
    row = conn.execute(
        "SELECT * FROM plugin_configs WHERE project_id = ? AND id = ?", (project_id, config_id)
    ).fetchone()
    return _decode(row) if row is not None else None


def list_plugin_configs(conn: sqlite3.Connection, project_id: int, *, limit: int, offset: int) -> list[dict[str, Any]]:
    """The project's configs that are not deleted, by ``order`` then plugin id."""
    rows = conn.execute(
        f"SELECT * FROM plugin_configs WHERE project_id = ? AND deleted = 0 {_LIST_ORDER} LIMIT ? OFFSET ?",
        (project_id, limit, offset),
    ).fetchall()
    return [_decode(row) for row in rows]


def count_plugin_configs(conn: sqlite3.Connection, project_id: int) -> int:
    row = conn.execute("SELECT count(*) FROM plugin_configs WHERE project_id = ? AND deleted = 0", (project_id,))
    return int(row.fetchone()[0])


def list_enabled_plugin_configs(conn: sqlite3.Connection, project_id: int) -> list[dict[str, Any]]:
    rows = conn.execute(
        f"SELECT * FROM plugin_configs WHERE project_id = ? AND enabled = 1 AND deleted = 0 {_LIST_ORDER}",
        (project_id,),
    ).fetchall()
    return [_decode(row) for row in rows]


def insert_plugin_config(
    conn: sqlite3.Connection,
    *,
    project_id: int,
    plugin_id: int,
    order: int,
    config: Mapping[str, Any],
    config_schema_version: int,
    now: str,
    enabled: bool = False,
    name: str | None = None,
    description: str | None = None,
    deleted: bool = False,
) -> int:
    with transaction(conn):
        cursor = conn.execute(
            'INSERT INTO plugin_configs (project_id, plugin_id, enabled, "order", config, config_schema_version,'
            " name, description, deleted, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                project_id,
                plugin_id,
                int(enabled and not deleted),
                order,
                json.dumps(dict(config)),
                config_schema_version,
                name,
                description,
                int(deleted),
                now,
                now,
            ),
        )
    return int(cursor.lastrowid or 0)


def update_plugin_config(conn: sqlite3.Connection, config_id: int, changes: Mapping[str, Any], now: str) -> None:
    """Set the given columns (names from a fixed list) and ``updated_at``."""
    unknown = set(changes) - WRITABLE_COLUMNS
    if unknown:
        raise ValueError(f"not writable: {sorted(unknown)}")
    values: list[Any] = []
    for column, value in changes.items():
        if column in ("config", "error"):
            value = json.dumps(value) if value is not None else None
        elif column in ("enabled", "deleted"):
            value = int(bool(value))
        values.append(value)
    assignments = ", ".join(f'"{column}" = ?' for column in changes)
    with transaction(conn):
        conn.execute(f"UPDATE plugin_configs SET {assignments}, updated_at = ? WHERE id = ?", [*values, now, config_id])
