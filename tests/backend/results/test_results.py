"""Refresh modes, the cache, background runs, cancellation: the machinery behind every computed result.

The calculation here is a real one (it counts stored events with SQL), so a change to the stored events shows
whether a result came from the cache or was computed again.
"""

from __future__ import annotations

import sqlite3
import time
from datetime import UTC, datetime, timedelta

import pytest

from local_backend.errors import ValidationError
from local_backend.results.modes import ExecutionMode, execution_mode
from local_backend.results.query_nodes import translate_query
from local_backend.results.runner import Calculation, QueryRunner
from local_backend.results.service import QueryCancelled, serve_calculation
from local_backend.results.staleness import is_stale
from local_backend.store.engine.choice import open_database
from local_backend.store.engine.sqlite.engine import SQLITE_ENGINE
from local_backend.store.query_results import get_query_status
from tests.factories import add_events


@pytest.mark.parametrize(
    "refresh, mode",
    [
        (None, ExecutionMode.CACHE_ONLY_NEVER_CALCULATE),
        ("force_cache", ExecutionMode.CACHE_ONLY_NEVER_CALCULATE),
        ("true", ExecutionMode.CALCULATE_BLOCKING_ALWAYS),
        ("1", ExecutionMode.CALCULATE_BLOCKING_ALWAYS),
        ("", ExecutionMode.CALCULATE_BLOCKING_ALWAYS),
        ("false", ExecutionMode.CACHE_ONLY_NEVER_CALCULATE),
        ("blocking", ExecutionMode.RECENT_CACHE_CALCULATE_BLOCKING_IF_STALE),
        ("async", ExecutionMode.RECENT_CACHE_CALCULATE_ASYNC_IF_STALE),
        ("lazy_async", ExecutionMode.EXTENDED_CACHE_CALCULATE_ASYNC_IF_STALE),
        ("force_async", ExecutionMode.CALCULATE_ASYNC_ALWAYS),
        ("force_blocking", ExecutionMode.CALCULATE_BLOCKING_ALWAYS),
        ("whatever", ExecutionMode.CACHE_ONLY_NEVER_CALCULATE),
        (True, ExecutionMode.CALCULATE_BLOCKING_ALWAYS),
    ],
)
def test_refresh_values_map_to_modes(refresh, mode):
    assert execution_mode(refresh) is mode


T0 = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "interval, age, date_to, lazy, stale",
    [
        ("day", timedelta(hours=5, minutes=59), None, False, False),
        ("day", timedelta(hours=6, seconds=1), None, False, True),
        ("day", timedelta(hours=11), None, True, False),  # lazy modes wait 12 hours for daily results
        ("hour", timedelta(minutes=61), None, False, True),
        ("month", timedelta(days=1), None, False, False),
        (None, timedelta(hours=7), None, False, True),
        # a range that ended before the result was computed never goes stale
        ("day", timedelta(days=30), T0 - timedelta(days=1), False, False),
    ],
)
def test_staleness_by_interval(interval, age, date_to, lazy, stale):
    assert is_stale(interval=interval, last_refresh=T0, date_to=date_to, now=T0 + age, lazy=lazy) is stale


def _count_events(conn: sqlite3.Connection) -> dict:
    return {"result": conn.execute("SELECT count(*) FROM events").fetchone()[0], "timezone": "UTC"}


@pytest.fixture
def runner(db_path, clock):
    query_runner = QueryRunner(db_path=db_path, engine=SQLITE_ENGINE, clock=clock)
    yield query_runner
    query_runner.shutdown()


COUNT = Calculation(cache_key="count", interval="day", date_to=None, compute=_count_events)


def _serve(conn, runner, clock, world, refresh, calc=COUNT, **kwargs):
    return serve_calculation(
        conn,
        runner,
        calc,
        mode=execution_mode(refresh),
        project_id=world.project_id,
        user_id=world.user_id,
        now=clock.now(),
        **kwargs,
    )


def _wait_complete(conn, project_id, query_id):
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        status = get_query_status(conn, project_id, query_id)
        if status and status["complete"]:
            return status
        time.sleep(0.02)
    raise AssertionError("background calculation did not finish")


def test_cache_only_never_computes(conn, runner, clock, world):
    add_events(conn, world.project_id, [("a", "u1", "2026-01-14T10:00:00Z")])
    package = _serve(conn, runner, clock, world, None)
    assert package["result"] is None
    assert package["last_refresh"] is None
    assert package["is_cached"] is False
    assert package["query_status"] is None


