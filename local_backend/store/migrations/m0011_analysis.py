"""Migration: timing reports clients send about insights (``insights/timing/``), kept as sent."""

from __future__ import annotations

import sqlite_utils

__all__ = ["apply"]


def apply(db: sqlite_utils.Database) -> None:
    """Timing reports clients send about insights (``insights/timing/``), kept as sent."""
    db.conn.execute(
        """
        CREATE TABLE insight_timings (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects(id),
            user_id INTEGER REFERENCES users(id),
            report TEXT NOT NULL,
            created_at TEXT NOT NULL
        )"""
    )
    db.conn.execute("CREATE INDEX idx_insight_timings_project ON insight_timings (project_id, id)")
