"""Capture (/batch/ and friends) into a chdb engine: a request is answered once its events are in ClickHouse."""

from __future__ import annotations

import threading
import time

from local_backend.ingestion.writer import SharedWriter
from local_backend.store.engine.clickhouse.pending_writes import PendingWrites


def count(ch, sql: str = "SELECT count() FROM {db}.events") -> int:
    return ch.query_rows(sql.replace("{db}", f"`{ch.database}`"))[0][0]


def test_a_captured_batch_is_in_clickhouse_when_answered(ch_conn, ch, client, world):
    batch = [{"event": "$pageview", "distinct_id": f"user-{i}", "timestamp": "2026-01-10T10:00:00Z"} for i in range(5)]
    answer = client.post("/batch/", json={"api_key": world.project_token, "batch": batch})
    assert answer.status_code == 200, answer.text
    assert count(ch) == 5
    single = client.post("/capture/", json={"api_key": world.project_token, "event": "signup", "distinct_id": "u"})
    assert single.status_code == 200, single.text
    assert count(ch, "SELECT count() FROM {db}.events WHERE event = 'signup'") == 1


def test_a_resent_batch_is_stored_once(ch_conn, ch, client, world):
    batch = [{"event": "e", "distinct_id": "a", "uuid": f"01890000-0000-7000-8000-00000000000{i}"} for i in range(3)]
    for _ in range(2):
        assert client.post("/batch/", json={"api_key": world.project_token, "batch": batch}).status_code == 200
    assert count(ch) == 3


def test_requests_queued_together_go_to_clickhouse_in_one_insert(ch_conn, ch, db_path, world, monkeypatch):
    from local_backend.ingestion import ingest_events
    from local_backend.store.projects import get_project

    inserts: list[tuple[str, int]] = []
    original = PendingWrites._insert

    def counted(self, name: str, table) -> None:
        inserts.append((name, table.num_rows))
        original(self, name, table)

    monkeypatch.setattr(PendingWrites, "_insert", counted)
    writer = SharedWriter(db_path, ch_conn.engine)
    release = threading.Event()
    project = get_project(ch_conn, world.project_id)

    def first(conn):  # holds the writer while the others queue behind it
        release.wait(10)
        return ingest_events(conn, project, [{"event": "a", "distinct_id": "x"}], now=_now())

    def later(i: int):
        return lambda conn: ingest_events(conn, project, [{"event": "b", "distinct_id": f"y{i}"}], now=_now())

    leader = threading.Thread(target=writer.submit, args=(first,))
    leader.start()
    while not writer._leading:
        time.sleep(0.001)
    followers = [threading.Thread(target=writer.submit, args=(later(i),)) for i in range(4)]
    for thread in followers:
        thread.start()
    while writer.waiting < 4:
        time.sleep(0.001)
    release.set()
    for thread in [leader, *followers]:
        thread.join(30)
    writer.close()
    assert count(ch) == 5
    event_inserts = [rows for name, rows in inserts if name == "events"]
    # the four that queued while the first was being stored join its group before the commit: one insert
    assert event_inserts == [5]


def test_a_failed_request_in_a_group_leaves_the_others_stored(ch_conn, ch, db_path, world):
    from local_backend.ingestion import ingest_events
    from local_backend.store.projects import get_project

    project = get_project(ch_conn, world.project_id)
    writer = SharedWriter(db_path, ch_conn.engine)

    def group(conn):
        ingest_events(conn, project, [{"event": "kept", "distinct_id": "x"}], now=_now())
        return "ok"

    def failing(conn):
        ingest_events(conn, project, [{"event": "lost", "distinct_id": "y"}], now=_now())
        raise ValueError("this request fails after its events were gathered")

    assert writer.submit(group) == "ok"
    try:
        writer.submit(failing)
    except ValueError:
        pass
    writer.close()
    assert count(ch, "SELECT count() FROM {db}.events WHERE event = 'lost'") == 0
    assert count(ch, "SELECT count() FROM {db}.events WHERE event = 'kept'") == 1


def _now():
    from datetime import UTC, datetime

    return datetime(2026, 1, 15, 12, tzinfo=UTC)
