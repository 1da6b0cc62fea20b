"""The single writer path: one ingestion write at a time per database file, in one transaction.

SQLite allows one writer. Its busy timeout already makes a second writer wait instead of failing, but it
waits by sleeping and polling; capture requests arriving on several threads would spend their time in those
sleeps. So ingestion writes queue on a lock per database file first, then take SQLite's write lock up front
(``BEGIN IMMEDIATE``), and a request is acknowledged only after its ``COMMIT``. Writers in other processes
(a bulk load next to a running server) are still serialised by SQLite itself and the busy timeout.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..store.db import connect, transaction

__all__ = ["write_transaction", "SharedWriter", "WAL_AUTOCHECKPOINT_PAGES"]

# Ingestion checkpoints the write-ahead log every ~40 MB instead of SQLite's ~4 MB: an index page that many
# batches touch is copied back to the database once rather than once per few batches (measured: commits of
# 500 SDK events with random uuids took 2.5x longer at the default). Readers are not affected.
WAL_AUTOCHECKPOINT_PAGES = 10_000

_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def _database_file(conn: sqlite3.Connection) -> str:
    for row in conn.execute("PRAGMA database_list"):
        if row[1] == "main":
            return str(row[2]) or f":memory:{id(conn)}"
    return f":memory:{id(conn)}"


def _lock_for(path: str) -> threading.Lock:
    with _locks_guard:
        lock = _locks.get(path)
        if lock is None:
            lock = _locks[path] = threading.Lock()
        return lock


@contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Run the block as the database's only ingestion writer, in one transaction (joined if one is open)."""
    if conn.in_transaction:
        with transaction(conn):
            yield conn
        return
    with _lock_for(_database_file(conn)):
        conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT_PAGES}")
        with transaction(conn):
            yield conn


class SharedWriter:
    """One long-lived connection for a server's capture requests, used by one request at a time.

    Opening a connection per request costs about as much as storing a small batch, and a new connection
    starts with a cold page cache; capture requests share this one instead. It closes with its owner (the
    app), when the object is collected.
    """

    def __init__(self, path: Path | str) -> None:
        self._path = path
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self._conn is None:
                self._conn = connect(self._path)
            yield self._conn

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
