"""``engine``: a route test that requests it runs once per event engine.

The test writes its events (to SQLite, through the factories), then calls ``engine()``: on ``chdb`` the events
are moved into an embedded ClickHouse database and SQLite's events table is left empty, as on a database on
that engine, so a read that still went to SQLite would find nothing. ``engine()`` returns the engine's name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest


@pytest.fixture(params=["sqlite", "chdb"])
def engine(request: pytest.FixtureRequest, conn, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], str]]:
    if request.param == "sqlite":
        yield lambda: "sqlite"
        return
    from tests.backend.store.clickhouse.mirror import chdb_client, move_events_to_clickhouse, release_database

    client = chdb_client()

    def move() -> str:
        move_events_to_clickhouse(monkeypatch, conn, client)
        return "chdb"

    yield move
    release_database(client)
