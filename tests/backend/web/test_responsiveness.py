"""One slow calculation never freezes the server: it runs off the event loop, under a time limit, and stops
when its client goes away.

The slow calculation is honest work, no sleep: a trend whose property filter OR-s ``icontains`` conditions
that never match over events with 20,000-character values. SQLite's ``LIKE '%...%'`` tries every position of
the value against the whole 200-character text, so each condition costs about 4 million character
comparisons per event (over 10 ms); 16 events times 8 conditions take about two seconds.
"""

from __future__ import annotations

import json
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from local_backend.__main__ import build_parser, build_settings
from local_backend.app import create_app
from local_backend.clock import FixedClock
from local_backend.config import DEFAULT_QUERY_TIMEOUT_SECONDS, Settings
from local_backend.guard import CalculationGuard
from local_backend.routes import insight_kinds as kinds
from local_backend.routes import query as query_routes
from local_backend.routes import trends as trend_routes
from local_backend.routes.insights import crud as insight_routes
from local_backend.web import off_loop

from ...factories import NOW, add_events
from ...live_server import serve_app

LONG_VALUE = "a" * 2_000
SLOW_EVENTS = 160
SLOW_CONDITIONS = 8
# The health test needs the calculation to outlast its five health checks (about a second) on a quiet machine
# too, where eight conditions can finish in under one.
HEALTH_TEST_CONDITIONS = 32


def slow_trend_body(conditions: int = SLOW_CONDITIONS) -> dict[str, Any]:
    never_found = [
        {"key": "text", "operator": "icontains", "value": "a" * 197 + f"b{number:02d}", "type": "event"}
        for number in range(conditions)
    ]
    return {
        "events": [{"id": "note"}],
        "date_from": "-7d",
        "properties": {"type": "OR", "values": [{"type": "OR", "values": never_found}]},
    }


def add_slow_events(conn: sqlite3.Connection, project_id: int) -> None:
    """One event a minute from 10:00 the day before the test clock's day, each from its own person."""
    events = []
    for number in range(SLOW_EVENTS):
        hour, minute = divmod(number, 60)
        events.append(("note", f"user{number}", f"2026-01-14T{10 + hour}:{minute:02d}:00Z", {"text": LONG_VALUE}))
    add_events(conn, project_id, events)


@pytest.fixture
def slow_world(world, conn):
    add_slow_events(conn, world.project_id)
    return world


@pytest.fixture
def live_server(db_path: Path, clock, slow_world) -> Iterator[str]:
    """A real server over the test database, with the default time limit."""
    yield from serve_app(create_app(Settings(db_path=db_path, clock=clock)))


def _trend_url(base: str, project_id: int) -> str:
    return f"{base}/api/projects/{project_id}/insights/trend/"


@pytest.mark.live
def test_health_answers_at_once_while_a_slow_calculation_runs(live_server, slow_world):
    outcome: dict[str, Any] = {}

    def slow_request() -> None:
        started = time.monotonic()
        response = requests.post(
            _trend_url(live_server, slow_world.project_id),
            json=slow_trend_body(HEALTH_TEST_CONDITIONS),
            headers=slow_world.headers(),
            timeout=60,
        )
        outcome["status"], outcome["seconds"] = response.status_code, time.monotonic() - started
        outcome["data"] = response.json()["result"][0]["data"]

    worker = threading.Thread(target=slow_request)
    worker.start()
    time.sleep(0.3)  # the calculation is under way
    health_times = []
    for _ in range(5):
        started = time.monotonic()
        response = requests.get(live_server + "/_health", timeout=5)
        health_times.append(time.monotonic() - started)
        assert response.status_code == 200
        time.sleep(0.1)
    still_running = worker.is_alive()
    worker.join(timeout=60)
    assert max(health_times) < 1.0, health_times
    assert still_running, "the slow calculation finished before /_health was asked: make it slower"
    assert outcome["status"] == 200
    assert outcome["seconds"] > 1.0  # it really was slow, and the health checks overlapped it
    assert sum(outcome["data"]) == 0  # no event holds any of the texts


