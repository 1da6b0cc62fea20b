"""Formulas over broken-down series whose values differ between series: the join and PostHog's order.

PostHog's legacy formula query joins every series to the first on the breakdown value (full outer join; a
series lacking a value counts 0 there) and does not sort the result: the first series' values come first,
sorted by value ascending, then the values it lacks (here: series by series, each in its own ranking, event
count then value descending). The clock is fixed at 2026-01-15 12:00 UTC; ``-1d`` is 2026-01-14 .. 15.
"""

from __future__ import annotations

import json

from local_backend.queries.trends.formula import formula_breakdown_order
from tests.factories import add_events

NULL = "$$_posthog_breakdown_null_$$"


def formula_trend(client, world, body: dict) -> list[dict]:
    response = client.post(f"/api/projects/{world.project_id}/insights/trend/", json=body, headers=world.headers())
    assert response.status_code == 200, response.text
    return response.json()["result"]


def by_city(day: str, event: str, city: str | None, times: int = 1) -> list[tuple]:
    properties = {} if city is None else {"city": city}
    return [(event, "p", f"2026-01-{day}T10:00:00Z", properties)] * times


def test_values_missing_from_the_first_series_follow_its_values_whatever_the_totals(client, world, conn):
    add_events(
        conn,
        world.project_id,
        by_city("14", "start", "Paris", 2)
        + by_city("14", "start", "London")
        + by_city("15", "start", "London", 2)
        + by_city("15", "end", "London")
        + by_city("15", "end", "Belo Horizonte", 2)
        + by_city("15", "end", None),
    )
    body = {
        "events": [{"id": "start"}, {"id": "end"}],
        "formula": "A + B",
        "breakdown": "city",
        "date_from": "-1d",
    }
    # A has London and Paris (ascending); B adds Belo Horizonte (2 events) and the null value (1 event).
    # A + B: London [1, 2 + 1], Paris [2, 0], Belo Horizonte [0, 0 + 2], null [0, 0 + 1]. Paris and Belo
    # Horizonte both total 2: Paris comes first because it is one of A's values, not because of its total.
    result = formula_trend(client, world, body)
    assert [(s["breakdown_value"], s["label"], s["data"], s["count"]) for s in result] == [
        ("London", "London", [1.0, 3.0], 4.0),
        ("Paris", "Paris", [2.0, 0.0], 2.0),
        ("Belo Horizonte", "Belo Horizonte", [0.0, 2.0], 2.0),
        (NULL, NULL, [0.0, 1.0], 1.0),
    ]
    pie = formula_trend(client, world, {**body, "display": "ActionsPie"})
    assert [(s["breakdown_value"], s["aggregated_value"]) for s in pie] == [
        ("London", 4.0),
        ("Paris", 2.0),
        ("Belo Horizonte", 2.0),
        (NULL, 1.0),
    ]


def test_the_first_series_values_are_in_value_order_not_total_order(client, world, conn):
    add_events(
        conn,
        world.project_id,
        by_city("15", "start", "Zurich", 3)
        + by_city("15", "start", "Amsterdam")
        + by_city("15", "end", "Berlin", 5)
        + by_city("15", "end", "Zurich"),
    )
    result = formula_trend(
        client,
        world,
        {"events": [{"id": "start"}, {"id": "end"}], "formula": "A + B", "breakdown": "city", "date_from": "dStart"},
    )
    # Amsterdam 1 + 0, Zurich 3 + 1, then Berlin (only in B) 0 + 5, largest but last
    assert [(s["breakdown_value"], s["data"]) for s in result] == [
        ("Amsterdam", [1.0]),
        ("Zurich", [4.0]),
        ("Berlin", [5.0]),
    ]


def test_the_null_value_sorts_first_among_the_first_series_values(client, world, conn):
    # the null value's text starts with "$", before letters and digits in PostHog's value order
    add_events(conn, world.project_id, by_city("15", "start", "alpha", 2) + by_city("15", "start", None))
    result = formula_trend(
        client,
        world,
        {"events": [{"id": "start"}], "formula": "A * 10", "breakdown": "city", "date_from": "dStart"},
    )
    assert [(s["breakdown_value"], s["data"]) for s in result] == [(NULL, [10.0]), ("alpha", [20.0])]


def test_values_new_in_later_series_come_series_by_series_in_each_ranking(client, world, conn):
    add_events(
        conn,
        world.project_id,
        by_city("15", "a", "x")
        + by_city("15", "b", "m")
        + by_city("15", "b", "n")
        + by_city("15", "c", "aa", 2)
        + by_city("15", "c", "n"),
    )
    result = formula_trend(
        client,
        world,
        {
            "events": [{"id": "a"}, {"id": "b"}, {"id": "c"}],
            "formula": "A + B + C",
            "breakdown": "city",
            "date_from": "dStart",
        },
    )
    # A: x. B ranks n and m (one event each, ties by value descending: n, m). C adds aa. n is in B and C:
    # one result, 0 + 1 + 1. Totals (x 1, n 2, m 1, aa 2) play no part.
    assert [(s["breakdown_value"], s["data"]) for s in result] == [
        ("x", [1.0]),
        ("n", [2.0]),
        ("m", [1.0]),
        ("aa", [2.0]),
    ]


def test_cohort_breakdown_formulas_list_all_users_then_cohorts_by_id(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [("e", "a", "2026-01-15T10:00:00Z"), ("e", "b", "2026-01-15T10:00:00Z"), ("e", "b", "2026-01-15T11:00:00Z")],
        persons={"a": {"plan": "pro"}, "b": {"plan": "free"}},
    )
    ids = []
    for name, plan in (("Pros", "pro"), ("Frees", "free")):
        rule = {"properties": {"type": "AND", "values": [{"key": "plan", "value": plan, "type": "person"}]}}
        conn.execute(
            "INSERT INTO cohorts (project_id, name, is_static, filters, created_at, updated_at)"
            " VALUES (?, ?, 0, ?, '', '')",
            (world.project_id, name, json.dumps(rule)),
        )
        ids.append(conn.execute("SELECT max(id) FROM cohorts").fetchone()[0])
    conn.commit()
    pros, frees = ids
    result = formula_trend(
        client,
        world,
        {
            "events": [{"id": "e"}],
            "formula": "A",
            "breakdown": [frees, "all", pros],
            "breakdown_type": "cohort",
            "date_from": "dStart",
        },
    )
    # all users (3 events), then by cohort id: Pros (created first, 1 event) before Frees (2 events)
    assert [(s["breakdown_value"], s["label"], s["data"]) for s in result] == [
        ("all", "all users", [3.0]),
        (pros, "Pros", [1.0]),
        (frees, "Frees", [2.0]),
    ]


def test_formula_breakdown_order_offline():
    assert formula_breakdown_order([]) == []
    assert formula_breakdown_order([[None], [None]]) == [None]
    assert formula_breakdown_order([["b", "a"], []]) == ["a", "b"]
    assert formula_breakdown_order([[], ["b", "a"]]) == ["b", "a"]  # no first-series values: B's ranking
    assert formula_breakdown_order([["Zebra", "apple", "10", "9"]]) == ["10", "9", "Zebra", "apple"]
    assert formula_breakdown_order([[7, "all", 3]]) == ["all", 3, 7]
