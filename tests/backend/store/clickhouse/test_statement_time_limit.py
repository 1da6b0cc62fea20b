"""A calculation's time limit holds inside a ClickHouse statement, and capture does not wait behind one.

The slow statement is a cross join of two 60,000-row ranges with a test no index can serve: 3.6 billion pairs,
about 9 s on one core of the test machine (longer when it is loaded), so only a stop ends it within the test.
Timed bounds are generous (a loaded two-core machine); the precise numbers are in
``benchmarks/clickhouse_time_limit.py``.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator

import pytest

from local_backend.errors import QueryTimeout
from local_backend.guard import CalculationGuard
from local_backend.store.engine.choice import choose_engine
from local_backend.store.engine.clickhouse.engine import client_for
from local_backend.store.engine.clickhouse.event_store import ClickHouseEventStore
from local_backend.store.engine.clickhouse.http_client import HttpClient
from local_backend.store.engine.spec import parse_engine
from tests.backend.store.clickhouse.chdb_session import fresh_chdb_client
from tests.backend.store.clickhouse.mirror import _session_folder
from tests.clickhouse_shim import start_shim
from tests.recorded_engine import RecordedEngine

SLOW = "SELECT count() FROM numbers(60000) AS a, numbers(60000) AS b WHERE (a.number * 7 + b.number) % 1000003 = 1"
LIMIT = 0.5
SLACK = 1.0  # the limit must hold within a second


@pytest.fixture(params=["chdb", "clickhouse-http"])
def ch(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """A client of each kind: embedded, or a server's over HTTP (the shim, running chdb in a process of its own)."""
    if request.param == "chdb":
        yield fresh_chdb_client("limit")
        return
    with start_shim(str(tmp_path_factory.mktemp("shim"))) as port:
        client = HttpClient.connect(f"clickhouse://default:@127.0.0.1:{port}/limit")
        yield client
        client.close()


def test_a_statement_past_the_time_limit_stops_at_the_limit_and_answers_query_timeout(conn, ch) -> None:
    store = ClickHouseEventStore(conn, ch)
    guard = CalculationGuard(timeout_seconds=LIMIT)
    started = time.monotonic()
    with pytest.raises(QueryTimeout) as caught, guard.watching(conn):
        store._rows(SLOW, [])
    assert time.monotonic() - started < LIMIT + SLACK
    assert caught.value.status_code == 504 and caught.value.code == "query_timeout"
    # the limit was the statement's alone: the next statement of the store, outside a calculation, runs whole
    assert store._rows("SELECT sleepEachRow(0.5) FROM numbers(3)", []) == [(0,), (0,), (0,)]


def test_each_statement_gets_only_the_time_the_calculation_has_left(conn) -> None:
    # three statements of 0.4 s each under a limit of 1 s: the third is stopped at the limit, not at 1.2 s
    store = ClickHouseEventStore(conn, fresh_chdb_client("left"))
    guard = CalculationGuard(timeout_seconds=1.0)
    started = time.monotonic()
    with pytest.raises(QueryTimeout), guard.watching(conn):
        for _ in range(3):
            store._rows("SELECT sleepEachRow(0.1) FROM numbers(4)", [])
    assert time.monotonic() - started < 1.0 + SLACK


def test_capture_is_answered_while_a_slow_statement_runs(client, conn, world) -> None:
    choose_engine(conn, parse_engine(f"chdb:{_session_folder()}?database=limit_{uuid.uuid4().hex[:12]}"))
    conn.commit()
    ch = client_for(conn)
    outcome: list[str] = []

    def slow_read() -> None:
        try:
            ch.query_rows(f"{SLOW} SETTINGS max_execution_time = 4")
            outcome.append("finished")
        except Exception as error:  # noqa: BLE001 - the read is stopped at its limit
            outcome.append("TIMEOUT_EXCEEDED" if "TIMEOUT_EXCEEDED" in str(error) else str(error)[:200])

    reader = threading.Thread(target=slow_read)
    reader.start()
    try:
        time.sleep(0.5)  # the read has started and holds its session
        started = time.monotonic()
        batch = [{"event": "signup", "distinct_id": f"user-{n}", "properties": {"n": n}} for n in range(3)]
        answer = client.post("/batch/", json={"api_key": world.project_token, "batch": batch})
        took = time.monotonic() - started
        still_reading = reader.is_alive()
        reader.join()
        stored = ch.query_rows(f"SELECT count() FROM `{ch.database}`.events WHERE event = 'signup'")
    finally:
        reader.join()
        ch.command(f"DROP DATABASE IF EXISTS `{ch.database}`")
    assert answer.status_code == 200, answer.text
    assert stored == [(3,)]
    assert still_reading and outcome == ["TIMEOUT_EXCEEDED"], (took, outcome)
    # before, the insert waited for the read's turn on the one session: up to the read's whole 4 s
    assert took < 2.5


@pytest.fixture
def event_engine() -> RecordedEngine:
    """The app and connection follow the engine the test records part-way (:mod:`tests.recorded_engine`)."""
    return RecordedEngine()