def test_a_calculation_past_the_time_limit_answers_the_504_envelope(db_path, clock, slow_world):
    from fastapi.testclient import TestClient

    app = create_app(Settings(db_path=db_path, clock=clock, query_timeout_seconds=0.2))
    with TestClient(app) as client:
        started = time.monotonic()
        response = client.post(
            f"/api/projects/{slow_world.project_id}/insights/trend/",
            json=slow_trend_body(),
            headers=slow_world.headers(),
        )
        seconds = time.monotonic() - started
    assert response.status_code == 504
    assert response.json() == {
        "type": "server_error",
        "code": "query_timeout",
        "detail": "The calculation took longer than the server's limit of 0.2 seconds and was stopped. Narrow the"
        " date range or the filters, or raise the limit with `insightlab serve --query-timeout SECONDS`.",
        "attr": None,
    }
    assert seconds < 1.5  # stopped at the limit, not run to the end


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("insights/funnel/", {"events": [{"id": "note", "order": 0}, {"id": "note", "order": 1}]}),
        ("insights/retention/", {"target_entity": {"id": "note"}, "returning_entity": {"id": "note"}}),
        ("insights/path/", {"include_event_types": ["custom_event"]}),
    ],
)
def test_every_calculation_route_is_under_the_time_limit(db_path, clock, slow_world, path, body):
    from fastapi.testclient import TestClient

    slow_filter = slow_trend_body()["properties"]
    app = create_app(Settings(db_path=db_path, clock=clock, query_timeout_seconds=0.2))
    with TestClient(app) as client:
        response = client.post(
            f"/api/projects/{slow_world.project_id}/{path}",
            json={**body, "date_from": "-7d", "properties": slow_filter},
            headers=slow_world.headers(),
        )
    assert (response.status_code, response.json()["code"]) == (504, "query_timeout")


def test_a_saved_insight_computed_on_get_and_the_query_endpoint_are_under_the_time_limit(db_path, clock, slow_world):
    from fastapi.testclient import TestClient

    app = create_app(Settings(db_path=db_path, clock=clock, query_timeout_seconds=0.2))
    with TestClient(app) as client:
        created = client.post(
            f"/api/projects/{slow_world.project_id}/insights/",
            json={"name": "slow", "filters": {"insight": "TRENDS", **slow_trend_body()}},
            headers=slow_world.headers(),
        )
        assert created.status_code == 201, created.text
        response = client.get(
            f"/api/projects/{slow_world.project_id}/insights/{created.json()['id']}/?refresh=blocking",
            headers=slow_world.headers(),
        )
        assert (response.status_code, response.json()["code"]) == (504, "query_timeout")
        query = {"kind": "TrendsQuery", "series": [{"kind": "EventsNode", "event": "note"}]}
        response = client.post(
            f"/api/projects/{slow_world.project_id}/query/",
            json={"query": {**query, "properties": slow_trend_body()["properties"]}},
            headers=slow_world.headers(),
        )
        assert (response.status_code, response.json()["code"]) == (504, "query_timeout")


def _slow_query_body() -> dict[str, Any]:
    series = [{"kind": "EventsNode", "event": "note"}]
    properties = slow_trend_body(conditions=100)["properties"]
    return {"query": {"kind": "TrendsQuery", "series": series, "properties": properties}, "refresh": "force_blocking"}


def _slow_saved_insight(base: str, world: Any) -> None:
    response = requests.post(
        f"{base}/api/projects/{world.project_id}/insights/",
        json={"name": "slow", "filters": {"insight": "TRENDS", **slow_trend_body(conditions=100)}},
        headers=world.headers(),
        timeout=10,
    )
    assert response.status_code == 201, response.text


