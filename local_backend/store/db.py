"""Opening the database and running write transactions.

Every connection runs in WAL mode with a busy timeout, so readers never block the writer and a writer waits
for another instead of failing with "database is locked". Connections are in autocommit mode; writes go
through :func:`transaction`, which takes the write lock up front (``BEGIN IMMEDIATE``) so that a transaction
never fails half-way when it upgrades from reading to writing.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = [
    "connect",
    "transaction",
    "row_dict",
    "check_migrated",
    "restore_deferred_indexes",
    "BUSY_TIMEOUT_MS",
    "DEFERRED_INDEXES",
]

BUSY_TIMEOUT_MS = 30_000
# A modest page cache: a large one makes SQLite's sorter slower (see docs/decisions.md).
CACHE_SIZE_KIB = 16 * 1024
MMAP_BYTES = 512 * 1024 * 1024
# The event indexes a bulk load dropped, to build after it (local_backend/loading/deferred.py): name, CREATE
# statement, the loading process. Present only while a large load runs, or after one died.
DEFERRED_INDEXES = "_deferred_indexes"


def connect(path: Path | str, *, factory: type[sqlite3.Connection] = sqlite3.Connection) -> sqlite3.Connection:
    """Open ``path`` (created if missing) with the backend's pragmas (as a ``factory``, a subclass of
    :class:`sqlite3.Connection`)."""
    conn = sqlite3.connect(
        str(path), isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000, factory=factory
    )
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute(f"PRAGMA cache_size = -{CACHE_SIZE_KIB}")
    conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
    restore_deferred_indexes(conn)
    return conn


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Run the block as one write transaction: all of it is stored, or none of it."""
    if conn.in_transaction:  # nested use joins the outer transaction
        yield conn
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def row_dict(row: sqlite3.Row | None) -> dict[str, Any] | None:
    return dict(row) if row is not None else None


def check_migrated(conn: sqlite3.Connection) -> None:
    """Raise (sqlite3.OperationalError) unless the database is open and has been migrated."""
    conn.execute("SELECT 1 FROM _migrations LIMIT 1").fetchall()


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def _has(conn: sqlite3.Connection, kind: str, name: str) -> bool:
    found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?", (kind, name)).fetchone()
    return found is not None


def restore_deferred_indexes(conn: sqlite3.Connection, owner: int | None = None) -> list[str]:
    """Build the event indexes a bulk load dropped: those of ``owner`` (the load itself, at its end) and
    those of any load whose process is gone (it died mid-load). Returns the names built."""
    if not _has(conn, "table", DEFERRED_INDEXES):  # the usual case: one lookup per connection
        return []
    built: list[str] = []
    with transaction(conn):
        if not _has(conn, "table", DEFERRED_INDEXES):  # another connection finished first
            return []
        for name, sql, pid in conn.execute(f"SELECT name, sql, pid FROM {DEFERRED_INDEXES}").fetchall():
            if pid != owner and _running(int(pid)):
                continue
            if not _has(conn, "index", name):
                conn.execute(sql)
            conn.execute(f"DELETE FROM {DEFERRED_INDEXES} WHERE name = ?", (name,))
            built.append(str(name))
        if conn.execute(f"SELECT 1 FROM {DEFERRED_INDEXES} LIMIT 1").fetchone() is None:
            conn.execute(f"DROP TABLE {DEFERRED_INDEXES}")
    return built
