"""A project to compute in: the engines are called directly on the connection, no HTTP in between.

``engine`` names the event engine a calculation test runs on, and the test's connection and app carry that engine
(:func:`event_engine`): ``sqlite``; ``chdb``, where every read of events, persons and groups goes to an embedded
ClickHouse database holding a copy of the test's SQLite data
(:class:`tests.backend.store.clickhouse.mirror.MirroredEngine`); or ``clickhouse-http``, the same copy read
through the server client (:class:`~local_backend.store.engine.clickhouse.http_client.HttpClient`, clickhouse-connect)
from :mod:`tests.clickhouse_shim`, a ClickHouse HTTP interface running each statement in chdb in a process of
its own. A test directory opts in by requesting it (trends, funnels, retention and paths do, in their
``conftest.py``), so each of its tests runs once per engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from local_backend.clock import format_instant
from local_backend.store.projects import create_project

ENGINES = ("sqlite", "chdb", "clickhouse-http")


@pytest.fixture
def project(conn, clock) -> dict[str, Any]:
    """A UTC project whose weeks start on Sunday; the clock is fixed at Thursday 2026-01-15 12:00 UTC."""
    return create_project(conn, name="Engines", timezone="UTC", now=format_instant(clock.now()))


@pytest.fixture(scope="session")
def shim_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A client of one ClickHouse HTTP shim for the run (its own process and chdb folder), its tables made once:
    each test's copy empties them before it writes (:class:`~tests.backend.store.clickhouse.mirror.MirroredEngine`).
    """
    from local_backend.store.engine.clickhouse.http_client import HttpClient
    from local_backend.store.engine.clickhouse.schema import create_tables
    from tests.clickhouse_shim import start_shim

    with start_shim(str(tmp_path_factory.mktemp("shim"))) as port:
        server = HttpClient.connect(f"clickhouse://default:@127.0.0.1:{port}/calculations")
        create_tables(server)
        yield server
        server.close()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test that requests ``engine`` runs once on each of :data:`ENGINES`."""
    if "engine" in metafunc.fixturenames:
        metafunc.parametrize("engine", ENGINES, indirect=True)


@pytest.fixture
def event_engine(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The engine the test runs on (its ``engine`` parameter), built for it: None on SQLite (the database's own)."""
    name = request.node.callspec.params.get("engine", "sqlite") if hasattr(request.node, "callspec") else "sqlite"
    if name == "sqlite":
        yield None
        return
    from tests.backend.store.clickhouse.mirror import MirroredEngine, chdb_client, release_database

    if name == "chdb":
        client = chdb_client()
        yield MirroredEngine(client, fresh=True)
        release_database(client)
        return
    yield MirroredEngine(request.getfixturevalue("shim_server"), name="clickhouse-http")


@pytest.fixture
def engine(request: pytest.FixtureRequest, event_engine: Any) -> str:
    """The name of the engine the test runs on (:func:`event_engine`)."""
    return str(request.param)