@pytest.mark.live
@pytest.mark.parametrize("route", ["insights/trend/", "query/", "insights/?refresh=force_blocking"])
def test_a_client_that_disconnects_stops_its_calculation(live_server, slow_world, monkeypatch, route):
    """The client asks for a slow trend (alone, as a query, or as a saved insight of a list it refreshes), waits
    until its calculation runs, and closes the connection."""
    guards: list[CalculationGuard] = []
    ends: list[tuple[float, str]] = []
    guard_module = {"insights/trend/": off_loop, "query/": query_routes}.get(route, insight_routes)
    make_guard = guard_module.guard_for

    def recording_guard(request):
        guard = make_guard(request)
        guards.append(guard)
        return guard

    def recording(compute):
        def run(*args, **kwargs):
            try:
                return compute(*args, **kwargs)
            except Exception as error:
                ends.append((time.monotonic(), f"{type(error).__name__}: {error}"))
                raise
            finally:
                if not ends:
                    ends.append((time.monotonic(), "finished"))

        return run

    if route.startswith("insights/?"):
        _slow_saved_insight(live_server, slow_world)
    monkeypatch.setattr(guard_module, "guard_for", recording_guard)
    monkeypatch.setattr(trend_routes, "compute_trends", recording(trend_routes.compute_trends))
    monkeypatch.setitem(kinds.ENGINES, "TRENDS", recording(kinds.ENGINES["TRENDS"]))
    # a dozen times the slow trend: it cannot end on its own while the test runs
    if route.startswith("insights/?"):
        method, body = "GET", b""
    else:
        method = "POST"
        body = json.dumps(
            slow_trend_body(conditions=100) if route == "insights/trend/" else _slow_query_body()
        ).encode()
    host, port = live_server.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(
            f"{method} /api/projects/{slow_world.project_id}/{route} HTTP/1.1\r\nHost: {host}\r\n"
            f"Authorization: Bearer {slow_world.key}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        deadline = time.monotonic() + 10
        while not guards and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)  # well into the calculation
        assert not ends, "the calculation ended before the client went away"
    # the client has gone
    gone = time.monotonic()
    deadline = gone + 5
    while not ends and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(guards) == 1 and guards[0].cancelled.is_set()
    assert ends and ends[0][1] == "OperationalError: interrupted"
    assert ends[0][0] - gone < 1.0  # stopped within a poll or two of the disconnect
    started = time.monotonic()
    assert requests.get(live_server + "/_health", timeout=5).status_code == 200
    assert time.monotonic() - started < 1.0


def test_serve_query_timeout_reaches_the_app(tmp_path):
    args = build_parser().parse_args(["serve", "--db", str(tmp_path / "a.db"), "--query-timeout", "2.5"])
    settings = build_settings(args)
    assert settings.query_timeout_seconds == 2.5
    app = create_app(settings)
    assert app.state.settings.query_timeout_seconds == 2.5
    assert app.state.query_runner.timeout_seconds == 2.5
    default = build_settings(build_parser().parse_args(["serve", "--db", str(tmp_path / "a.db")]))
    assert default.query_timeout_seconds == DEFAULT_QUERY_TIMEOUT_SECONDS == 60


@pytest.mark.parametrize("value", ["0", "-1", "soon", "inf", "nan"])
def test_serve_refuses_a_query_timeout_that_is_not_a_positive_number(tmp_path, capsys, value):
    with pytest.raises(SystemExit) as exit:
        build_parser().parse_args(["serve", "--db", str(tmp_path / "a.db"), "--query-timeout", value])
    assert exit.value.code == 2
    assert "--query-timeout" in capsys.readouterr().err


def test_settings_refuse_a_time_limit_that_is_not_positive(tmp_path):
    with pytest.raises(ValueError, match="query_timeout_seconds"):
        Settings(db_path=tmp_path / "a.db", clock=FixedClock(NOW), query_timeout_seconds=0)
