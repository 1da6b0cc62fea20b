"""Materializing a property never changes an answer: the same requests, before and after, compared whole.

``plan`` (event) and ``tier`` (person) take every shape a property can: text, a number, a boolean, the text
``"true"``, null, empty and missing, so a column that read any of them differently would change a count.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from local_backend.queries.base_filter import compiler_for
from local_backend.queries.breakdowns import breakdown_expression
from local_backend.queries.filter_parsing import parse_filter
from local_backend.queries.trends import TrendsFilter
from local_backend.store.materialized import column_name
from tests.factories import add_events


def pv(who: str, day: str, **props: Any) -> tuple[str, str, str, dict[str, Any]]:
    return ("$pageview", who, f"2026-01-{day}T10:00:00Z", {"$current_url": f"/{who}/{day}", **props})


EVENTS = [
    pv("alice", "10", plan="pro"),
    ("signup", "alice", "2026-01-10T10:05:00Z", {"plan": "pro"}),
    pv("alice", "11", plan="pro"),
    pv("bob", "10", plan="free", **{"$browser": "Chrome"}),
    ("signup", "bob", "2026-01-12T10:00:00Z", {"plan": 5}),
    pv("carol", "11", plan=True, **{"$browser": "Chrome"}),
    pv("carol", "12", plan="true"),
    ("signup", "carol", "2026-01-12T11:00:00Z", {"plan": None}),
    pv("dave", "12", **{"$browser": "Chrome"}),
    pv("dave", "13", plan=""),
    pv("erin", "13", plan="pro", **{"$browser": "Chrome"}),
    pv("erin", "14", plan=5),
]
PERSONS = {"alice": {"tier": "gold"}, "bob": {"tier": "silver"}, "carol": {"tier": 1}, "erin": {"tier": True}}
RANGE = {"date_from": "2026-01-10", "date_to": "2026-01-14"}
PRO = [{"key": "plan", "value": "pro", "operator": "exact", "type": "event"}]
CHROME = [{"key": "$browser", "value": "Chrome", "operator": "exact", "type": "event"}]
REQUESTS: list[tuple[str, str, dict[str, Any]]] = [
    ("post", "trend", {**RANGE, "events": [{"id": "$pageview"}], "properties": PRO}),
    ("post", "trend", {**RANGE, "events": [{"id": "$pageview"}], "properties": CHROME, "breakdown": "plan"}),
    (
        "post",
        "trend",
        {
            **RANGE,
            "events": [{"id": "$pageview", "math": "dau"}],
            "properties": [{"key": "plan", "value": ["pro", "free"], "operator": "is_not", "type": "event"}],
            "breakdown": "tier",
            "breakdown_type": "person",
        },
    ),
    (
        "post",
        "trend",
        {
            **RANGE,
            "events": [{"id": "$pageview"}],
            "properties": [{"key": "tier", "value": "gold", "operator": "exact", "type": "person"}],
        },
    ),
    (
        "post",
        "funnel",
        {**RANGE, "events": [{"id": "$pageview", "order": 0}, {"id": "signup", "order": 1}], "breakdown": "plan"},
    ),
    ("get", "retention", {**RANGE, "target_entity": {"id": "$pageview", "type": "events"}, "properties": PRO}),
    ("get", "path", {**RANGE, "include_event_types": ["$pageview", "custom_event"], "properties": PRO}),
]


def answers(client, world) -> list[Any]:
    found = []
    for method, kind, body in REQUESTS:
        url = f"/api/projects/{world.project_id}/insights/{kind}/"
        if method == "post":
            response = client.post(url, json=body, headers=world.headers())
        else:
            params = {k: json.dumps(v) if isinstance(v, dict | list) else v for k, v in body.items()}
            response = client.get(url, params=params, headers=world.headers())
        assert response.status_code == 200, (kind, response.text)
        payload = response.json()
        payload.pop("timings", None)  # how long each part took: the only part that may differ
        found.append(payload)
    return found


@pytest.fixture
def events(conn, world):
    add_events(conn, world.project_id, EVENTS, persons=PERSONS)
    return world.project_id


def test_answers_are_identical_with_and_without_materialized_columns(client, world, conn, events):
    before = answers(client, world)
    # hand-worked: pageviews with plan "pro" are alice on the 10th and 11th and erin on the 13th
    assert before[0]["result"][0]["data"] == [1, 1, 0, 1, 0]
    # Chrome pageviews by plan: free (bob, 10th), true (carol's boolean, 11th), none (dave), pro (erin, 13th)
    by_value = {series["breakdown_value"]: series["data"] for series in before[1]["result"]}
    assert by_value["free"] == [1, 0, 0, 0, 0]
    assert by_value["true"] == [0, 1, 0, 0, 0]
    assert by_value["pro"] == [0, 0, 0, 1, 0]
    for kind, key in (("event", "plan"), ("person", "tier")):
        made = client.post(
            f"/api/projects/{world.project_id}/materialized_properties/",
            json={"property": key, "type": kind},
            headers=world.headers(),
        )
        assert made.status_code == 201, made.text
    listed = client.get(f"/api/projects/{world.project_id}/materialized_properties/", headers=world.headers())
    assert {(row["property"], row["state"]) for row in listed.json()["results"]} == {
        ("plan", "ready"),
        ("tier", "ready"),
    }
    assert answers(client, world) == before


def test_filters_and_breakdowns_read_the_columns_once_ready(client, world, conn, events):
    event_column, person_column = column_name("event", "plan"), column_name("person", "tier")
    for kind, key in (("event", "plan"), ("person", "tier")):
        client.post(
            f"/api/projects/{world.project_id}/materialized_properties/",
            json={"property": key, "type": kind},
            headers=world.headers(),
        )
    compiler = compiler_for(conn, {"id": world.project_id})
    sql, _ = compiler.compile(PRO)
    assert f"e.{event_column}" in sql
    sql, _ = compiler.compile([{"key": "tier", "value": "gold", "operator": "exact", "type": "person"}])
    assert person_column in sql
    # a number, a boolean text or a missing-or-null test would differ in the column: those read the JSON
    for value, operator in (("5", "exact"), ("true", "exact"), (None, "is_set"), ("pr", "icontains")):
        sql, _ = compiler.compile([{"key": "plan", "value": value, "operator": operator, "type": "event"}])
        assert event_column not in sql
    trend = parse_filter(TrendsFilter, {"events": [{"id": "$pageview"}], "breakdown": "plan"})
    assert event_column in breakdown_expression(trend, compiler)[0]
    person = parse_filter(
        TrendsFilter, {"events": [{"id": "$pageview"}], "breakdown": "tier", "breakdown_type": "person"}
    )
    assert person_column in breakdown_expression(person, compiler)[0]


def test_a_column_still_backfilling_is_not_read(conn, world, events):
    from local_backend.store.materialized import backfill, materialize

    column = materialize(conn, world.project_id, "plan", now="2026-01-15T00:00:00Z")
    sql, _ = compiler_for(conn, {"id": world.project_id}).compile(PRO)
    assert column not in sql
    backfill(conn, column)
    sql, _ = compiler_for(conn, {"id": world.project_id}).compile(PRO)
    assert column in sql
