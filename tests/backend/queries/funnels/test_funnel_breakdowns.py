"""Funnels by group, HogQL, session and group-property breakdowns, trends per value: numbers worked by hand."""

from __future__ import annotations

import json

from tests.factories import add_events

URL = "/api/projects/{pid}/insights/funnel/"
AB = [{"id": "a", "order": 0}, {"id": "b", "order": 1}]


def funnel(client, world, **body):
    body.setdefault("events", AB)
    response = client.post(URL.format(pid=world.project_id), json=body, headers=world.headers())
    assert response.status_code == 200, response.json()
    return response.json()["result"]


def by_value(result):
    return {json.dumps(g[0]["breakdown_value"]): [s["count"] for s in g] for g in result}


def set_groups(conn, project_id, assignments):
    """``{distinct_id: company key}``: every event of the distinct id belongs to that company (index 0)."""
    for distinct_id, key in assignments.items():
        conn.execute(
            "UPDATE events SET group_0 = ? WHERE project_id = ? AND distinct_id = ?", (key, project_id, distinct_id)
        )
    conn.commit()


def test_aggregation_by_group_counts_companies(client, world, conn):
    # two persons of acme: one does a, the other b -> acme converts as a company; globex only does a
    add_events(
        conn,
        world.project_id,
        [("a", "u1", "2026-01-10T10:00:00Z"), ("b", "u2", "2026-01-10T10:30:00Z"), ("a", "u3", "2026-01-10T11:00:00Z"),
         ("a", "loner", "2026-01-10T11:00:00Z")],
    )  # fmt: skip
    set_groups(conn, world.project_id, {"u1": "acme", "u2": "acme", "u3": "globex"})
    steps = funnel(client, world, aggregation_group_type_index=0)
    # the event without a company is not counted
    assert [(s["count"], s["average_conversion_time"]) for s in steps] == [(2, None), (1, 1800.0)]
    assert [s["count"] for s in funnel(client, world)] == [3, 0]


def test_group_property_breakdown(client, world, conn):
    add_events(conn, world.project_id, [("a", "u1", "2026-01-10T10:00:00Z"), ("b", "u1", "2026-01-10T10:01:00Z"),
                                        ("a", "u2", "2026-01-10T10:00:00Z")])  # fmt: skip
    set_groups(conn, world.project_id, {"u1": "acme", "u2": "globex"})
    conn.executemany(
        "INSERT INTO groups (project_id, group_type_index, group_key, properties, created_at) VALUES (?, 0, ?, ?, 0)",
        [(world.project_id, "acme", json.dumps({"size": "big"})), (world.project_id, "globex", json.dumps({}))],
    )
    conn.commit()
    result = funnel(client, world, breakdown="size", breakdown_type="group", breakdown_group_type_index=0)
    # group breakdown values are plain strings; globex has no size: ""
    assert by_value(result) == {'"big"': [1, 1], '""': [1, 0]}


def test_hogql_breakdown(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [("a", "u1", "2026-01-10T10:00:00Z", {"plan": "pro"}), ("b", "u1", "2026-01-10T10:01:00Z", {"plan": "pro"}),
         ("a", "u2", "2026-01-10T10:00:00Z", {"plan": "free"})],
        persons={"u1": {"tier": 1}, "u2": {"tier": 2}},
    )  # fmt: skip
    by_event = funnel(client, world, breakdown="properties.plan", breakdown_type="hogql")
    assert by_value(by_event) == {'["pro"]': [1, 1], '["free"]': [1, 0]}
    by_person = funnel(client, world, breakdown="person.properties.tier", breakdown_type="hogql")
    assert by_value(by_person) == {'["1"]': [1, 1], '["2"]': [1, 0]}


def test_session_duration_breakdown(client, world, conn):
    # u1's session s1 lasts 60 s (a at 0, b at 60); u2's session s2 is one event: 0 s
    add_events(
        conn,
        world.project_id,
        [("a", "u1", "2026-01-10T10:00:00Z", {"$session_id": "s1"}),
         ("b", "u1", "2026-01-10T10:01:00Z", {"$session_id": "s1"}),
         ("a", "u2", "2026-01-10T10:00:00Z", {"$session_id": "s2"})],
    )  # fmt: skip
    result = funnel(client, world, breakdown="$session_duration", breakdown_type="session", insight="FUNNELS")
    assert by_value(result) == {'"60"': [1, 1], '"0"': [1, 0]}


