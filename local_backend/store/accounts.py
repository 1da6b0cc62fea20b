"""Users and their personal API keys (stored hashed; the raw key is shown once, at creation).

The one exception: the demo user's key is also kept raw in ``demo_keys`` (`remember_demo_key`), so the
demo command shows the same working key on every start.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ..errors import ValidationError
from .db import row_dict, transaction
from .ids import hash_key, mask_key, new_personal_api_key, new_uuid

__all__ = [
    "SCOPE_OBJECTS",
    "validate_scopes",
    "get_or_create_user",
    "get_user",
    "create_personal_api_key",
    "find_personal_api_key",
    "delete_keys_with_label",
    "remember_demo_key",
    "stored_demo_key",
]


# The scope objects PostHog knows; keys made for PostHog carry these, so all are accepted.
SCOPE_OBJECTS = frozenset(
    {
        "action", "activity_log", "annotation", "batch_export", "cohort", "dashboard", "dashboard_template",
        "early_access_feature", "event_definition", "experiment", "export", "feature_flag", "group", "insight",
        "query", "notebook", "organization", "organization_member", "person", "plugin", "project",
        "property_definition", "session_recording", "session_recording_playlist", "sharing_configuration",
        "subscription", "survey", "user", "webhook",
    }
)  # fmt: skip


def validate_scopes(scopes: list[str]) -> list[str]:
    """Check a key's scopes: ``*`` or ``<object>:read|write``. Raises ValidationError naming the bad one."""
    cleaned = [scope.strip() for scope in scopes if scope.strip()]
    if not cleaned:
        raise ValidationError("A key needs at least one scope.", attr="scopes")
    for scope in cleaned:
        if scope == "*":
            continue
        obj, _, action = scope.partition(":")
        if obj not in SCOPE_OBJECTS or action not in ("read", "write"):
            raise ValidationError(f"Invalid scope: {scope}", attr="scopes")
    return cleaned


def _decode_user(row: sqlite3.Row | None) -> dict[str, Any] | None:
    user = row_dict(row)
    if user is not None:
        user["hedgehog_config"] = json.loads(user["hedgehog_config"]) if user["hedgehog_config"] else None
        user["is_email_verified"] = bool(user["is_email_verified"])
    return user


def get_user(conn: sqlite3.Connection, user_id: int | None) -> dict[str, Any] | None:
    """The user with this id; None for none (a row made by the system has no user)."""
    if user_id is None:
        return None
    return _decode_user(conn.execute("SELECT * FROM users WHERE id = ?", (user_id,)).fetchone())


def get_or_create_user(
    conn: sqlite3.Connection, *, email: str, now: str, current_project_id: int | None = None
) -> dict[str, Any]:
    row = conn.execute("SELECT id FROM users WHERE email = ?", (email,)).fetchone()
    if row is None:
        local_part = email.split("@", 1)[0]
        with transaction(conn):
            cursor = conn.execute(
                "INSERT INTO users (uuid, distinct_id, email, first_name, last_name, is_email_verified,"
                " current_project_id, created_at) VALUES (?, ?, ?, ?, '', 0, ?, ?)",
                (new_uuid(), new_uuid(), email, local_part, current_project_id, now),
            )
        user_id = int(cursor.lastrowid or 0)
    else:
        user_id = row["id"]
    user = get_user(conn, user_id)
    assert user is not None
    return user


def create_personal_api_key(
    conn: sqlite3.Connection,
    *,
    user_id: int,
    scopes: list[str],
    scoped_projects: list[int] | None,
    label: str,
    now: str,
) -> str:
    """Store a new key for the user and return the raw key (the only time it is available)."""
    raw = new_personal_api_key()
    with transaction(conn):
        conn.execute(
            "INSERT INTO personal_api_keys (user_id, label, secure_value, mask_value, scopes, scoped_projects,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                user_id,
                label,
                hash_key(raw),
                mask_key(raw),
                json.dumps(scopes),
                json.dumps(scoped_projects) if scoped_projects else None,
                now,
            ),
        )
    return raw


def find_personal_api_key(conn: sqlite3.Connection, raw: str) -> dict[str, Any] | None:
    """The key record matching a raw key, with ``scopes`` and ``scoped_projects`` decoded."""
    key = row_dict(conn.execute("SELECT * FROM personal_api_keys WHERE secure_value = ?", (hash_key(raw),)).fetchone())
    if key is not None:
        key["scopes"] = json.loads(key["scopes"])
        key["scoped_projects"] = json.loads(key["scoped_projects"]) if key["scoped_projects"] else None
    return key


def delete_keys_with_label(conn: sqlite3.Connection, *, user_id: int, label: str) -> int:
    with transaction(conn):
        cursor = conn.execute("DELETE FROM personal_api_keys WHERE user_id = ? AND label = ?", (user_id, label))
    return cursor.rowcount


def remember_demo_key(conn: sqlite3.Connection, *, user_id: int, raw: str, now: str) -> None:
    """Keep ``raw`` as the demo user's key to show again (replacing the one kept before)."""
    with transaction(conn):
        conn.execute(
            "INSERT INTO demo_keys (user_id, raw_key, created_at) VALUES (?, ?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET raw_key = excluded.raw_key, created_at = excluded.created_at",
            (user_id, raw, now),
        )


def stored_demo_key(conn: sqlite3.Connection, *, user_id: int) -> str | None:
    """The demo user's kept key, if it is still a key of that user (None once it was deleted)."""
    row = conn.execute("SELECT raw_key FROM demo_keys WHERE user_id = ?", (user_id,)).fetchone()
    if row is None:
        return None
    key = find_personal_api_key(conn, row[0])
    return row[0] if key is not None and key["user_id"] == user_id else None
