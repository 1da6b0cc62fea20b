"""Migration: the demo user's raw API key, so ``demo`` (and ``make run``) shows the same key on every start.

Personal API keys are stored hashed and cannot be shown twice; this one table is the exception, for the
all-scopes key of the demo user of a local demo database only (``local_backend.demo_data.setup``).
"""

from __future__ import annotations

import sqlite_utils

__all__ = ["apply"]


def apply(db: sqlite_utils.Database) -> None:
    """One raw key per demo user, dropped with the user."""
    db.conn.execute(
        """
        CREATE TABLE demo_keys (
            user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
            raw_key TEXT NOT NULL,
            created_at TEXT NOT NULL
        )"""
    )
