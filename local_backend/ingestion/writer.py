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

from ..store.db import transaction

__all__ = ["write_transaction"]

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
    with _lock_for(_database_file(conn)), transaction(conn):
        yield conn
