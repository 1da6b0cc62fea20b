"""Migration: actions (named sets of event matchers) and cohorts (static lists or property rules) that filters use."""

from __future__ import annotations

import sqlite_utils

__all__ = ["apply"]


def apply(db: sqlite_utils.Database) -> None:
    """Actions (named sets of event matchers) and cohorts (static lists or property rules) that filters use."""
    conn = db.conn
    # steps: JSON list of {event, url, url_matching (contains|regex|exact), properties: [filter...]}
    conn.execute(
        """
        CREATE TABLE actions (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects(id),
            name TEXT NOT NULL,
            description TEXT NOT NULL DEFAULT '',
            steps TEXT NOT NULL DEFAULT '[]',
            deleted INTEGER NOT NULL DEFAULT 0,
            created_by_id INTEGER REFERENCES users(id),
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX idx_actions_project ON actions (project_id, deleted)")
    # filters: PostHog's cohort filters, {"properties": {"type": "AND"|"OR", "values": [...]}}; static
    # cohorts list their members in cohort_people instead.
    conn.execute(
        """
        CREATE TABLE cohorts (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects(id),
            name TEXT NOT NULL,
            description TEXT NOT NULL DEFAULT '',
            is_static INTEGER NOT NULL DEFAULT 0,
            filters TEXT NOT NULL DEFAULT '{}',
            deleted INTEGER NOT NULL DEFAULT 0,
            created_by_id INTEGER REFERENCES users(id),
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX idx_cohorts_project ON cohorts (project_id, deleted)")
    conn.execute(
        """
        CREATE TABLE cohort_people (
            cohort_id INTEGER NOT NULL REFERENCES cohorts(id),
            person_id INTEGER NOT NULL REFERENCES persons(id),
            PRIMARY KEY (cohort_id, person_id)
        ) WITHOUT ROWID"""
    )
