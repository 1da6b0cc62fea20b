"""Which event store a database's events are read and written through: the only module that knows every engine.

Everything else reaches an engine through the protocols of :mod:`.interface` and the functions here: opening
a database's engine once (:func:`open_engine`, whose result the database's connections carry,
:mod:`.connection`), the store of a connection (:func:`event_store`, reads) and its writer
(:func:`event_writer`: a write transaction's events, rewrites, stored property columns), whether a crash left a
write to take back (:func:`interrupted_writes`), the engine chosen for a database (:func:`choose_engine`),
whether an engine holds events yet (:func:`holds_events`), and moving the events to another engine
(:func:`move_events`). ``--engine`` specs are read by :mod:`.spec`, which imports no engine.

    sqlite      :mod:`.sqlite`       the events in the SQLite file itself (the default)
    chdb, a server or cluster   :mod:`.clickhouse`   ClickHouse, embedded or over HTTP

The ClickHouse package is imported by the functions that reach it, when a database uses it: a SQLite database's
commands and server start without loading it (its client, SQL rewriting and NumPy answers).
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from ...errors import APIError
from ..db import connect, transaction
from .connection import EngineConnection, connect_with_engine, engine_of
from .interface import EventEngine, EventStore, EventWriter
from .spec import Engine, EngineMismatch, database_file, recorded_engine
from .sqlite.engine import SQLITE_ENGINE

__all__ = [
    "EngineConnection",
    "choose_engine",
    "engine_of",
    "event_store",
    "event_writer",
    "holds_events",
    "interrupted_writes",
    "move_events",
    "open_database",
    "open_engine",
    "open_engine_of",
]


def open_engine_of(engine: Engine, db_file: str) -> EventEngine:
    """``engine`` opened for the SQLite file ``db_file``: a ClickHouse engine's client made (once per process)
    and its tables created; SQLite has nothing to open."""
    if engine.kind == "sqlite":
        return SQLITE_ENGINE
    from .clickhouse.clients import open_client
    from .clickhouse.engine import ClickHouseEngine

    return ClickHouseEngine(engine, open_client(engine, db_file))


def open_engine(db: sqlite3.Connection | Path | str) -> EventEngine:
    """The engine recorded in the database (a connection to it, or its file), opened: what the app, a command
    or a load opens once and hands to every connection it makes (:func:`open_database`)."""
    if isinstance(db, sqlite3.Connection):
        return open_engine_of(recorded_engine(db), database_file(db))
    conn = connect(db)
    try:
        return open_engine_of(recorded_engine(conn), database_file(conn))
    finally:
        conn.close()


def open_database(path: Path | str, engine: EventEngine | None = None) -> EngineConnection:
    """A connection to the database at ``path`` carrying its open engine: ``engine`` when the caller opened it
    already (the app opens it once for all its connections), else the one recorded in the database, opened now.

    >>> conn = open_database("analytics.db")  # doctest: +SKIP
    """
    return connect_with_engine(path, engine if engine is not None else open_engine(path))


def event_store(conn: sqlite3.Connection) -> EventStore:
    """The event store of the engine ``conn`` carries, its reads beside ``conn``."""
    return engine_of(conn).store(conn)


def event_writer(conn: sqlite3.Connection) -> EventWriter:
    """The event writer of the engine ``conn`` carries, its writes committed with ``conn``'s transactions."""
    return engine_of(conn).writer(conn)


def interrupted_writes(conn: sqlite3.Connection) -> bool:
    """Whether a crash may have left rows of a write that never committed in the engine (never on SQLite, whose
    one transaction is undone by SQLite itself)."""
    if engine_of(conn).name == "sqlite":
        return False
    from .clickhouse.writer import interrupted_writes as clickhouse_interrupted_writes

    return clickhouse_interrupted_writes(database_file(conn))


def holds_events(conn: sqlite3.Connection, engine: Engine) -> bool:
    """Whether ``engine`` holds any of this database's events."""
    if engine.kind == "sqlite":
        return conn.execute("SELECT 1 FROM events LIMIT 1").fetchone() is not None
    from .clickhouse.clients import open_client

    client = open_client(engine, database_file(conn))
    return bool(client.query_rows(f"SELECT 1 FROM `{client.database}`.events LIMIT 1"))


def choose_engine(conn: sqlite3.Connection, engine: Engine | None) -> Engine:
    """The database's engine: ``engine`` recorded if it is new and the database holds no events, the recorded
    one when ``engine`` is None. The engine's tables are made on the way (a chdb folder is created), and a
    connection opened by :func:`open_database` carries the chosen engine afterwards."""
    recorded = recorded_engine(conn)
    if engine is None or engine == recorded:
        chosen = recorded
    else:
        if holds_events(conn, recorded):
            raise EngineMismatch(
                f"This database's events are in {recorded.describe()}, not {engine.describe()}: open it with"
                f" --engine {recorded.describe()}, or copy its events with"
                f" `insightlab migrate-events --to {engine.describe()}`.",
                attr="engine",
            )
        conn.execute(
            "INSERT INTO event_engine (id, spec, chosen_at) VALUES (1, ?, ?)"
            " ON CONFLICT (id) DO UPDATE SET spec = excluded.spec, chosen_at = excluded.chosen_at",
            (engine.spec, datetime.now(UTC).isoformat()),
        )
        chosen = engine
    opened = open_engine_of(chosen, database_file(conn))
    if isinstance(conn, EngineConnection):
        conn.engine = opened
    return chosen


def move_events(conn: sqlite3.Connection, target: Engine) -> int:
    """Copy every event of ``conn``'s database from its recorded engine to ``target``, check the counts and record
    ``target``; returns how many moved. A SQLite source's events are deleted once the copy is checked (the file
    would otherwise keep serving them to code that reads SQLite); a ClickHouse source keeps its copy. ``conn``
    carries ``target`` afterwards."""
    source = recorded_engine(conn)
    if target == source:
        raise APIError(f"The events are already in {target.describe()}.", attr="to")
    if target.kind != "sqlite" and source.kind != "sqlite":
        raise APIError("Move the events between two ClickHouse engines through sqlite.", attr="to")
    if holds_events(conn, target):
        raise APIError(f"{target.describe()} already holds events of this database.", attr="to")
    from .clickhouse.clients import open_client
    from .clickhouse.copy import copy_from_sqlite, copy_to_sqlite

    if source.kind == "sqlite":
        moved = copy_from_sqlite(conn, open_client(target, database_file(conn)))
    else:
        moved = copy_to_sqlite(conn, open_client(source, database_file(conn)))
    with transaction(conn):
        conn.execute(
            "INSERT INTO event_engine (id, spec, chosen_at) VALUES (1, ?, strftime('%Y-%m-%dT%H:%M:%fZ','now'))"
            " ON CONFLICT (id) DO UPDATE SET spec = excluded.spec, chosen_at = excluded.chosen_at",
            (target.spec,),
        )
        if source.kind == "sqlite":
            conn.execute("DELETE FROM events")
    if isinstance(conn, EngineConnection):
        conn.engine = open_engine_of(target, database_file(conn))
    return moved
