"""migrate-events: a database's events move between SQLite and chdb with their persons, merges applied."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from local_backend.errors import APIError
from local_backend.ingestion import ingest_events
from local_backend.migrate_events_command import migrate_events
from local_backend.store.engine.clickhouse.engine import client_for
from local_backend.store.engine.spec import SQLITE, recorded_engine
from local_backend.store.projects import get_project

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)


def capture(conn, project_id: int, *events: tuple[str, str, int, dict]) -> None:
    body = [{"event": name, "distinct_id": who, "timestamp": f"2026-01-10T10:00:{second:02d}Z", "properties": props}
            for name, who, second, props in events]  # fmt: skip
    assert ingest_events(conn, get_project(conn, project_id), body, now=NOW).rejected == 0


def sqlite_events(conn) -> list[tuple]:
    return [tuple(r) for r in conn.execute("SELECT event, distinct_id, person_id FROM events ORDER BY timestamp")]


@pytest.fixture
def cleanup(chdb_engine):
    yield
    from local_backend.store.engine.clickhouse.clients import open_client

    client = open_client(chdb_engine, "")
    client.command(f"DROP DATABASE IF EXISTS `{chdb_engine.database}`")


def test_events_go_to_chdb_and_back_with_merges_applied(conn, world, chdb_engine, cleanup):
    capture(conn, world.project_id, ("$pageview", "anon", 0, {}), ("$pageview", "alice", 1, {"$set": {"plan": "pro"}}))
    before = sqlite_events(conn)
    migrate_events(conn, chdb_engine)
    assert recorded_engine(conn) == chdb_engine
    assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == 0
    ch = client_for(conn)
    db = f"`{ch.database}`"
    assert sorted(ch.query_rows(f"SELECT event, distinct_id, person_id FROM {db}.events")) == sorted(before)
    assert len(ch.query_rows(f"SELECT id FROM {db}.persons")) == 2
    # a merge in chdb is an override; moving back applies it
    capture(conn, world.project_id, ("$identify", "alice", 2, {"$anon_distinct_id": "anon"}))
    migrate_events(conn, SQLITE)
    assert recorded_engine(conn) == SQLITE
    alice = dict((d, p) for _, d, p in before)["alice"]
    assert sqlite_events(conn) == [("$pageview", "anon", alice), ("$pageview", "alice", alice),
                                   ("$identify", "alice", alice)]  # fmt: skip


def test_a_target_that_holds_events_is_refused(conn, world, chdb_engine, cleanup):
    capture(conn, world.project_id, ("a", "x", 0, {}))
    migrate_events(conn, chdb_engine)
    with pytest.raises(APIError, match="already in"):
        migrate_events(conn, chdb_engine)
