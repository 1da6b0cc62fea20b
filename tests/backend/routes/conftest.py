"""``engine``: a route test that requests it runs once per event engine.

The test writes its events (to SQLite, through the factories), then calls ``engine()``: on ``chdb`` the events
are moved into an embedded ClickHouse database and SQLite's events table is left empty, as on a database on
that engine, so a read that still went to SQLite would find nothing (the test's connection and app carry a
:class:`~tests.backend.store.clickhouse.mirror.MovedEngine`, built before them by :func:`event_engine`).
``engine()`` returns the engine's name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest


@pytest.fixture
def event_engine(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The engine the test's connection and app carry: on ``chdb``, one whose reads move to ClickHouse when the
    test calls ``engine()``; None otherwise (the database's own)."""
    name = request.node.callspec.params.get("engine") if hasattr(request.node, "callspec") else None
    if name != "chdb":
        yield None
        return
    from tests.backend.store.clickhouse.mirror import MovedEngine, chdb_client, release_database

    client = chdb_client()
    yield MovedEngine(client)
    release_database(client)


@pytest.fixture(params=["sqlite", "chdb"])
def engine(request: pytest.FixtureRequest, conn, event_engine: Any) -> Callable[[], str]:
    if request.param == "sqlite":
        return lambda: "sqlite"

    def move() -> str:
        event_engine.move(conn)
        return "chdb"

    return move
