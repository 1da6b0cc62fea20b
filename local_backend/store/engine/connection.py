"""Connections that carry their database's open event engine.

:func:`connect_with_engine` opens a connection (with the backend's pragmas, :func:`~local_backend.store.db.connect`)
carrying an engine opened once beforehand (:func:`~.choice.open_engine`; :func:`~.choice.open_database` does both);
:func:`engine_of` is how a read or a write finds it again. A connection opened without one (migrations, a plain
``connect``) reaches no events: asking it for them is a :class:`NoEngine` error naming the way to open one,
rather than a quiet lookup of the engine on every call.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ..db import connect
from .interface import EventEngine

__all__ = ["EngineConnection", "NoEngine", "connect_with_engine", "engine_of"]


class NoEngine(RuntimeError):
    """A connection opened without its database's engine was asked for events."""


class EngineConnection(sqlite3.Connection):
    """A SQLite connection and the open engine its database's events are read and written through."""

    engine: EventEngine | None = None


def connect_with_engine(path: Path | str, engine: EventEngine) -> EngineConnection:
    """A connection to ``path`` carrying ``engine`` (opened for that database)."""
    conn = connect(path, factory=EngineConnection)
    assert isinstance(conn, EngineConnection)
    conn.engine = engine
    return conn


def engine_of(conn: sqlite3.Connection) -> EventEngine:
    """The engine ``conn`` carries."""
    engine = getattr(conn, "engine", None)
    if engine is None:
        raise NoEngine(
            "This connection was opened without its database's event engine: open the database with"
            " local_backend.store.engine.choice.open_database(path)."
        )
    return engine
