"""Group commit: capture requests that wait for the writer are stored in one transaction, each answered
after its COMMIT, and one request's failure neither loses nor fails another's."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from local_backend.ingestion import check_events, ingest_events, store_events
from local_backend.ingestion.writer import MAX_GROUP_REQUESTS, SharedWriter
from local_backend.store.engine.choice import open_database
from local_backend.store.engine.sqlite.engine import SQLITE_ENGINE
from local_backend.store.projects import get_project

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)


def _mark(project_id: int, name: str) -> Callable[[sqlite3.Connection], str]:
    """Work that writes one row other connections can see only once it is committed."""

    def work(conn: sqlite3.Connection) -> str:
        conn.execute(
            "INSERT INTO event_definitions (project_id, name, volume, created_at, last_seen_at) VALUES (?, ?, 1, 0, 0)",
            (project_id, name),
        )
        return name

    return work


def _names(db_path) -> set[str]:
    reader = open_database(db_path)
    try:
        return {row[0] for row in reader.execute("SELECT name FROM event_definitions")}
    finally:
        reader.close()


def _wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.001)


class _Group:
    """A first call that holds the writer until ``release()``, and the calls that queue behind it."""

    def __init__(self, writer: SharedWriter, project_id: int) -> None:
        self.writer = writer
        self.project_id = project_id
        self.gate = threading.Event()
        self.entered = threading.Event()
        self.outcomes: dict[str, object] = {}
        self.threads: list[threading.Thread] = []
        self._call("first", self._held)
        _wait_until(self.entered.is_set)  # the first call is being stored, and holds the writer

    def _held(self, conn: sqlite3.Connection) -> str:
        self.entered.set()
        self.gate.wait(10)
        return _mark(self.project_id, "first")(conn)

    def _call(self, name: str, work: Callable[[sqlite3.Connection], object]) -> None:
        def run() -> None:
            try:
                self.outcomes[name] = self.writer.submit(work)
            except Exception as error:  # recorded: the test asserts on it
                self.outcomes[name] = error

        thread = threading.Thread(target=run)
        thread.start()
        self.threads.append(thread)

    def queue(self, name: str, work: Callable[[sqlite3.Connection], object]) -> None:
        before = self.writer.waiting
        self._call(name, work)
        _wait_until(lambda: self.writer.waiting == before + 1)

    def finish(self) -> None:
        self.gate.set()
        for thread in self.threads:
            thread.join(10)


@pytest.fixture
def writer(db_path):
    shared = SharedWriter(db_path, SQLITE_ENGINE)
    yield shared
    shared.close()


def test_waiting_calls_share_one_transaction_and_return_after_its_commit(db_path, world, writer):
    group = _Group(writer, world.project_id)
    seen_by_last: list[set[str]] = []

    def last(conn: sqlite3.Connection) -> str:
        # what this group wrote so far is visible on its connection, and to no other one (no commit yet)
        seen_by_last.append({row[0] for row in conn.execute("SELECT name FROM event_definitions")})
        seen_by_last.append(_names(db_path))
        return _mark(world.project_id, "c")(conn)

    group.queue("a", _mark(world.project_id, "a"))
    group.queue("b", _mark(world.project_id, "b"))
    group.queue("c", last)
    assert _names(db_path) == set()  # nothing answered, nothing committed
    group.finish()
    assert group.outcomes == {"first": "first", "a": "a", "b": "b", "c": "c"}
    # a, b and c queued while the first call was stored, so they joined its transaction before the commit
    assert seen_by_last[0] == {"first", "a", "b"}
    assert seen_by_last[1] == set()
    assert _names(db_path) == {"first", "a", "b", "c"}


def test_a_failing_call_is_undone_alone_and_the_rest_of_its_group_is_stored(db_path, world, writer):
    group = _Group(writer, world.project_id)

    def failing(conn: sqlite3.Connection) -> str:
        _mark(world.project_id, "half-written")(conn)
        raise ValueError("broken request")

    group.queue("a", _mark(world.project_id, "a"))
    group.queue("bad", failing)
    group.queue("c", _mark(world.project_id, "c"))
    group.finish()
    assert isinstance(group.outcomes["bad"], ValueError)
    assert str(group.outcomes["bad"]) == "broken request"
    assert (group.outcomes["a"], group.outcomes["c"]) == ("a", "c")
    assert _names(db_path) == {"first", "a", "c"}  # the failing call's own write is gone


def test_a_transaction_lost_by_sqlite_fails_every_call_of_the_group_and_stores_none(db_path, world, writer):
    group = _Group(writer, world.project_id)

    def lose_transaction(conn: sqlite3.Connection) -> None:
        conn.execute("ROLLBACK")  # as SQLite does itself on some errors (disk full, I/O error)
        raise sqlite3.OperationalError("database or disk is full")

    group.queue("a", _mark(world.project_id, "a"))
    group.queue("lost", lose_transaction)
    group.queue("c", _mark(world.project_id, "c"))
    group.finish()
    for name in ("first", "a", "lost", "c"):  # first and a were written before the loss: neither is acknowledged
        assert isinstance(group.outcomes[name], sqlite3.OperationalError), name
        assert str(group.outcomes[name]) == "database or disk is full"
    assert _names(db_path) == set()
    assert writer.submit(_mark(world.project_id, "after")) == "after"  # the writer is usable again
    assert _names(db_path) == {"after"}


def test_a_group_takes_at_most_the_limit_and_the_rest_follow(db_path, world, writer):
    group = _Group(writer, world.project_id)
    count = MAX_GROUP_REQUESTS + 3
    for number in range(count):
        group.queue(f"n{number}", _mark(world.project_id, f"n{number}"))
    group.finish()
    assert all(group.outcomes[f"n{number}"] == f"n{number}" for number in range(count))
    assert len(_names(db_path)) == count + 1


def test_check_then_store_is_ingest_events_in_two_steps(conn, world):
    project = get_project(conn, world.project_id)
    events = [
        {"event": "signed_up", "distinct_id": "u1", "timestamp": "2026-01-15T10:00:00Z"},
        {"event": "", "distinct_id": "u2"},  # rejected by the check, before any database work
        {"event": "signed_up", "distinct_id": "u3", "uuid": "0190f1a2-0000-7000-8000-000000000001"},
        {"event": "signed_up", "distinct_id": "u3", "uuid": "0190f1a2-0000-7000-8000-000000000001"},
    ]
    checked = check_events(events, received_at=NOW)
    assert [index for index, _ in checked.events] == [0, 2, 3]
    assert checked.report.rejected == 1
    report = store_events(conn, project, checked, now=NOW)
    assert (report.accepted, report.duplicates, report.rejected) == (2, 1, 1)
    assert report.rejections == [{"index": 1, "reason": "no event name"}]
    again = ingest_events(conn, project, events, now=NOW)  # the one-step form: the stored uuid is a duplicate now
    assert (again.accepted, again.duplicates, again.rejected) == (1, 2, 1)


def test_concurrent_capture_requests_each_get_their_own_exact_answer(client, conn, world):
    """Through the API: requests stored in groups still answer with their own counts; a wrong token fails alone."""
    threads, batches = 4, 6
    answers: dict[tuple[int, int], tuple[int, dict]] = {}

    def sender(number: int) -> None:
        for batch in range(batches):
            token = "phc_wrong" if (number, batch) == (1, 3) else world.project_token
            events = [
                {
                    "event": "e",
                    "distinct_id": f"s{number}",
                    "uuid": f"00000000-0000-7000-8000-{number:04d}{batch:04d}{i:04d}",
                }
                for i in range(3)
            ] + [{"event": "e"}]  # no distinct id: rejected at index 3
            if batch == 5:
                events[1]["uuid"] = events[0]["uuid"]  # repeated within the request: one duplicate
            answer = client.post("/batch/", json={"api_key": token, "batch": events})
            answers[(number, batch)] = (answer.status_code, answer.json())

    workers = [threading.Thread(target=sender, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert answers[(1, 3)][0] == 401
    assert answers[(1, 3)][1]["code"] == "invalid_api_key"
    for key, (status, body) in answers.items():
        if key == (1, 3):
            continue
        duplicates = 1 if key[1] == 5 else 0
        assert status == 200, body
        assert body == {
            "status": 1, "accepted": 3 - duplicates, "duplicates": duplicates, "rejected": 1, "dropped": 0,
            "rejections": [{"index": 3, "reason": "no distinct_id"}],
        }  # fmt: skip
    # 4 senders x 6 requests x 3 events, less the refused request's 3 and one duplicate per sender
    assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 4 * 6 * 3 - 3 - 4
    assert conn.execute("SELECT COUNT(*) FROM events WHERE distinct_id = 's1'").fetchone()[0] == 6 * 3 - 3 - 1
