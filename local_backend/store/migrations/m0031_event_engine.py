"""Migration: the engine a database's events live in, recorded when it is first chosen.

No row means SQLite (every database made before there was a choice). ``spec`` is the engine as
:func:`local_backend.store.engine.spec.parse_engine` reads it (``sqlite``, ``chdb:PATH``, ``clickhouse://...``).
"""

from __future__ import annotations

import sqlite_utils

__all__ = ["apply"]


def apply(db: sqlite_utils.Database) -> None:
    """One row at most: the database's event engine."""
    db.conn.execute(
        """
        CREATE TABLE event_engine (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            spec TEXT NOT NULL,
            chosen_at TEXT NOT NULL
        )"""
    )
