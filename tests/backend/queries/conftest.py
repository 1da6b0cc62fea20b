"""A project to compute in: the engines are called directly on the connection, no HTTP in between.

``engine`` names the event engine a calculation test runs on: ``sqlite``, or ``chdb``, where every read of
events, persons and groups goes to an embedded ClickHouse database holding a copy of the test's SQLite data
(:func:`tests.backend.store.clickhouse.mirror.use_clickhouse`). A test directory opts in by requesting it
(trends and funnels do, in their ``conftest.py``), so each of its tests runs once per engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from local_backend.clock import format_instant
from local_backend.store.projects import create_project

ENGINES = ("sqlite", "chdb")


@pytest.fixture
def project(conn, clock) -> dict[str, Any]:
    """A UTC project whose weeks start on Sunday; the clock is fixed at Thursday 2026-01-15 12:00 UTC."""
    return create_project(conn, name="Engines", timezone="UTC", now=format_instant(clock.now()))


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    if request.param == "sqlite":
        yield "sqlite"
        return
    from tests.backend.store.clickhouse.mirror import chdb_client, drop_database, use_clickhouse

    client = chdb_client()
    use_clickhouse(monkeypatch, client)
    yield "chdb"
    drop_database(client)
