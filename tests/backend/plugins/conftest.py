"""``engine``: a plugin-job test that requests it runs once per event engine.

The test writes its events (to SQLite, through the factories), then calls ``engine()``: on ``chdb`` the events,
persons and groups are copied into a database of the run's one chdb folder, SQLite's events table is emptied,
and the database records the chdb engine, as a database created with ``--engine chdb:PATH`` does. Every read
and the job itself then find the events where that engine keeps them. ``engine()`` returns the engine's name.
``on_chdb`` is the same move for the tests of the ClickHouse side alone.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator

import pytest

from local_backend.store.engine.choice import choose_engine
from local_backend.store.engine.clickhouse.client import ChdbClient
from local_backend.store.engine.spec import parse_engine
from tests.recorded_engine import RecordedEngine


def _move_to_chdb(conn: sqlite3.Connection, client: ChdbClient) -> str:
    from tests.backend.store.clickhouse.mirror import mirror

    mirror(conn, client)
    conn.execute("DELETE FROM events")
    folder = client.folder
    choose_engine(conn, parse_engine(f"chdb:{folder}?database={client.database}"))
    return "chdb"


@pytest.fixture(params=["sqlite", "chdb"])
def engine(request: pytest.FixtureRequest, conn: sqlite3.Connection) -> Iterator[Callable[[], str]]:
    if request.param == "sqlite":
        yield lambda: "sqlite"
        return
    from tests.backend.store.clickhouse.mirror import chdb_client, release_database

    client = chdb_client()
    yield lambda: _move_to_chdb(conn, client)
    release_database(client)


@pytest.fixture
def on_chdb(conn: sqlite3.Connection) -> Iterator[Callable[[], str]]:
    from tests.backend.store.clickhouse.mirror import chdb_client, release_database

    client = chdb_client()
    yield lambda: _move_to_chdb(conn, client)
    release_database(client)


@pytest.fixture
def event_engine() -> RecordedEngine:
    """The app and connection follow the engine the test records part-way (:mod:`tests.recorded_engine`)."""
    return RecordedEngine()
