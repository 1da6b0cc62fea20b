"""Which event store a database's events are read and written through: the only module that knows every engine.

Everything else reaches an engine through the protocols of :mod:`.interface` and the functions here: the
store of a connection (:func:`event_store`), the engine chosen for a database (:func:`choose_engine`), and
whether an engine holds events yet (:func:`holds_events`). ``--engine`` specs are read by :mod:`.spec`, which
imports no engine.

    sqlite      :mod:`.sqlite`       the events in the SQLite file itself (the default)
    chdb, a server or cluster   :mod:`.clickhouse`   ClickHouse, embedded or over HTTP
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

from .clickhouse.clients import client_for, open_client
from .clickhouse.event_store import ClickHouseEventStore
from .interface import EventStore
from .spec import Engine, EngineMismatch, database_file, recorded_engine
from .sqlite.event_store import SQLiteEventStore

__all__ = ["choose_engine", "event_store", "holds_events"]


def event_store(conn: sqlite3.Connection) -> EventStore:
    """The event store of the database ``conn`` is open on: SQLite (the events in the same file), or the
    ClickHouse engine recorded in it (:mod:`.spec`)."""
    if recorded_engine(conn).kind != "sqlite":
        return ClickHouseEventStore(conn, client_for(conn))
    return SQLiteEventStore(conn)


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
