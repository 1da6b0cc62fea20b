"""The open engine: made once when a database is opened, and carried by every connection to it.

A process opens a database's engine once (the app when it starts, a command when it runs, ``load_frame`` when
it loads): :func:`~local_backend.store.engine.choice.open_engine` reads the engine recorded in the database,
opens it and makes its tables. Connections to that database then carry the open engine
(:mod:`~local_backend.store.engine.connection`), and a read or a write asks it for the store or writer bound to
its connection: no lookup of the recorded engine per call, no schema change inside a read. A test chooses the
engine it runs on by building one of these.
"""

from __future__ import annotations

import sqlite3
from typing import Protocol

from .reads import EventStore
from .writes import EventWriter

__all__ = ["EventEngine"]


class EventEngine(Protocol):
    """An open event engine: the store and writer of a connection to its database."""

    @property
    def name(self) -> str:
        """The engine's spec for messages (``sqlite``, ``chdb:...``, a server's URL without its password)."""
        ...

    @property
    def reads_files(self) -> bool:
        """Whether the engine reads an events file itself, a column at a time (embedded chdb shares the
        machine's files; a server cannot read them)."""
        ...

    def store(self, conn: sqlite3.Connection) -> EventStore:
        """The event store whose reads run beside ``conn`` (the connection whose metadata they join)."""
        ...

    def writer(self, conn: sqlite3.Connection) -> EventWriter:
        """The event writer whose writes commit with ``conn``'s transactions."""
        ...