def test_trends_by_breakdown_value(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [("a", "u1", "2026-01-10T10:00:00Z", {"v": "x"}), ("b", "u1", "2026-01-10T10:01:00Z", {"v": "x"}),
         ("a", "u2", "2026-01-10T10:00:00Z", {"v": "y"}), ("a", "u3", "2026-01-11T10:00:00Z", {"v": "x"})],
    )  # fmt: skip
    result = funnel(
        client, world, funnel_viz_type="trends", breakdown="v", insight="FUNNELS", date_from="2026-01-10",
        date_to="2026-01-11",
    )  # fmt: skip
    # x: Jan 10 u1 converts (100 %), Jan 11 u3 does not (0 %); y: Jan 10 u2 does not, Jan 11 nobody
    assert {item["breakdown_value"]: item["data"] for item in result} == {"x": [100.0, 0.0], "y": [0.0, 0.0]}
    assert {item["breakdown_value"]: item["reached_from_step_count"] for item in result} == {"x": [1, 1], "y": [1, 0]}


def test_hourly_trends(client, world, conn):
    add_events(conn, world.project_id, [("a", "u1", "2026-01-10T10:10:00Z"), ("b", "u1", "2026-01-10T10:20:00Z"),
                                        ("a", "u2", "2026-01-10T11:59:00Z")])  # fmt: skip
    [series] = funnel(
        client, world, funnel_viz_type="trends", interval="hour", date_from="2026-01-10T10:00:00",
        date_to="2026-01-10T11:59:59",
    )  # fmt: skip
    assert series["days"] == ["2026-01-10 10:00:00", "2026-01-10 11:00:00"]
    assert series["data"] == [100.0, 0.0]


def test_strict_funnel_with_exclusion(client, world, conn):
    # u1: a then x then nothing (x inside the window after a): excluded; u2: a b directly
    events = [("a", "u1", "2026-01-10T10:00:00Z"), ("x", "u1", "2026-01-10T10:05:00Z"),
              ("a", "u2", "2026-01-10T10:00:00Z"), ("b", "u2", "2026-01-10T10:01:00Z")]  # fmt: skip
    add_events(conn, world.project_id, events)
    exclusion = [{"id": "x", "funnel_from_step": 0, "funnel_to_step": 1}]
    assert [s["count"] for s in funnel(client, world, funnel_order_type="strict", exclusions=exclusion)] == [1, 1]
    assert [s["count"] for s in funnel(client, world, funnel_order_type="strict")] == [2, 1]


def test_repeated_step_needs_a_second_event(client, world, conn):
    add_events(conn, world.project_id, [("a", "u1", "2026-01-10T10:00:00Z"), ("a", "u2", "2026-01-10T10:00:00Z"),
                                        ("a", "u2", "2026-01-10T10:00:05Z")])  # fmt: skip
    steps = [{"id": "a", "order": 0}, {"id": "a", "order": 1}]
    assert [(s["count"], s["median_conversion_time"]) for s in funnel(client, world, events=steps)] == [
        (2, None),
        (1, 5.0),
    ]


def test_project_timezone_shapes_the_range(client, world, conn):
    # in Berlin the day of Jan 9 ends at 23:00 UTC, so an event at 23:30 UTC falls on Jan 10
    conn.execute("UPDATE projects SET timezone = 'Europe/Berlin' WHERE id = ?", (world.project_id,))
    conn.commit()
    add_events(conn, world.project_id, [("a", "u1", "2026-01-09T23:30:00Z"), ("b", "u1", "2026-01-09T23:40:00Z")])
    assert [s["count"] for s in funnel(client, world, date_from="2026-01-10", date_to="2026-01-10")] == [1, 1]
    assert [s["count"] for s in funnel(client, world, date_from="2026-01-09", date_to="2026-01-09")] == [0, 0]


def test_people_of_a_group_funnel_are_groups(client, world, conn):
    add_events(conn, world.project_id, [("a", "u1", "2026-01-10T10:00:00Z"), ("b", "u2", "2026-01-10T10:30:00Z"),
                                        ("a", "u3", "2026-01-10T11:00:00Z")])  # fmt: skip
    set_groups(conn, world.project_id, {"u1": "acme", "u2": "acme", "u3": "globex"})
    conn.execute(
        "INSERT INTO groups (project_id, group_type_index, group_key, properties, created_at) VALUES (?, 0, ?, ?, 0)",
        (world.project_id, "acme", json.dumps({"size": "big"})),
    )
    conn.commit()
    steps = funnel(client, world, aggregation_group_type_index=0)

    def actors(url):
        response = client.get(url, headers=world.headers())
        assert response.status_code == 200, response.json()
        return response.json()["results"][0]["people"]

    assert actors(steps[1]["converted_people_url"]) == [
        {"group_key": "acme", "group_type_index": 0, "group_properties": {"size": "big"}}
    ]
    assert [g["group_key"] for g in actors(steps[1]["dropped_people_url"])] == ["globex"]
