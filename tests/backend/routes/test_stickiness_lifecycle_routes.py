"""Stickiness and lifecycle on every way in: the trend endpoint (``shown_as`` or ``insight``, GET and POST, CSV),
``/query/`` nodes (``StickinessQuery``, ``LifecycleQuery``), saved insights (refresh modes, the cache, CSV), and
the 400s of bad or unsupported fields.

Hand-worked events (13-15 January 2026, days in UTC; persons created at the epoch, long before):
u1 does ``e`` on the 13th and the 14th, u2 on the 14th.
Stickiness of ``e`` by day over the 13th-15th: u2 one day, u1 two -> [1, 1, 0] (cumulative [2, 1, 0]).
Lifecycle: u1 resurrecting the 13th, returning the 14th, dormant the 15th; u2 resurrecting the 14th, dormant the
15th -> new [0, 0, 0], returning [0, 1, 0], resurrecting [1, 1, 0], dormant [0, 0, -2].
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.factories import add_events

DATES = {"date_from": "2026-01-13", "date_to": "2026-01-15"}
BASE = {"events": [{"id": "e"}], **DATES}
STICKY = [1, 1, 0]
LIFECYCLE = {"new": [0, 0, 0], "returning": [0, 1, 0], "resurrecting": [1, 1, 0], "dormant": [0, 0, -2]}
STICKINESS_QUERY = {"kind": "StickinessQuery", "series": [{"kind": "EventsNode", "event": "e"}], "dateRange": DATES}
LIFECYCLE_QUERY = {"kind": "LifecycleQuery", "series": [{"kind": "EventsNode", "event": "e"}], "dateRange": DATES}


@pytest.fixture
def events(conn, world):
    add_events(
        conn,
        world.project_id,
        [("e", "u1", "2026-01-13T09:00:00Z"), ("e", "u1", "2026-01-14T09:00:00Z"), ("e", "u2", "2026-01-14T10:00:00Z")],
    )


def trend(client, world, method: str, body: dict[str, Any], query: str = ""):
    path = f"/api/projects/{world.project_id}/insights/trend/"
    if method == "GET":
        params = {key: value if isinstance(value, str) else json.dumps(value) for key, value in body.items()}
        return client.get(f"{path}?{urlencode(params)}{query}", headers=world.headers())
    return client.post(f"{path}{('?' + query.lstrip('&')) if query else ''}", json=body, headers=world.headers())


def by_status(series: list[dict[str, Any]]) -> dict[str, list[float]]:
    return {item["status"]: item["data"] for item in series}


def run_query(client, world, query: dict[str, Any], **extra: Any):
    body = {"query": query, **extra}
    return client.post(f"/api/projects/{world.project_id}/query/", json=body, headers=world.headers())


@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("kind", [{"shown_as": "Stickiness"}, {"insight": "stickiness"}])
def test_the_trend_endpoint_answers_stickiness(client, world, events, method, kind):
    response = trend(client, world, method, {**BASE, **kind})
    assert response.status_code == 200, response.text
    [series] = response.json()["result"]
    assert (series["data"], series["days"], series["count"]) == (STICKY, [1, 2, 3], 2)
    assert series["labels"] == ["1 day", "2 days", "3 days"]


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_the_trend_endpoint_answers_lifecycle(client, world, events, method):
    response = trend(client, world, method, {**BASE, "shown_as": "Lifecycle"})
    assert response.status_code == 200, response.text
    assert by_status(response.json()["result"]) == LIFECYCLE


def test_stickiness_csv(client, world, events):
    response = trend(client, world, "POST", {**BASE, "shown_as": "Stickiness"}, query="format=csv")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    assert response.text.splitlines() == ["series,1 day,2 days,3 days", "e,1,1,0"]


def test_lifecycle_csv(client, world, events):
    response = trend(client, world, "POST", {**BASE, "shown_as": "Lifecycle"}, query="format=csv")
    assert response.status_code == 200
    assert response.text.splitlines()[1:] == [
        "e - new,0.0,0.0,0.0",
        "e - returning,0.0,1.0,0.0",
        "e - resurrecting,1.0,1.0,0.0",
        "e - dormant,0.0,0.0,-2.0",
    ]


def test_query_nodes(client, world, events):
    cumulative = {**STICKINESS_QUERY, "stickinessFilter": {"computedAs": "cumulative"}}
    response = run_query(client, world, cumulative)
    assert response.status_code == 200, response.text
    assert response.json()["results"][0]["data"] == [2, 1, 0]
    # u1 and u2 do one event a day, so no day of theirs meets at least 2
    strict = {**STICKINESS_QUERY, "stickinessFilter": {"stickinessCriteria": {"operator": "gte", "value": 2}}}
    assert run_query(client, world, strict).json()["results"][0]["data"] == [0, 0, 0]
    compared = {**STICKINESS_QUERY, "compareFilter": {"compare": True}}
    labels = [item["compare_label"] for item in run_query(client, world, compared).json()["results"]]
    assert labels == ["current", "previous"]
    wrapped = {"kind": "InsightVizNode", "source": LIFECYCLE_QUERY}
    response = run_query(client, world, wrapped)
    assert response.status_code == 200, response.text
    assert by_status(response.json()["results"]) == LIFECYCLE


def test_saved_insights_refresh_cache_and_csv(client, world, events):
    base = f"/api/projects/{world.project_id}/insights/"
    sticky = client.post(
        base, json={"name": "Sticky", "filters": {"insight": "STICKINESS", **BASE}}, headers=world.headers()
    ).json()
    life = client.post(
        base, json={"name": "Life", "query": {"kind": "InsightVizNode", "source": LIFECYCLE_QUERY}},
        headers=world.headers(),
    ).json()  # fmt: skip
    cached = client.get(f"{base}{sticky['id']}/", headers=world.headers()).json()
    assert cached["result"] is None  # force_cache by default: nothing calculated yet
    fresh = client.get(f"{base}{sticky['id']}/?refresh=blocking", headers=world.headers()).json()
    assert (fresh["result"][0]["data"], fresh["is_cached"]) == (STICKY, False)
    again = client.get(f"{base}{sticky['id']}/?refresh=blocking", headers=world.headers()).json()
    assert (again["result"][0]["data"], again["is_cached"]) == (STICKY, True)
    lifecycle = client.get(f"{base}{life['id']}/?refresh=force_blocking", headers=world.headers()).json()
    assert by_status(lifecycle["result"]) == LIFECYCLE
    as_csv = client.get(f"{base}{sticky['id']}/?refresh=force_cache&format=csv", headers=world.headers())
    assert as_csv.status_code == 200 and as_csv.headers["content-type"].startswith("text/csv")
    assert "result" in as_csv.text.splitlines()[0]
    # a TRENDS insight whose filter says shown_as Stickiness is calculated as stickiness too
    shown = client.post(
        base, json={"filters": {"insight": "TRENDS", "shown_as": "Stickiness", **BASE}}, headers=world.headers()
    ).json()
    answered = client.get(f"{base}{shown['id']}/?refresh=blocking", headers=world.headers()).json()
    assert answered["result"][0]["days"] == [1, 2, 3]


STICKINESS = {**BASE, "shown_as": "Stickiness"}
LIFE = {**BASE, "shown_as": "Lifecycle"}
REFUSALS = [
    # (body, status code, error code, attr)
    ({**STICKINESS, "stickiness_criteria": {"operator": "more", "value": 2}}, "invalid_input",
     "stickiness_criteria__operator"),
    ({**STICKINESS, "stickiness_criteria": {"operator": "gte", "value": 0}}, "invalid_input",
     "stickiness_criteria__value"),
    ({**STICKINESS, "stickiness_criteria": {"operator": "gte"}}, "required", "stickiness_criteria__value"),
    ({**STICKINESS, "computed_as": "sometimes"}, "invalid_input", "computed_as"),
    ({**STICKINESS, "events": [{"id": "e", "math": "sum", "math_property": "x"}]}, "unsupported", "events__0__math"),
    ({**STICKINESS, "formula": "A * 2"}, "unsupported", "formula"),
    ({**STICKINESS, "display": "ActionsLineGraphCumulative"}, "unsupported", "display"),
    ({**STICKINESS, "smoothing_intervals": 3}, "unsupported", "smoothing_intervals"),
    ({**STICKINESS, "interval_count": 2}, "unsupported", "interval_count"),
    ({**LIFE, "events": [{"id": "e"}, {"id": "f"}]}, "invalid_input", "events"),
    ({**LIFE, "events": [{"id": "e", "math": "unique_session"}]}, "unsupported", "events__0__math"),
    ({**LIFE, "breakdown": "$browser"}, "unsupported", "breakdown"),
    ({**LIFE, "compare": True}, "unsupported", "compare"),
    ({**LIFE, "formula": "A"}, "unsupported", "formula"),
    ({**LIFE, "sampling_factor": 0.5}, "unsupported", "sampling_factor"),
    ({**BASE, "shown_as": "Sideways"}, "invalid_input", "shown_as"),
    ({**BASE, "shown_as": "Lifecycle", "insight": "STICKINESS"}, "invalid_input", "shown_as"),
]  # fmt: skip


@pytest.mark.parametrize("body, code, attr", REFUSALS)
def test_bad_and_unsupported_fields_are_400s(client, world, events, body, code, attr):
    response = trend(client, world, "POST", body)
    error = response.json()
    assert (response.status_code, error.get("code"), error.get("attr")) == (400, code, attr), response.text
    assert error["type"] == "validation_error"


@pytest.mark.parametrize(
    "query, attr",
    [
        ({**STICKINESS_QUERY, "intervalCount": 2}, "interval_count"),
        ({**STICKINESS_QUERY, "samplingFactor": 0.1}, "sampling_factor"),
        ({**STICKINESS_QUERY, "stickinessFilter": {"stickinessCriteria": {"operator": "lte", "value": -1}}},
         "stickiness_criteria__value"),
        ({**LIFECYCLE_QUERY, "compareFilter": {"compare": True}}, "compare"),
        ({**LIFECYCLE_QUERY, "series": [{"kind": "EventsNode", "event": "e"}] * 2}, "events"),
    ],
)  # fmt: skip
def test_query_nodes_refuse_what_they_do_not_calculate(client, world, events, query, attr):
    response = run_query(client, world, query)
    assert (response.status_code, response.json().get("attr")) == (400, attr), response.text
