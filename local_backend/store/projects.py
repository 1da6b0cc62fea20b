"""Organizations and projects (PostHog calls a project a team)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..errors import ValidationError
from .db import row_dict, transaction
from .engine.choice import event_store
from .ids import new_project_token, new_uuid

__all__ = [
    "validate_timezone",
    "organization_exists",
    "project_has_events",
    "ensure_organization",
    "create_project",
    "get_project",
    "list_projects",
    "count_projects",
    "update_project",
    "get_project_by_token",
    "PROJECT_JSON_FIELDS",
]

PROJECT_JSON_FIELDS = ("test_account_filters",)
DEFAULT_ORGANIZATION_NAME = "Default organization"


def validate_timezone(name: str) -> str:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValidationError(f'"{name}" is not a valid choice.', attr="timezone", code="invalid_choice") from None
    return name


def _decode(row: sqlite3.Row | None) -> dict[str, Any] | None:
    project = row_dict(row)
    if project is not None:
        for field in PROJECT_JSON_FIELDS:
            project[field] = json.loads(project[field])
    return project


def ensure_organization(conn: sqlite3.Connection, now: str) -> dict[str, Any]:
    """The database's organization: a local backend has exactly one, made on first use."""
    row = conn.execute("SELECT * FROM organizations ORDER BY id LIMIT 1").fetchone()
    if row is None:
        conn.execute(
            "INSERT INTO organizations (uuid, name, created_at) VALUES (?, ?, ?)",
            (new_uuid(), DEFAULT_ORGANIZATION_NAME, now),
        )
        row = conn.execute("SELECT * FROM organizations ORDER BY id LIMIT 1").fetchone()
    return dict(row)


def organization_exists(conn: sqlite3.Connection, organization_id: str) -> bool:
    """Whether ``organization_id`` is the id or the uuid of an organization of the database."""
    row = conn.execute(
        "SELECT 1 FROM organizations WHERE uuid = ? OR CAST(id AS TEXT) = ?", (organization_id, organization_id)
    ).fetchone()
    return row is not None


def create_project(
    conn: sqlite3.Connection, *, name: str, timezone: str, now: str, is_demo: bool = False
) -> dict[str, Any]:
    with transaction(conn):
        org = ensure_organization(conn, now)
        cursor = conn.execute(
            "INSERT INTO projects (uuid, organization_id, name, api_token, timezone, is_demo, created_at,"
            " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (new_uuid(), org["id"], name, new_project_token(), timezone, int(is_demo), now, now),
        )
    project = get_project(conn, int(cursor.lastrowid or 0))
    assert project is not None
    return project


def get_project(conn: sqlite3.Connection, project_id: int) -> dict[str, Any] | None:
    return _decode(
        conn.execute(
            "SELECT p.*, o.uuid AS organization_uuid FROM projects p JOIN organizations o"
            " ON o.id = p.organization_id WHERE p.id = ?",
            (project_id,),
        ).fetchone()
    )


def get_project_by_token(conn: sqlite3.Connection, api_token: str) -> dict[str, Any] | None:
    if not api_token.isascii():  # tokens are ASCII; other text may not even encode (a lone surrogate)
        return None
    row = conn.execute("SELECT id FROM projects WHERE api_token = ?", (api_token,)).fetchone()
    return get_project(conn, row["id"]) if row else None


def _visible(project_ids: list[int] | None) -> tuple[str, list[Any]]:
    if project_ids is None:
        return "", []
    marks = ",".join("?" for _ in project_ids) or "NULL"
    return f" WHERE p.id IN ({marks})", list(project_ids)


def count_projects(conn: sqlite3.Connection, project_ids: list[int] | None) -> int:
    where, params = _visible(project_ids)
    return int(conn.execute(f"SELECT count(*) FROM projects p{where}", params).fetchone()[0])


def list_projects(
    conn: sqlite3.Connection, project_ids: list[int] | None, *, limit: int, offset: int
) -> list[dict[str, Any]]:
    """Projects in id order; ``project_ids`` restricts the list (None: all of them)."""
    where, params = _visible(project_ids)
    rows = conn.execute(
        "SELECT p.*, o.uuid AS organization_uuid FROM projects p JOIN organizations o"
        f" ON o.id = p.organization_id{where} ORDER BY p.id LIMIT ? OFFSET ?",
        [*params, limit, offset],
    ).fetchall()
    return [project for project in map(_decode, rows) if project is not None]


def project_has_events(conn: sqlite3.Connection, project_id: int) -> bool:
    """Whether the project has ingested an event, in whichever engine holds its events (False in a database with
    no events table yet)."""
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").fetchone()
    if not exists:
        return False
    return event_store(conn).has_events(project_id)


def update_project(conn: sqlite3.Connection, project_id: int, changes: dict[str, Any], now: str) -> None:
    if not changes:
        return
    encoded = {k: json.dumps(v) if k in PROJECT_JSON_FIELDS else v for k, v in changes.items()}
    assignments = ", ".join(f'"{column}" = ?' for column in encoded)
    with transaction(conn):
        conn.execute(
            f"UPDATE projects SET {assignments}, updated_at = ? WHERE id = ?",
            [*encoded.values(), now, project_id],
        )
