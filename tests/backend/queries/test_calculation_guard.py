"""The guard that stops a calculation: at its time limit, on a cancel, in SQL and between statements."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from local_backend.errors import QueryTimeout
from local_backend.guard import CalculationCancelled, CalculationGuard, check_deadline
from local_backend.queries.funnels.engine import ORDERED, FunnelRows, FunnelSpec, compute_attempts
from local_backend.results.runner import Calculation, QueryRunner
from local_backend.store.engine.choice import open_database
from local_backend.store.engine.sqlite.engine import SQLITE_ENGINE
from local_backend.store.query_results import get_query_status

# Counts to a billion in SQL: minutes of work, so only a stop ends it within the test.
ENDLESS = "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000000) SELECT count(*) FROM n"


def test_a_statement_past_the_limit_is_interrupted_and_answers_query_timeout(db_path):
    conn = open_database(db_path)
    guard = CalculationGuard(timeout_seconds=0.2)
    started = time.monotonic()
    with pytest.raises(QueryTimeout) as caught, guard.watching(conn):
        conn.execute(ENDLESS).fetchone()
    assert 0.2 <= time.monotonic() - started < 1.5
    assert caught.value.status_code == 504 and caught.value.code == "query_timeout"
    assert "limit of 0.2 seconds" in caught.value.detail
    assert conn.execute("SELECT 1").fetchone()[0] == 1  # the connection stays usable, the handler removed


def test_a_cancel_from_another_thread_interrupts_the_statement(db_path):
    conn = open_database(db_path)
    guard = CalculationGuard(timeout_seconds=60)
    threading.Timer(0.2, guard.cancel).start()
    started = time.monotonic()
    with pytest.raises(CalculationCancelled), guard.watching(conn):
        conn.execute(ENDLESS).fetchone()
    assert time.monotonic() - started < 1.5


def test_python_work_between_statements_checks_the_deadline():
    guard = CalculationGuard(timeout_seconds=0.05)
    check_deadline()  # outside a guarded run: nothing to stop
    conn = sqlite3.connect(":memory:")
    with pytest.raises(QueryTimeout), guard.watching(conn):
        check_deadline()  # still in time
        time.sleep(0.1)
        check_deadline()
    check_deadline()  # the guard is gone with its run


def test_the_funnel_engine_asks_before_each_slice_of_groups():
    # four groups of two rows each, in slices of about two rows: one call per group
    data = FunnelRows.from_lists([1, 1, 2, 2, 3, 3, 4, 4], [0, 1, 0, 1, 0, 1, 0, 1], [1, 2] * 4, [0] * 8)
    funnel = FunnelSpec(steps=2, order=ORDERED, window_end=lambda start: start + 10)
    calls: list[int] = []
    attempts = compute_attempts(data, funnel, chunk_rows=2, before_chunk=lambda: calls.append(1))
    assert len(calls) == 4 and attempts.group.tolist() == [1, 2, 3, 4]

    def stop_at_the_third() -> None:
        calls.append(1)
        if len(calls) == 3:
            raise QueryTimeout(limit_seconds=1)

    calls.clear()
    with pytest.raises(QueryTimeout):
        compute_attempts(data, funnel, chunk_rows=2, before_chunk=stop_at_the_third)
    assert len(calls) == 3


def test_a_background_run_past_the_limit_records_why_it_stopped(db_path, clock, conn, world):
    runner = QueryRunner(db_path=db_path, engine=SQLITE_ENGINE, clock=clock, timeout_seconds=0.2)
    endless = Calculation(
        cache_key="endless", interval="day", date_to=None, compute=lambda c: {"result": c.execute(ENDLESS).fetchone()}
    )
    try:
        runner.submit(conn, project_id=world.project_id, user_id=world.user_id, query_id="q1", calc=endless)
        deadline = time.monotonic() + 10
        status = get_query_status(conn, world.project_id, "q1")
        while not (status and status["complete"]) and time.monotonic() < deadline:
            time.sleep(0.05)
            status = get_query_status(conn, world.project_id, "q1")
    finally:
        runner.shutdown()
    assert status is not None and status["complete"] and status["error"]
    assert status["error_message"].startswith("The calculation took longer than the server's limit of 0.2 seconds")
