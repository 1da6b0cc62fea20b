"""A large load into an empty or small database builds the events' secondary indexes after storing its rows.

Inserting into an index whose key order is not the file's order (the person index, the session index) dirties
pages all over it; once the index outgrows the page cache, each batch writes thousands of scattered pages and
the per-event cost grows with the table (about half the rate at 5M events than at 1M). Building the same
index afterwards sorts once and writes it in order.

So when the load is large (:data:`DEFER_MIN_ROWS`) and the database holds no more events than the file brings,
:func:`deferred_indexes` drops the events' non-unique indexes for the duration of the load and builds them
again at its end, also when the load fails or is interrupted. The unique ``(project_id, uuid)`` index stays,
so events captured during the load are still deduplicated against the file's (and the other way round).
Queries during the load are answered, more slowly. The dropped indexes are written down first (in
:data:`~local_backend.store.db.DEFERRED_INDEXES`, with the loading process's id), in the same transaction
as the drop, so if the process dies mid-load, the next connection to the database builds them
(:func:`~local_backend.store.db.restore_deferred_indexes`).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager

from ..store.db import DEFERRED_INDEXES, restore_deferred_indexes, transaction
from .readers import EventsFile

__all__ = ["DEFER_MIN_ROWS", "IndexTimes", "deferred_indexes", "expected_rows", "worth_deferring"]

# Below this many rows the indexes are cheap to keep up, and building them afterwards would cost more.
DEFER_MIN_ROWS = 200_000
# The page cache of the loading connection while indexes are deferred: the uuid index of a file not in
# time order is written at random, and 256 MiB holds it for about 5M events. Set back before building
# (a large cache slows SQLite's sorter).
LOAD_CACHE_KIB = 256 * 1024
_SAMPLE_BYTES = 4 * 1024 * 1024


class IndexTimes:
    """How long dropping and building the deferred indexes took (seconds), for the load report."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.build_seconds = 0.0


def expected_rows(events_file: EventsFile) -> int:
    """The file's row count: given by the format, or estimated from the line length of its first megabytes."""
    if events_file.total is not None:
        return events_file.total
    size = events_file.path.stat().st_size
    with events_file.path.open("rb") as handle:
        sample = handle.read(_SAMPLE_BYTES)
    lines = sample.count(b"\n")
    return size if not lines else size * lines // len(sample)


def worth_deferring(conn: sqlite3.Connection, rows: int) -> bool:
    """Whether a load of about ``rows`` events should build the secondary indexes afterwards."""
    if rows < DEFER_MIN_ROWS:
        return False
    stored = conn.execute("SELECT max(id) FROM events").fetchone()[0] or 0  # O(log n), an upper bound on the count
    return int(stored) <= rows


def _secondary_indexes(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """The events table's non-unique indexes (name, CREATE statement); unique ones are constraints and stay."""
    rows = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' AND sql IS NOT NULL"
        " ORDER BY name"
    ).fetchall()
    return [(str(name), str(sql)) for name, sql in rows if not str(sql).upper().startswith("CREATE UNIQUE")]


@contextmanager
def deferred_indexes(conn: sqlite3.Connection, enabled: bool = True) -> Iterator[IndexTimes]:
    """Drop the events' non-unique indexes for the block (when ``enabled``) and build them at its end."""
    times = IndexTimes()
    if not enabled:
        yield times
        return
    with transaction(conn):
        conn.execute(
            f"CREATE TABLE IF NOT EXISTS {DEFERRED_INDEXES}"
            " (name TEXT PRIMARY KEY, sql TEXT NOT NULL, pid INTEGER NOT NULL)"
        )
        for name, sql in _secondary_indexes(conn):
            conn.execute(
                f"INSERT OR REPLACE INTO {DEFERRED_INDEXES} (name, sql, pid) VALUES (?, ?, ?)", (name, sql, os.getpid())
            )
            conn.execute(f'DROP INDEX "{name}"')
            times.names.append(name)
    (cache_kib,) = conn.execute("PRAGMA cache_size").fetchone()
    conn.execute(f"PRAGMA cache_size = -{LOAD_CACHE_KIB}")
    try:
        yield times
    finally:
        conn.execute(f"PRAGMA cache_size = {cache_kib}")
        started = time.perf_counter()
        restore_deferred_indexes(conn, owner=os.getpid())
        times.build_seconds = time.perf_counter() - started