def test_forced_refresh_computes_then_plain_reads_serve_the_cache(conn, runner, clock, world):
    add_events(conn, world.project_id, [("a", "u1", "2026-01-14T10:00:00Z")])
    fresh = _serve(conn, runner, clock, world, "true")
    assert (fresh["result"], fresh["is_cached"]) == (1, False)
    assert fresh["last_refresh"] == "2026-01-15T12:00:00.000000Z"
    assert fresh["cache_target_age"] == "2026-01-15T18:00:00.000000Z"  # daily results: 6 hours

    add_events(conn, world.project_id, [("a", "u2", "2026-01-15T10:00:00Z")])
    clock.advance(hours=1)
    cached = _serve(conn, runner, clock, world, None)
    assert (cached["result"], cached["is_cached"], cached["last_refresh"]) == (1, True, fresh["last_refresh"])
    # blocking serves a fresh cache as it is ...
    assert _serve(conn, runner, clock, world, "blocking")["result"] == 1
    # ... and recomputes once it is stale
    clock.advance(hours=6)
    assert _serve(conn, runner, clock, world, None)["result"] == 1  # cache-only still shows the stale result
    recomputed = _serve(conn, runner, clock, world, "blocking")
    assert (recomputed["result"], recomputed["is_cached"]) == (2, False)


def test_cache_expires_after_a_week(conn, runner, clock, world):
    _serve(conn, runner, clock, world, "force_blocking")
    clock.advance(days=7, seconds=1)
    assert _serve(conn, runner, clock, world, None)["last_refresh"] is None


def test_async_on_cache_miss_starts_a_background_run_that_completes(conn, runner, clock, world):
    add_events(conn, world.project_id, [("a", "u1", "2026-01-14T10:00:00Z"), ("b", "u1", "2026-01-14T11:00:00Z")])
    package = _serve(conn, runner, clock, world, "async", client_query_id="q-1")
    assert package["result"] is None
    status = package["query_status"]
    assert status["id"] == "q-1"
    assert status["query_async"] is True
    assert status["start_time"] == "2026-01-15T12:00:00.000000Z"
    assert status["expiration_time"] == "2026-01-15T13:00:00.000000Z"
    done = _wait_complete(conn, world.project_id, "q-1")
    assert (done["error"], done["results"]) == (0, 2)
    cached = _serve(conn, runner, clock, world, None)
    assert (cached["result"], cached["is_cached"]) == (2, True)


def test_async_with_a_stale_cache_serves_it_and_refreshes_in_background(conn, runner, clock, world):
    _serve(conn, runner, clock, world, "force_blocking")  # caches 0 events
    add_events(conn, world.project_id, [("a", "u1", "2026-01-15T11:00:00Z")])
    clock.advance(hours=7)
    package = _serve(conn, runner, clock, world, "async", client_query_id="q-2")
    assert (package["result"], package["is_cached"]) == (0, True)
    assert package["query_status"]["complete"] is False or package["query_status"]["complete"] is True
    _wait_complete(conn, world.project_id, "q-2")
    assert _serve(conn, runner, clock, world, None)["result"] == 1


def test_a_failing_calculation_is_recorded_not_raised(conn, runner, clock, world):
    def broken(connection):
        raise ZeroDivisionError("boom")

    calc = Calculation(cache_key="broken", interval="day", date_to=None, compute=broken)
    package = _serve(conn, runner, clock, world, "force_async", calc=calc, client_query_id="q-3")
    assert package["result"] is None
    status = _wait_complete(conn, world.project_id, "q-3")
    assert status["error"] == 1
    assert status["error_message"] == "Calculation failed: ZeroDivisionError"


def test_a_calculation_that_rejects_its_input_reports_why(conn, runner, clock, world):
    def rejects(connection):
        raise ValidationError("Unknown math 'wat'.", attr="math")

    calc = Calculation(cache_key="bad", interval="day", date_to=None, compute=rejects)
    _serve(conn, runner, clock, world, "force_async", calc=calc, client_query_id="q-4")
    assert _wait_complete(conn, world.project_id, "q-4")["error_message"] == "Unknown math 'wat'."


SLOW_SQL = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500000000) SELECT count(*) FROM n"


def test_cancel_stops_a_running_background_calculation(conn, runner, clock, world):
    started = []

    def slow(connection):
        started.append(True)
        return {"result": connection.execute(SLOW_SQL).fetchone()[0]}

    calc = Calculation(cache_key="slow", interval="day", date_to=None, compute=slow)
    _serve(conn, runner, clock, world, "force_async", calc=calc, client_query_id="q-5")
    deadline = time.monotonic() + 5
    while not started and time.monotonic() < deadline:
        time.sleep(0.01)
    begun = time.monotonic()
    assert runner.cancel(conn, project_id=world.project_id, query_id="q-5") is True
    status = _wait_complete(conn, world.project_id, "q-5")
    assert time.monotonic() - begun < 5  # counting to 500 million would take far longer
    assert (status["error"], status["error_message"], status["results"]) == (1, "Query cancelled", None)
    # nothing was cached by the cancelled run
    assert _serve(conn, runner, clock, world, None, calc=calc)["result"] is None


def test_cancelling_nothing_is_reported(conn, runner, world):
    assert runner.cancel(conn, project_id=world.project_id, query_id="nope") is False


