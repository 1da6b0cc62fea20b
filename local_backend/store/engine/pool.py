"""Connections to one database kept open between requests, each lent to one request at a time.

Opening a connection costs more than most requests' own reads: SQLite parses the database's schema on a
connection's first statement (about half a millisecond for the backend's seventy tables, indexes and triggers),
the backend's pragmas and SQL functions are set, and closing frees it all again. The app keeps a few connections
open instead: :meth:`ConnectionPool.take` lends an idle one (or opens one), :meth:`ConnectionPool.give_back`
takes it back once the request is done with it, as it was opened: a transaction left open is rolled back, the
calculation guard's progress handler and any trace callback are removed. SQLite itself notices a schema another
connection changed (a migration, a materialized column) before a lent connection's next statement.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from .choice import open_database
from .interface import EventEngine

__all__ = ["ConnectionPool", "KEPT_CONNECTIONS"]

KEPT_CONNECTIONS = 4
"""The most idle connections kept: the requests a 2-core server runs at once, with room to spare."""


class ConnectionPool:
    """Open connections to ``path`` carrying ``engine``; at most ``keep`` are kept while idle."""

    def __init__(self, path: Path | str, engine: EventEngine, *, keep: int = KEPT_CONNECTIONS) -> None:
        self._path = path
        self._engine = engine
        self._keep = keep
        self._idle: list[sqlite3.Connection] = []
        self._lock = threading.Lock()

    def take(self) -> sqlite3.Connection:
        """An idle connection, or a new one when none is idle; it is the caller's until :meth:`give_back`."""
        with self._lock:
            if self._idle:
                return self._idle.pop()
        return open_database(self._path, self._engine)

    def give_back(self, conn: sqlite3.Connection) -> None:
        """Take ``conn`` back as it was opened, or close it (the pool is full, or ``conn`` carries another
        engine than the pool's)."""
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            conn.set_progress_handler(None, 0)
            conn.set_trace_callback(None)
        except sqlite3.Error:  # closed by its user, or unusable: not kept
            conn.close()
            return
        with self._lock:
            if len(self._idle) < self._keep and getattr(conn, "engine", None) is self._engine:
                self._idle.append(conn)
                return
        conn.close()

    def close_idle(self) -> None:
        """Close every idle connection (the app stops serving; one that serves again opens new ones)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()
