"""Which event store a database's events are read and written through: the only module that knows every engine.

Everything else reaches an engine through the protocols of :mod:`.interface` and the functions here: the
store of a connection (:func:`event_store`, reads) and its writer (:func:`event_writer`: a write transaction's
events, rewrites, stored property columns), whether a crash left a write to take back
(:func:`interrupted_writes`), the engine chosen for a database (:func:`choose_engine`), whether an engine holds
events yet (:func:`holds_events`), and moving the events to another engine (:func:`move_events`). ``--engine``
specs are read by :mod:`.spec`, which imports no engine.

    sqlite      :mod:`.sqlite`       the events in the SQLite file itself (the default)
    chdb, a server or cluster   :mod:`.clickhouse`   ClickHouse, embedded or over HTTP
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

from ...errors import APIError
from ..db import transaction
from .clickhouse.clients import client_for, open_client
from .clickhouse.copy import copy_from_sqlite, copy_to_sqlite
from .clickhouse.event_store import ClickHouseEventStore
from .clickhouse.writer import ClickHouseEventWriter
from .clickhouse.writer import interrupted_writes as clickhouse_interrupted_writes
from .interface import EventStore, EventWriter
from .spec import Engine, EngineMismatch, database_file, recorded_engine
from .sqlite.event_store import SQLiteEventStore
from .sqlite.writer import SQLiteEventWriter

__all__ = [
    "choose_engine",
    "event_store",
    "event_writer",
    "holds_events",
    "interrupted_writes",
    "move_events",
    "reads_files",
]


def event_store(conn: sqlite3.Connection) -> EventStore:
    """The event store of the database ``conn`` is open on: SQLite (the events in the same file), or the
    ClickHouse engine recorded in it (:mod:`.spec`)."""
    if recorded_engine(conn).kind != "sqlite":
        return ClickHouseEventStore(conn, client_for(conn))
    return SQLiteEventStore(conn)


def event_writer(conn: sqlite3.Connection) -> EventWriter:
    """The event writer of the database ``conn`` is open on (the engine recorded in it)."""
    if recorded_engine(conn).kind != "sqlite":
        return ClickHouseEventWriter(conn, client_for(conn))
    return SQLiteEventWriter(conn)


def reads_files(conn: sqlite3.Connection) -> bool:
    """Whether the engine reads an events file itself, a column at a time (:mod:`local_backend.loading.columnar`):
    embedded chdb, which shares the machine's files; a server cannot read them."""
    return recorded_engine(conn).kind == "chdb"


def interrupted_writes(conn: sqlite3.Connection) -> bool:
    """Whether a crash may have left rows of a write that never committed in the engine (never on SQLite, whose
    one transaction is undone by SQLite itself). Checked before the engine is opened, so as not to open it for
    nothing."""
    return clickhouse_interrupted_writes(database_file(conn)) and recorded_engine(conn).kind != "sqlite"


def holds_events(conn: sqlite3.Connection, engine: Engine) -> bool:
    """Whether ``engine`` holds any of this database's events."""
    if engine.kind == "sqlite":
        return conn.execute("SELECT 1 FROM events LIMIT 1").fetchone() is not None
    client = open_client(engine, database_file(conn))
    return bool(client.query_rows(f"SELECT 1 FROM `{client.database}`.events LIMIT 1"))


def choose_engine(conn: sqlite3.Connection, engine: Engine | None) -> Engine:
    """The database's engine: ``engine`` recorded if it is new and the database holds no events, the recorded
    one when ``engine`` is None. The engine's tables are made on the way (a chdb folder is created)."""
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
    if chosen.kind != "sqlite":
        open_client(chosen, database_file(conn))
    return chosen


def move_events(conn: sqlite3.Connection, target: Engine) -> int:
    """Copy every event of ``conn``'s database from its recorded engine to ``target``, check the counts and record
    ``target``; returns how many moved. A SQLite source's events are deleted once the copy is checked (the file
    would otherwise keep serving them to code that reads SQLite); a ClickHouse source keeps its copy."""
    source = recorded_engine(conn)
    if target == source:
        raise APIError(f"The events are already in {target.describe()}.", attr="to")
    if target.kind != "sqlite" and source.kind != "sqlite":
        raise APIError("Move the events between two ClickHouse engines through sqlite.", attr="to")
    if holds_events(conn, target):
        raise APIError(f"{target.describe()} already holds events of this database.", attr="to")
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
    return moved
