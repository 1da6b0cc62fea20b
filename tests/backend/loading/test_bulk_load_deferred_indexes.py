"""A large load builds the events' secondary indexes after its rows: the indexes are back at the end (also after
a failure or a dead process), capture during the load is still deduplicated, and queries answer the same."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from local_backend.ingestion import ingest_events
from local_backend.loading import LoadInterrupted, load_file, loader
from local_backend.loading.deferred import DEFER_MIN_ROWS, deferred_indexes, expected_rows, worth_deferring
from local_backend.loading.readers import open_events_file
from local_backend.store.db import DEFERRED_INDEXES
from local_backend.store.engine.choice import open_database
from local_backend.store.migrations import migrate
from local_backend.store.projects import create_project, get_project

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
UUIDS = [f"00000000-0000-4000-8000-{n:012d}" for n in range(1, 9)]
# alice: all three steps; bob: two; carol: the first only. Two events per batch of 2 rows.
EVENTS = [
    ("$pageview", "alice", "2026-01-10T10:00:00Z", {"$browser": "Chrome", "$session_id": "s1"}),
    ("signup", "alice", "2026-01-10T10:10:00Z", {"$browser": "Chrome", "$session_id": "s1"}),
    ("purchase", "alice", "2026-01-10T11:10:00Z", {"$browser": "Chrome", "$session_id": "s1"}),
    ("$pageview", "bob", "2026-01-11T09:00:00Z", {"$browser": "Safari", "$session_id": "s2"}),
    ("signup", "bob", "2026-01-11T09:30:00Z", {"$browser": "Safari", "$session_id": "s2"}),
    ("$pageview", "carol", "2026-01-12T08:00:00Z", {"$browser": "Chrome", "$set": {"plan": "pro"}}),
    ("$pageview", "carol", "2026-01-13T08:00:00Z", {"$browser": "Chrome"}),
    ("$pageview", "bob", "2026-01-14T08:00:00Z", {"$browser": "Safari"}),
]


@pytest.fixture
def events_file(tmp_path):
    path = tmp_path / "events.jsonl"
    lines = [
        json.dumps({"uuid": uuid, "event": e, "distinct_id": who, "timestamp": when, "properties": props})
        for uuid, (e, who, when, props) in zip(UUIDS, EVENTS, strict=True)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def event_indexes(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    return conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' AND sql IS NOT NULL"
        " ORDER BY name"
    ).fetchall()


def stored(conn: sqlite3.Connection) -> list[tuple]:
    return [
        tuple(row)
        for row in conn.execute(
            "SELECT e.uuid, e.event, e.distinct_id, e.timestamp, e.properties, p.properties, e.session_id"
            " FROM events e JOIN persons p ON p.id = e.person_id ORDER BY e.uuid"
        )
    ]


def has_marker(conn: sqlite3.Connection) -> bool:
    found = conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (DEFERRED_INDEXES,)).fetchone()
    return found is not None


def test_a_deferred_load_ends_with_every_index_and_the_rows_of_an_ordinary_load(conn, world, events_file, tmp_path):
    indexes = event_indexes(conn)
    assert {"idx_events_person_ts", "idx_events_event_ts", "idx_events_session"} <= {name for name, _ in indexes}
    report = load_file(conn, world.project_id, events_file, now=NOW, batch_size=2, defer_indexes=True)
    assert (report.loaded, report.duplicates) == (8, 0)
    assert sorted(report.deferred_indexes) == sorted(name for name, sql in indexes if "UNIQUE" not in sql)
    assert event_indexes(conn) == indexes
    assert not has_marker(conn)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    ordinary = tmp_path / "ordinary.db"
    migrate(ordinary)
    other = open_database(ordinary)
    project = create_project(other, name="Main", timezone="UTC", now="2026-01-15T12:00:00Z")
    assert load_file(other, project["id"], events_file, now=NOW, batch_size=2, defer_indexes=False).loaded == 8
    assert stored(conn) == stored(other)
    assert len(stored(conn)) == 8
    other.close()


def test_a_uuid_captured_during_the_load_and_also_in_the_file_is_stored_once(conn, world, events_file, db_path):
    capture = open_database(db_path)
    project = get_project(capture, world.project_id)
    real = loader._write
    captured: list[tuple[int, int]] = []

    def capture_between_batches(conn, project_row, batch, now, plugins):
        if batch.first_row == 1:
            # the indexes are deferred now; capture sends file row 5's uuid (a later batch) and a new event
            assert "idx_events_person_ts" not in {name for name, _ in event_indexes(capture)}
            sent = [
                {"uuid": UUIDS[4], "event": "signup", "distinct_id": "bob", "timestamp": "2026-01-11T09:30:00Z"},
                {"uuid": UUIDS[0].replace("4000", "4001"), "event": "x", "distinct_id": "dan"},
            ]
            outcome = ingest_events(capture, project, sent, now=NOW)
            captured.append((outcome.accepted, outcome.duplicates))
        result = real(conn, project_row, batch, now, plugins)
        if batch.first_row == 1:  # row 1 is stored now: capture sending it again is a duplicate
            sent = [{"uuid": UUIDS[0], "event": "$pageview", "distinct_id": "alice"}]
            outcome = ingest_events(capture, project, sent, now=NOW)
            captured.append((outcome.accepted, outcome.duplicates))
        return result

    loader._write = capture_between_batches
    try:
        report = load_file(conn, world.project_id, events_file, now=NOW, batch_size=2, defer_indexes=True)
    finally:
        loader._write = real
    capture.close()
    assert captured == [(2, 0), (0, 1)]
    assert (report.loaded, report.duplicates) == (7, 1)
    counts = dict(conn.execute("SELECT uuid, count(*) FROM events GROUP BY uuid").fetchall())
    assert [counts[uuid] for uuid in UUIDS] == [1] * 8
    assert len(counts) == 9
    assert not has_marker(conn)


def test_an_interrupted_load_keeps_its_stored_batches_and_builds_the_indexes(conn, world, events_file):
    indexes = event_indexes(conn)
    real = loader._write

    def fail_on_the_third_batch(conn, project_row, batch, now, plugins):
        if batch.first_row == 5:
            raise sqlite3.OperationalError("disk I/O error")
        return real(conn, project_row, batch, now, plugins)

    loader._write = fail_on_the_third_batch
    try:
        with pytest.raises(LoadInterrupted) as raised:
            load_file(conn, world.project_id, events_file, now=NOW, batch_size=2, defer_indexes=True)
    finally:
        loader._write = real
    assert raised.value.report.loaded == 4
    assert [row[0] for row in conn.execute("SELECT uuid FROM events ORDER BY uuid")] == UUIDS[:4]
    assert event_indexes(conn) == indexes
    assert not has_marker(conn)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_the_indexes_of_a_load_that_died_are_built_by_the_next_connection(conn, world, db_path):
    indexes = event_indexes(conn)
    loading = deferred_indexes(conn, True)
    loading.__enter__()  # a load started and never finished
    assert len(event_indexes(conn)) < len(indexes)
    bystander = open_database(db_path)  # the loading process is alive: its indexes are left to it
    assert len(event_indexes(bystander)) < len(indexes) and has_marker(bystander)
    bystander.close()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    conn.execute(f"UPDATE {DEFERRED_INDEXES} SET pid = ?", (int(gone.stdout),))  # as if it had died
    reopened = open_database(db_path)
    assert event_indexes(reopened) == indexes
    assert not has_marker(reopened)
    reopened.close()


def test_only_a_large_load_into_a_small_database_defers(conn, world):
    assert not worth_deferring(conn, DEFER_MIN_ROWS - 1)
    assert worth_deferring(conn, DEFER_MIN_ROWS)
    conn.execute(
        "INSERT INTO events (id, uuid, project_id, event, distinct_id, person_id, timestamp, created_at)"
        " VALUES (?, 'u', ?, 'e', 'd', 1, 0, 0)",
        (DEFER_MIN_ROWS + 1, world.other_project_id),
    )
    assert not worth_deferring(conn, DEFER_MIN_ROWS)  # more stored than the file brings
    assert worth_deferring(conn, DEFER_MIN_ROWS + 1)


def funnel_and_trend(client, world) -> tuple[list[tuple], list[list[float]]]:
    steps = [{"id": "$pageview", "order": 0}, {"id": "signup", "order": 1}, {"id": "purchase", "order": 2}]
    url = f"/api/projects/{world.project_id}/insights/"
    funnel = client.post(url + "funnel/", json={"events": steps}, headers=world.headers())
    assert funnel.status_code == 200, funnel.text
    trend = client.post(
        url + "trend/",
        json={"events": [{"id": "$pageview", "math": "dau"}], "breakdown": "$browser"},
        headers=world.headers(),
    )
    assert trend.status_code == 200, trend.text
    steps_found = [(s["name"], s["count"], s["average_conversion_time"]) for s in funnel.json()["result"]]
    series = sorted((s["breakdown_value"], s["data"]) for s in trend.json()["result"])
    return steps_found, series


def test_queries_answer_during_and_after_a_deferred_load(client, world, conn, events_file):
    real = loader._write
    during: list[int] = []

    def query_while_deferred(conn, project_row, batch, now, plugins):
        result = real(conn, project_row, batch, now, plugins)
        if batch.first_row == 3:  # four events stored, the person index not there: the funnel still answers
            assert "idx_events_person_ts" not in {name for name, _ in event_indexes(conn)}
            steps = [{"id": "$pageview", "order": 0}, {"id": "signup", "order": 1}]
            body = {"events": steps, "date_from": "2026-01-09"}
            response = client.post(
                f"/api/projects/{world.project_id}/insights/funnel/", json=body, headers=world.headers()
            )
            assert response.status_code == 200, response.text
            during.extend(step["count"] for step in response.json()["result"])
        return result

    loader._write = query_while_deferred
    try:
        load_file(conn, world.project_id, events_file, now=NOW, batch_size=2, defer_indexes=True)
    finally:
        loader._write = real
    assert during == [2, 1]  # the first four events: alice viewed and signed up, bob only viewed
    steps, series = funnel_and_trend(client, world)
    # alice: 10 min to sign up, 1 h to buy; bob: 30 min to sign up -> mean 1200 s, then 3600 s
    assert steps == [("$pageview", 3, None), ("signup", 2, 1200.0), ("purchase", 1, 3600.0)]
    # daily active users per browser, Jan 8 .. Jan 15: Chrome alice (10th), carol (12th, 13th); Safari bob (11th, 14th)
    assert series == [("Chrome", [0, 0, 1, 0, 1, 1, 0, 0]), ("Safari", [0, 0, 0, 1, 0, 0, 1, 0])]


def test_the_row_count_of_a_jsonl_file_is_estimated_from_its_first_lines(tmp_path):
    path = tmp_path / "events.jsonl"
    line = json.dumps({"event": "e", "distinct_id": "u", "timestamp": "2026-01-10T10:00:00Z"}) + "\n"
    path.write_text(line * 3000, encoding="utf-8")
    events_file = open_events_file(path)
    assert expected_rows(events_file) == 3000  # every line the same length: exact
    assert expected_rows(replace(events_file, total=7)) == 7  # a format that knows its row count says it
