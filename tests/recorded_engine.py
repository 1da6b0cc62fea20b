"""An open engine for tests that record their database's engine after their app and connection are open.

The backend opens a database's engine once and hands it to every connection (``docs/architecture.md``). A test
whose subject is moving its events to another engine part-way (a plugin job on events moved to chdb, a column
materialized on a chdb database made for the test) builds :class:`RecordedEngine` instead: it opens the engine
recorded in the database at each call, so the app and the connection follow the move.
"""

from __future__ import annotations

import sqlite3

from local_backend.store.engine.choice import open_engine
from local_backend.store.engine.interface import EventStore, EventWriter

__all__ = ["RecordedEngine"]


class RecordedEngine:
    """:class:`~local_backend.store.engine.interface.EventEngine` that follows the engine recorded in the
    database (opened once per process by the backend, so each call costs a lookup of the recorded row)."""

    name = "recorded"
    reads_files = False  # the tests that load files choose their engine before opening the database

    def store(self, conn: sqlite3.Connection) -> EventStore:
        return open_engine(conn).store(conn)

    def writer(self, conn: sqlite3.Connection) -> EventWriter:
        return open_engine(conn).writer(conn)
