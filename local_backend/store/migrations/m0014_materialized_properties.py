"""Migration: the registry of materialized properties and the record of which properties queries use.

``materialized_columns`` holds one row per column added to ``events`` (a real column filled by triggers and a
batched backfill) or ``persons`` (a VIRTUAL generated column): which property it holds, whether its backfill
has finished (``state``) and how far it got. ``materialized_properties`` says which projects asked for which
column, and why (``manual`` or ``auto``). ``property_usage`` counts, per day, how often a filter or breakdown
on each property was compiled: the automatic choice ranks properties by it.
"""

from __future__ import annotations

import sqlite_utils

__all__ = ["apply"]


def apply(db: sqlite_utils.Database) -> None:
    db.conn.execute(
        """
        CREATE TABLE materialized_columns (
            column_name TEXT PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('event', 'person')),
            key TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('backfilling', 'ready')),
            backfill_from INTEGER NOT NULL DEFAULT 0,
            backfill_to INTEGER NOT NULL DEFAULT 0,
            UNIQUE (kind, key)
        )"""
    )
    db.conn.execute(
        """
        CREATE TABLE materialized_properties (
            project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            key TEXT NOT NULL,
            source TEXT NOT NULL CHECK (source IN ('manual', 'auto')),
            created_at TEXT NOT NULL,
            PRIMARY KEY (project_id, kind, key)
        )"""
    )
    db.conn.execute(
        """
        CREATE TABLE property_usage (
            project_id INTEGER NOT NULL,
            kind TEXT NOT NULL,
            key TEXT NOT NULL,
            day TEXT NOT NULL,
            uses INTEGER NOT NULL,
            PRIMARY KEY (project_id, kind, key, day)
        )"""
    )
