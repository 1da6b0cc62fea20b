"""A write that spans ClickHouse and SQLite: person ids are never handed out twice, and a write SQLite does not
commit leaves nothing in ClickHouse (the kill tests in ``test_crash_consistency.py`` cover crashes)."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest

from local_backend.ingestion import ingest_events
from local_backend.store.engine.spec import database_file
from local_backend.store.projects import get_project

RECEIVED = datetime(2026, 1, 15, 12, 0, 0, tzinfo=UTC)


def ingest(conn, world, events):
    return ingest_events(conn, get_project(conn, world.project_id), events, now=RECEIVED)


def event(name: str, distinct_id: str, minute: int, **properties) -> dict:
    return {"event": name, "distinct_id": distinct_id, "timestamp": f"2026-01-10T10:{minute:02d}:00Z",
            "properties": properties}  # fmt: skip


def people_of_events(ch) -> dict[str, int]:
    """Each distinct id's events' person, as every read resolves it (through the overrides)."""
    return dict(ch.query_rows(
        f"SELECT e.distinct_id, if(o.person > 0, o.person, e.person_id) FROM `{ch.database}`.events AS e"
        f" LEFT JOIN (SELECT old_person_id, argMax(person_id, version) AS person FROM `{ch.database}`.person_overrides"
        " GROUP BY old_person_id) AS o ON o.old_person_id = e.person_id"
    ))  # fmt: skip


def test_a_person_merged_away_keeps_its_id_from_new_users(ch_conn, ch, world):
    ingest(ch_conn, world, [event("$pageview", "anon", 0), event("$pageview", "user", 1)])  # persons 1 and 2
    ingest(ch_conn, world, [event("$identify", "anon", 2, **{"$anon_distinct_id": "user"})])  # 2 merged into 1
    ingest(ch_conn, world, [event("$pageview", "carol", 3)])
    ids = dict(ch_conn.execute("SELECT distinct_id, person_id FROM person_distinct_ids"))
    assert ids == {"anon": 1, "user": 1, "carol": 3}
    # with id 2 handed out again, ClickHouse's override 2 -> 1 made carol's pageview anon's
    assert people_of_events(ch) == {"anon": 1, "user": 1, "carol": 3}


def test_an_insert_that_fails_takes_back_what_went_to_clickhouse_before_it(ch_conn, ch, world, monkeypatch):
    original = type(ch).insert_arrow

    def failing(self, table, rows):
        if table.endswith(".events"):
            raise RuntimeError("disk full")
        return original(self, table, rows)

    monkeypatch.setattr(type(ch), "insert_arrow", failing)
    with pytest.raises(RuntimeError, match="disk full"):
        ingest(ch_conn, world, [event("signup", "alice", 0, **{"$set": {"plan": "pro"}})])
    assert ch.query_rows(f"SELECT count() FROM `{ch.database}`.persons")[0][0] == 0
    assert ch_conn.execute("SELECT count() FROM persons").fetchone()[0] == 0
    monkeypatch.undo()
    report = ingest(ch_conn, world, [event("signup", "alice", 0, **{"$set": {"plan": "pro"}})])
    assert (report.accepted, report.duplicates) == (1, 0)
    assert ch.query_rows(f"SELECT id, properties FROM `{ch.database}`.persons") == [(1, '{"plan":"pro"}')]
    folder = f"{database_file(ch_conn)}-clickhouse-journal"
    assert not os.path.isdir(folder) or os.listdir(folder) == []
