"""SQLite as an open engine: nothing to open, the events are in the connection's own file."""

from __future__ import annotations

import sqlite3

from .event_store import SQLiteEventStore
from .writer import SQLiteEventWriter

__all__ = ["SQLiteEngine", "SQLITE_ENGINE"]


class SQLiteEngine:
    """:class:`~local_backend.store.engine.interface.EventEngine` of the events in the SQLite file itself."""

    name = "sqlite"
    reads_files = False

    def store(self, conn: sqlite3.Connection) -> SQLiteEventStore:
        return SQLiteEventStore(conn)

    def writer(self, conn: sqlite3.Connection) -> SQLiteEventWriter:
        return SQLiteEventWriter(conn)


SQLITE_ENGINE = SQLiteEngine()
"""The one SQLite engine: it holds nothing of its own, so every database shares it."""