def test_cancelled_blocking_run_raises_query_cancelled(db_path, conn, runner, clock, world):
    import threading

    def slow(connection):
        return {"result": connection.execute(SLOW_SQL).fetchone()[0]}

    calc = Calculation(cache_key="slow-blocking", interval="day", date_to=None, compute=slow)
    other_request = open_database(db_path)  # the cancel arrives on another request's connection

    def cancel() -> None:
        runner.cancel(other_request, project_id=world.project_id, query_id="q-6")

    timer = threading.Timer(0.3, cancel)
    timer.start()
    begun = time.monotonic()
    with pytest.raises(QueryCancelled):
        _serve(conn, runner, clock, world, "force_blocking", calc=calc, client_query_id="q-6")
    assert time.monotonic() - begun < 5
    timer.join()
    other_request.close()


def test_trends_query_translates_to_the_legacy_filter():
    query = {
        "kind": "InsightVizNode",
        "source": {
            "kind": "TrendsQuery",
            "series": [
                {"kind": "EventsNode", "event": "$pageview", "name": "$pageview", "math": "dau"},
                {"kind": "ActionsNode", "id": 7, "name": "Signed up", "custom_name": "Signups"},
            ],
            "dateRange": {"date_from": "-30d", "date_to": None},
            "interval": "week",
            "properties": [{"key": "$browser", "value": "Chrome", "operator": "exact", "type": "event"}],
            "filterTestAccounts": True,
            "breakdownFilter": {"breakdown": "$os", "breakdown_type": "event", "breakdown_limit": 5},
            "trendsFilter": {"display": "ActionsBar", "formula": "A/B"},
            "compareFilter": {"compare": True},
        },
    }
    assert translate_query(query) == (
        "TRENDS",
        {
            "insight": "TRENDS",
            "date_from": "-30d",
            "interval": "week",
            "properties": [{"key": "$browser", "value": "Chrome", "operator": "exact", "type": "event"}],
            "filter_test_accounts": True,
            "breakdown": "$os",
            "breakdown_type": "event",
            "breakdown_limit": 5,
            "events": [{"order": 0, "math": "dau", "id": "$pageview", "name": "$pageview", "type": "events"}],
            "actions": [{"order": 1, "custom_name": "Signups", "id": 7, "name": "Signed up", "type": "actions"}],
            "display": "ActionsBar",
            "formula": "A/B",
            "compare": True,
        },
    )


def test_funnels_query_translates_window_unit_and_exclusions():
    kind, legacy = translate_query(
        {
            "kind": "FunnelsQuery",
            "series": [{"kind": "EventsNode", "event": "signup"}, {"kind": "EventsNode", "event": "purchase"}],
            "funnelsFilter": {
                "funnelOrderType": "strict",
                "funnelWindowInterval": 3,
                "funnelWindowIntervalUnit": "hour",
                "exclusions": [{"kind": "EventsNode", "event": "refund", "funnelFromStep": 0, "funnelToStep": 1}],
            },
        }
    )
    assert kind == "FUNNELS"
    assert legacy["funnel_order_type"] == "strict"
    assert (legacy["funnel_window_interval"], legacy["funnel_window_interval_type"]) == (3, "HOUR")
    assert [e["id"] for e in legacy["events"]] == ["signup", "purchase"]
    assert legacy["exclusions"] == [
        {"order": 0, "id": "refund", "name": "refund", "type": "events", "funnel_from_step": 0, "funnel_to_step": 1}
    ]


def test_retention_and_paths_queries_translate():
    assert translate_query(
        {
            "kind": "RetentionQuery",
            "retentionFilter": {
                "period": "Week",
                "totalIntervals": 8,
                "retentionType": "retention_first_time",
                "targetEntity": {"id": "signup", "type": "events"},
                "returningEntity": {"id": "$pageview", "type": "events"},
            },
        }
    )[1] == {
        "insight": "RETENTION",
        "period": "Week",
        "total_intervals": 8,
        "retention_type": "retention_first_time",
        "target_entity": {"id": "signup", "type": "events"},
        "returning_entity": {"id": "$pageview", "type": "events"},
    }
    assert translate_query({"kind": "PathsQuery", "pathsFilter": {"includeEventTypes": ["$pageview"], "stepLimit": 4}})[
        1
    ] == {"insight": "PATHS", "include_event_types": ["$pageview"], "step_limit": 4}


@pytest.mark.parametrize(
    "query, attr",
    [
        ({"kind": "HogQLQuery", "query": "select 1"}, "query__kind"),
        ({"kind": "TrendsQuery", "series": "nope"}, "query__series"),
        ({"kind": "TrendsQuery", "series": [{"kind": "DataWarehouseNode"}]}, "query__series__0__kind"),
        ({"kind": "TrendsQuery", "series": [{"kind": "ActionsNode"}]}, "query__series__0__id"),
        ({"kind": "TrendsQuery", "series": [], "dateRange": "-7d"}, "query__dateRange"),
        ("not an object", "query"),
    ],
)
def test_bad_query_nodes_name_the_field(query, attr):
    with pytest.raises(ValidationError) as raised:
        translate_query(query)
    assert raised.value.attr == attr
