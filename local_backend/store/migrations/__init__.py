"""Named, recorded schema migrations, one module per migration.

Each migration module has an ``apply(db)`` that receives a :class:`sqlite_utils.Database` and changes the
schema; its name is stored in ``_migrations`` once it has run, and ``PRAGMA user_version`` holds how many have
run. A database made by an older version opens in a newer one: :func:`migrate` runs only the migrations it has
not seen, each in its own transaction. A new migration is a new module plus one line in :data:`MIGRATIONS`.
"""

from __future__ import annotations

import importlib
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..db import connect, transaction

if TYPE_CHECKING:
    import sqlite_utils

__all__ = ["MIGRATIONS", "migrate", "applied_migrations"]

Migration = Callable[["sqlite_utils.Database"], None]


def _module(name: str) -> Migration:
    """Migration module ``name``'s ``apply``, imported when it runs: a database already up to date opens without
    importing sqlite_utils, which imports pandas (about half a second at every start of the server and the CLI)."""

    def apply(db: sqlite_utils.Database) -> None:
        importlib.import_module(f"{__name__}.{name}").apply(db)

    return apply


MIGRATIONS: list[tuple[str, Migration]] = [
    ("0001_foundation", _module("m0001_foundation")),
    ("0002_events", _module("m0002_events")),
    ("0003_actions_cohorts", _module("m0003_actions_cohorts")),
    ("0004_plugin_metrics", _module("m0004_plugin_metrics")),
    ("0010_query_results", _module("m0010_query_results")),
    ("0011_analysis", _module("m0011_analysis")),
    ("0012_session_index", _module("m0012_session_index")),
    ("0013_hot_properties", _module("m0013_hot_properties")),
    ("0014_materialized_properties", _module("m0014_materialized_properties")),
    ("0020_catalog", _module("m0020_catalog")),
    ("0021_cohort_members_follow_merges", _module("m0021_cohort_members_follow_merges")),
    ("0030_demo_keys", _module("m0030_demo_keys")),
    ("0031_event_engine", _module("m0031_event_engine")),
    ("0032_browser_index_persons", _module("m0032_browser_index_persons")),
    ("0033_personless_index", _module("m0033_personless_index")),
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
            import sqlite_utils  # only when a migration runs (see _module)

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
