"""A chdb engine per test: one chdb folder for the whole run (chdb allows one per process), a database per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from local_backend.store.engine.clickhouse.client import ChdbClient, ClickHouseClient
from local_backend.store.engine.clickhouse.engine import client_for
from local_backend.store.engine.spec import Engine, parse_engine
from tests.backend.store.clickhouse.mirror import pooled_database_name, release_database

pytest.importorskip("chdb")


@pytest.fixture(scope="session")
def chdb_folder(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The process's chdb folder: the one already open if another test opened one first."""
    opened = ChdbClient.open_folder()
    return opened or str(tmp_path_factory.mktemp("chdb"))


@pytest.fixture
def chdb_engine(chdb_folder: str) -> Engine:
    """A chdb engine on a database of its own: emptied by an earlier test, or new."""
    return parse_engine(f"chdb:{chdb_folder}?database={pooled_database_name()}")


@pytest.fixture
def engine_spec(request: pytest.FixtureRequest) -> Engine | None:
    """This test's chdb engine, recorded before the test's connection and app open the database, when the test
    asks for ``ch_conn`` or ``ch``."""
    if {"ch_conn", "ch"} & set(request.fixturenames):
        engine: Engine = request.getfixturevalue("chdb_engine")
        return engine
    return None


@pytest.fixture
def ch_conn(conn) -> Iterator:
    """The test database (``conn``), its events recorded to live in this test's chdb database."""
    yield conn
    release_database(client_for(conn))


@pytest.fixture
def ch(ch_conn) -> ClickHouseClient:
    return client_for(ch_conn)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path
