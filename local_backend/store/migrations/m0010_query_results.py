"""Migration: cached calculation results, and the status of background calculations that clients poll."""

from __future__ import annotations

import sqlite_utils

__all__ = ["apply"]


def apply(db: sqlite_utils.Database) -> None:
    """Cached calculation results, and the status of background calculations that clients poll."""
    conn = db.conn
    conn.execute(
        """
        CREATE TABLE query_cache (
            project_id INTEGER NOT NULL,
            cache_key TEXT NOT NULL,
            payload TEXT NOT NULL,
            last_refresh TEXT NOT NULL,
            interval TEXT,
            date_to TEXT,
            PRIMARY KEY (project_id, cache_key)
        ) WITHOUT ROWID"""
    )
    conn.execute(
        """
        CREATE TABLE query_status (
            id TEXT NOT NULL,
            project_id INTEGER NOT NULL,
            user_id INTEGER,
            cache_key TEXT NOT NULL,
            insight_id INTEGER,
            complete INTEGER NOT NULL DEFAULT 0,
            error INTEGER NOT NULL DEFAULT 0,
            cancelled INTEGER NOT NULL DEFAULT 0,
            error_message TEXT,
            results TEXT,
            start_time TEXT NOT NULL,
            end_time TEXT,
            expiration_time TEXT NOT NULL,
            PRIMARY KEY (project_id, id)
        ) WITHOUT ROWID"""
    )
