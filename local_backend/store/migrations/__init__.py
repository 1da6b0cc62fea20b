"""Named, recorded schema migrations, one module per migration.

Each migration module has an ``apply(db)`` that receives a :class:`sqlite_utils.Database` and changes the
schema; its name is stored in ``_migrations`` once it has run, and ``PRAGMA user_version`` holds how many have
run. A database made by an older version opens in a newer one: :func:`migrate` runs only the migrations it has
not seen, each in its own transaction. A new migration is a new module plus one line in :data:`MIGRATIONS`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import sqlite_utils

from ..db import connect, transaction
from . import (
    m0001_foundation,
    m0002_events,
    m0003_actions_cohorts,
    m0004_plugin_metrics,
    m0010_query_results,
    m0011_analysis,
    m0012_session_index,
    m0013_hot_properties,
    m0014_materialized_properties,
    m0020_catalog,
    m0021_cohort_members_follow_merges,
    m0030_demo_keys,
    m0031_event_engine,
    m0032_browser_index_persons,
    m0033_personless_index,
)

__all__ = ["MIGRATIONS", "migrate", "applied_migrations"]

Migration = Callable[[sqlite_utils.Database], None]

MIGRATIONS: list[tuple[str, Migration]] = [
    ("0001_foundation", m0001_foundation.apply),
    ("0002_events", m0002_events.apply),
    ("0003_actions_cohorts", m0003_actions_cohorts.apply),
    ("0004_plugin_metrics", m0004_plugin_metrics.apply),
    ("0010_query_results", m0010_query_results.apply),
    ("0011_analysis", m0011_analysis.apply),
    ("0012_session_index", m0012_session_index.apply),
    ("0013_hot_properties", m0013_hot_properties.apply),
    ("0014_materialized_properties", m0014_materialized_properties.apply),
    ("0020_catalog", m0020_catalog.apply),
    ("0021_cohort_members_follow_merges", m0021_cohort_members_follow_merges.apply),
    ("0030_demo_keys", m0030_demo_keys.apply),
    ("0031_event_engine", m0031_event_engine.apply),
    ("0032_browser_index_persons", m0032_browser_index_persons.apply),
    ("0033_personless_index", m0033_personless_index.apply),
]


def applied_migrations(conn: sqlite3.Connection) -> list[str]:
    conn.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    return [row[0] for row in conn.execute("SELECT name FROM _migrations ORDER BY rowid")]


def migrate(path: Path | str) -> list[str]:
    """Bring the database at ``path`` up to date; returns the names of the migrations that ran now."""
    conn = connect(path)
    try:
        done = set(applied_migrations(conn))
        ran: list[str] = []
        for name, migration in MIGRATIONS:
            if name in done:
                continue
            with transaction(conn):
                migration(sqlite_utils.Database(conn))
                conn.execute(
                    "INSERT INTO _migrations (name, applied_at) VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ','now'))",
                    (name,),
                )
                conn.execute(f"PRAGMA user_version = {len(done) + len(ran) + 1}")
            ran.append(name)
        return ran
    finally:
        conn.close()
