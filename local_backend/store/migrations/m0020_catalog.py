"""Migration: tags on actions, and when a cohort's members were last written."""

from __future__ import annotations

import sqlite_utils

__all__ = ["apply"]


def apply(db: sqlite_utils.Database) -> None:
    """Tags on actions, and when a cohort's members were last written."""
    conn = db.conn
    conn.execute("ALTER TABLE actions ADD COLUMN tags TEXT NOT NULL DEFAULT '[]'")
    # Static cohorts: the last time members were added. Property-based cohorts are computed when read.
    conn.execute("ALTER TABLE cohorts ADD COLUMN last_calculation TEXT")
    conn.execute("CREATE INDEX idx_cohort_people_person ON cohort_people (person_id)")
