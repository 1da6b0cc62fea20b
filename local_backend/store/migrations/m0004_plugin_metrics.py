"""Migration: how many events each plugin config processed and failed on, per UTC hour (hours since the epoch)."""

from __future__ import annotations

import sqlite_utils

__all__ = ["apply"]


def apply(db: sqlite_utils.Database) -> None:
    """How many events each plugin config processed and failed on, per UTC hour (hours since the epoch)."""
    db.conn.execute(
        """
        CREATE TABLE plugin_config_metrics (
            plugin_config_id INTEGER NOT NULL REFERENCES plugin_configs(id),
            hour INTEGER NOT NULL,
            successes INTEGER NOT NULL DEFAULT 0,
            failures INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (plugin_config_id, hour)
        ) WITHOUT ROWID"""
    )
