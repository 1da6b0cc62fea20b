"""Trends over hand-written events, expected numbers worked out by hand.

The clock is fixed at Thursday 2026-01-15 12:00 UTC, so the default range (-7d) is the eight days
2026-01-08 .. 2026-01-15, and index i of ``data`` is 2026-01-(08 + i).
"""

from __future__ import annotations

import json

import pytest

from tests.factories import add_events

DAYS = [f"2026-01-{day:02d}" for day in range(8, 16)]


def trend(client, world, body: dict, *, query: str = "") -> dict:
    response = client.post(
        f"/api/projects/{world.project_id}/insights/trend/{query}", json=body, headers=world.headers()
    )
    assert response.status_code == 200, response.text
    return response.json()


def data_of(body: dict) -> list[list[float]]:
    return [series["data"] for series in body["result"]]


def test_total_counts_per_day_zero_filled(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            ("$pageview", "alice", "2026-01-08T00:00:00Z"),
            ("$pageview", "alice", "2026-01-10T09:00:00Z"),
            ("$pageview", "bob", "2026-01-10T23:59:59Z"),
            ("$pageview", "bob", "2026-01-15T11:00:00Z"),
            ("$pageview", "bob", "2026-01-07T23:59:59Z"),  # the day before the range
            ("signup", "bob", "2026-01-10T10:00:00Z"),  # another event
        ],
    )
    body = trend(client, world, {"events": [{"id": "$pageview"}]})
    [series] = body["result"]
    assert series["data"] == [1, 0, 2, 0, 0, 0, 0, 1]
    assert series["count"] == 4
    assert series["days"] == DAYS
    assert series["labels"][:2] == ["8-Jan-2026", "9-Jan-2026"]
    assert series["label"] == "$pageview"
    assert series["action"] == {
        "id": "$pageview",
        "type": "events",
        "order": None,
        "name": "$pageview",  # PostHog names an event entity sent without a name by its id
        "custom_name": None,
        "math": None,
        "math_hogql": None,
        "math_property": None,
        "math_group_type_index": None,
        "properties": [],
    }
    assert series["filter"]["date_from"] == "-7d" and series["filter"]["events"][0]["id"] == "$pageview"
    assert series["filter"]["properties"] == {"type": "AND", "values": []}
    assert body["timezone"] == "UTC" and body["is_cached"] is False and body["next"] is None


def test_get_reads_json_encoded_query_parameters_and_the_body_wins(client, world, conn):
    add_events(conn, world.project_id, [("a", "x", "2026-01-14T10:00:00Z"), ("b", "x", "2026-01-14T10:00:00Z")])
    events = json.dumps([{"id": "a"}])
    url = f"/api/projects/{world.project_id}/insights/trend/"
    got = client.get(url, params={"events": events, "date_from": "-1d"}, headers=world.headers()).json()
    assert got["result"][0]["label"] == "a" and got["result"][0]["data"] == [1, 0]
    both = client.post(
        url, params={"events": events, "date_from": "-1d"}, json={"events": [{"id": "b"}]}, headers=world.headers()
    )
    assert both.json()["result"][0]["label"] == "b"


def test_all_events_and_entity_order(client, world, conn):
    add_events(conn, world.project_id, [("a", "x", "2026-01-15T10:00:00Z"), ("b", "x", "2026-01-15T10:00:00Z")])
    conn.execute(
        "INSERT INTO actions (project_id, name, steps, created_at, updated_at) VALUES (?, 'Did b', ?, '', '')",
        (world.project_id, json.dumps([{"event": "b"}])),
    )
    conn.commit()
    action_id = conn.execute("SELECT max(id) FROM actions").fetchone()[0]
    body = trend(
        client,
        world,
        {
            "date_from": "dStart",
            "events": [{"id": None, "order": 2}, {"id": "a", "order": 1}],
            "actions": [{"id": action_id, "order": 0}],
        },
    )
    # order 0 counts as -1, so the action comes first, then a (1), then all events (2)
    assert [(s["label"], s["data"]) for s in body["result"]] == [("Did b", [1]), ("a", [1]), ("All events", [2])]
    # every series is named as PostHog names it: the stored action's name, the event id, "All events"
    assert [s["action"]["name"] for s in body["result"]] == ["Did b", "a", "All events"]
    assert [e.get("name") for e in body["result"][0]["filter"]["events"]] == ["All events", "a"]
    # the echoed filter names its entities as the series do
    assert [e.get("name") for e in body["result"][0]["filter"]["actions"]] == ["Did b"]


def test_unknown_action_gives_no_series(client, world):
    assert trend(client, world, {"actions": [{"id": 999}]})["result"] == []


def test_dau_counts_each_person_once_per_day_across_distinct_ids(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            ("$pageview", "anon", "2026-01-14T08:00:00Z"),
            ("$pageview", "alice", "2026-01-14T09:00:00Z"),
            ("$pageview", "alice", "2026-01-14T10:00:00Z"),
            ("$pageview", "bob", "2026-01-14T10:00:00Z"),
            ("$pageview", "bob", "2026-01-15T10:00:00Z"),
        ],
        same_person=[("alice", "anon")],
    )
    body = trend(client, world, {"events": [{"id": "$pageview", "math": "dau"}], "date_from": "-1d"})
    assert data_of(body) == [[2, 1]]


def test_weekly_and_monthly_active_look_back_from_each_day(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            ("e", "old", "2025-12-20T10:00:00Z"),  # 26 days before the 15th: monthly only
            ("e", "a", "2026-01-02T10:00:00Z"),  # counts on the 8th (window 2nd..8th), not on the 9th
            ("e", "b", "2026-01-09T10:00:00Z"),  # counts on the 9th .. 15th
            ("e", "c", "2026-01-15T10:00:00Z"),
        ],
    )
    weekly = trend(client, world, {"events": [{"id": "e", "math": "weekly_active"}]})
    assert data_of(weekly) == [[1, 1, 1, 1, 1, 1, 1, 2]]
    monthly = trend(client, world, {"events": [{"id": "e", "math": "monthly_active"}]})
    assert data_of(monthly) == [[2, 3, 3, 3, 3, 3, 3, 4]]
    # BoldNumber: distinct persons in the 7 days up to date_to (9th..15th)
    bold = trend(client, world, {"events": [{"id": "e", "math": "weekly_active"}], "display": "BoldNumber"})
    assert bold["result"][0]["aggregated_value"] == 2


def test_unique_sessions_and_groups(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            ("e", "a", "2026-01-15T08:00:00Z", {"$session_id": "s1"}),
            ("e", "a", "2026-01-15T08:01:00Z", {"$session_id": "s1"}),
            ("e", "b", "2026-01-15T08:02:00Z", {"$session_id": "s2"}),
            ("e", "b", "2026-01-15T08:03:00Z"),
        ],
    )
    conn.execute("UPDATE events SET group_0 = CASE distinct_id WHEN 'a' THEN 'acme' ELSE '' END")
    conn.commit()
    sessions = trend(client, world, {"events": [{"id": "e", "math": "unique_session"}], "date_from": "dStart"})
    assert data_of(sessions) == [[2]]
    groups = trend(
        client,
        world,
        {"events": [{"id": "e", "math": "unique_group", "math_group_type_index": 0}], "date_from": "dStart"},
    )
    assert data_of(groups) == [[1]]


@pytest.mark.parametrize(
    ("math", "expected"),
    [
        ("sum", 10.0),
        ("avg", 5.0),
        ("min", 2.0),
        ("max", 8.0),
        ("median", 5.0),
        ("p90", 7.4),  # 2 + 0.9 * (8 - 2)
    ],
)
def test_property_math_ignores_values_that_are_not_numbers(client, world, conn, math, expected):
    add_events(
        conn,
        world.project_id,
        [
            ("buy", "a", "2026-01-15T08:00:00Z", {"price": 2}),
            ("buy", "a", "2026-01-15T08:00:00Z", {"price": "x"}),
            ("buy", "a", "2026-01-15T08:00:00Z", {"price": None}),
            ("buy", "a", "2026-01-15T08:00:00Z", {}),
            ("buy", "a", "2026-01-15T08:00:00Z", {"price": "8"}),
        ],
    )
    body = trend(
        client, world, {"events": [{"id": "buy", "math": math, "math_property": "price"}], "date_from": "dStart"}
    )
    assert body["result"][0]["data"] == [pytest.approx(expected)]


def test_numeric_text_is_read_as_toFloat64OrNull_reads_it(client, world, conn):
    # ASCII digits with spaces around or underscores between them are numbers; digits of other scripts and
    # spaces other than ASCII's are not (Python's float() would read them all)
    prices = [" 4 ", "1_000", 2, "\u0661\u0662", "\uff11", "3\u00a0", "\u20075"]
    add_events(conn, world.project_id, [("buy", "a", "2026-01-15T08:00:00Z", {"price": p}) for p in prices])
    total = trend(
        client, world, {"events": [{"id": "buy", "math": "sum", "math_property": "price"}], "date_from": "dStart"}
    )
    assert total["result"][0]["data"] == [1006.0]  # 4 + 1000 + 2
    above = trend(
        client,
        world,
        {"events": [{"id": "buy"}], "date_from": "dStart",
         "properties": [{"key": "price", "value": 0, "operator": "gt", "type": "event"}]},
    )  # fmt: skip
    assert above["result"][0]["data"] == [3]


def test_date_filters_read_one_grammar_of_dates(client, world, conn):
    # a date before 1900 is a date; a week date and a date mixing the basic and extended forms are not, and
    # their first ten characters are not a date either
    born = ["1026-01-10", "1899-12-31T23:00:00-02:00", "2026-W02-6", "2026-0110", "2026-01-10"]
    add_events(conn, world.project_id, [("e", "a", "2026-01-15T08:00:00Z", {"born": b}) for b in born])

    def count(operator: str, value: str) -> int:
        body = trend(
            client,
            world,
            {"events": [{"id": "e"}], "date_from": "dStart",
             "properties": [{"key": "born", "value": value, "operator": operator, "type": "event"}]},
        )  # fmt: skip
        return body["result"][0]["data"][0]

    assert count("is_date_before", "1900-01-01") == 1  # 1026; 1899-12-31T23:00-02:00 is 1900-01-01T01:00Z
    assert count("is_date_after", "1899-12-31") == 2  # 1900-01-01T01:00Z and 2026-01-10
    assert count("is_date_exact", "2026-01-10") == 1


def test_median_of_101_to_200_interpolates(client, world, conn):
    add_events(conn, world.project_id, [("n", "a", "2026-01-15T08:00:00Z", {"v": v}) for v in range(101, 201)])
    body = trend(
        client, world, {"events": [{"id": "n", "math": "median", "math_property": "v"}], "date_from": "dStart"}
    )
    assert body["result"][0]["data"] == [150.5]


def test_count_per_actor(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [("e", "a", "2026-01-15T08:00:00Z")] * 3 + [("e", "b", "2026-01-15T08:00:00Z")],
    )
    for math, expected in (("avg_count_per_actor", 2.0), ("max_count_per_actor", 3.0), ("min_count_per_actor", 1.0)):
        body = trend(client, world, {"events": [{"id": "e", "math": math}], "date_from": "dStart"})
        assert body["result"][0]["data"] == [expected], math


def test_session_duration_math_counts_each_session_once(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            ("e", "a", "2026-01-15T08:00:00Z", {"$session_id": "s1"}),
            ("e", "a", "2026-01-15T08:01:00Z", {"$session_id": "s1"}),
            ("e", "a", "2026-01-15T08:02:00Z", {"$session_id": "s1"}),  # s1 lasts 120 s
            ("e", "b", "2026-01-15T09:00:00Z", {"$session_id": "s2"}),
            ("e", "b", "2026-01-15T09:00:40Z", {"$session_id": "s2"}),  # s2 lasts 40 s
        ],
    )
    body = trend(
        client,
        world,
        {"events": [{"id": "e", "math": "avg", "math_property": "$session_duration"}], "date_from": "dStart"},
    )
    assert body["result"][0]["data"] == [80.0]


def test_hour_week_and_month_intervals(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            ("e", "a", "2026-01-15T09:30:00Z"),
            ("e", "a", "2026-01-15T11:59:00Z"),
            ("e", "a", "2026-01-04T10:00:00Z"),  # Sunday
            ("e", "a", "2026-01-03T10:00:00Z"),  # Saturday, the week before
            ("e", "a", "2025-12-31T10:00:00Z"),
        ],
    )
    hourly = trend(client, world, {"events": [{"id": "e"}], "date_from": "-3h", "interval": "hour"})
    assert hourly["result"][0]["days"] == [f"2026-01-15 {h:02d}:00:00" for h in (9, 10, 11, 12)]
    assert data_of(hourly) == [[1, 0, 1, 0]]
    weekly = trend(client, world, {"events": [{"id": "e"}], "date_from": "2026-01-01", "interval": "week"})
    # weeks start on Sunday: Dec 28, Jan 4, Jan 11; the lower bound rounds back to Dec 28
    assert weekly["result"][0]["days"] == ["2025-12-28", "2026-01-04", "2026-01-11"]
    assert data_of(weekly) == [[2, 1, 2]]
    monthly = trend(client, world, {"events": [{"id": "e"}], "date_from": "-1m", "interval": "month"})
    assert monthly["result"][0]["days"] == ["2025-12-01", "2026-01-01"]
    assert data_of(monthly) == [[1, 4]]


def test_week_start_day_of_the_project(client, world, conn):
    add_events(conn, world.project_id, [("e", "a", "2026-01-04T10:00:00Z")])  # a Sunday
    response = client.patch(f"/api/projects/{world.project_id}/", json={"week_start_day": 1}, headers=world.headers())
    assert response.status_code == 200
    body = trend(client, world, {"events": [{"id": "e"}], "date_from": "2026-01-01", "interval": "week"})
    assert body["result"][0]["days"] == ["2025-12-29", "2026-01-05", "2026-01-12"]
    assert data_of(body) == [[1, 0, 0]]


def test_project_timezone_moves_events_across_midnight(client, world, conn):
    conn.execute("UPDATE projects SET timezone = 'America/Los_Angeles' WHERE id = ?", (world.project_id,))
    conn.commit()
    # 2026-01-15 03:00 UTC is 19:00 on the 14th in Los Angeles
    add_events(conn, world.project_id, [("e", "a", "2026-01-15T03:00:00Z"), ("e", "a", "2026-01-15T09:00:00Z")])
    body = trend(client, world, {"events": [{"id": "e"}], "date_from": "-1d"})
    assert body["timezone"] == "America/Los_Angeles"
    assert body["result"][0]["days"] == ["2026-01-14", "2026-01-15"]
    assert data_of(body) == [[1, 1]]


def test_cumulative_total_and_dau(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            ("e", "a", "2026-01-13T10:00:00Z"),
            ("e", "a", "2026-01-14T10:00:00Z"),
            ("e", "b", "2026-01-14T10:00:00Z"),
            ("e", "a", "2026-01-15T10:00:00Z"),
        ],
    )
    total = trend(client, world, {"events": [{"id": "e"}], "date_from": "-2d", "display": "ActionsLineGraphCumulative"})
    assert total["result"][0]["data"] == [1, 3, 4] and total["result"][0]["count"] == 4
    dau = trend(
        client,
        world,
        {"events": [{"id": "e", "math": "dau"}], "date_from": "-2d", "display": "ActionsLineGraphCumulative"},
    )
    # a first seen on the 13th, b on the 14th
    assert dau["result"][0]["data"] == [1, 2, 2]


def test_aggregated_displays_return_one_value(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [("e", "a", "2026-01-10T10:00:00Z"), ("e", "a", "2026-01-14T10:00:00Z"), ("e", "b", "2026-01-14T10:00:00Z")],
    )
    for display in ("ActionsTable", "ActionsPie", "ActionsBarValue", "WorldMap", "BoldNumber"):
        [series] = trend(client, world, {"events": [{"id": "e", "math": "dau"}], "display": display})["result"]
        assert series["aggregated_value"] == 2, display
        assert series["data"] == [] and series["days"] == DAYS and series["count"] == 0


def test_compare_with_the_previous_period(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            ("e", "a", "2026-01-15T10:00:00Z"),
            ("e", "a", "2026-01-08T10:00:00Z"),  # first day of current and last day of previous
            ("e", "a", "2026-01-01T10:00:00Z"),  # first day of the previous period
            ("e", "a", "2025-12-31T10:00:00Z"),  # before both
        ],
    )
    body = trend(client, world, {"events": [{"id": "e"}], "compare": True})
    current, previous = body["result"]
    assert (current["compare_label"], previous["compare_label"]) == ("current", "previous")
    assert current["compare"] is True and current["label"] == previous["label"] == "e"
    assert current["labels"][:2] == ["day 0", "day 1"]
    assert current["data"] == [1, 0, 0, 0, 0, 0, 0, 1]
    # -7d compares with the 8 days from Jan 1 to Jan 8 (PostHog shares the boundary day)
    assert previous["days"][0] == "2026-01-01" and previous["days"][-1] == "2026-01-08"
    assert previous["data"] == [1, 0, 0, 0, 0, 0, 0, 1]


def test_compare_to_a_year_ago(client, world, conn):
    add_events(conn, world.project_id, [("e", "a", "2025-01-15T10:00:00Z")])
    body = trend(client, world, {"events": [{"id": "e"}], "compare": True, "compare_to": "-1y", "date_from": "dStart"})
    assert [series["data"] for series in body["result"]] == [[0], [1]]
    assert body["result"][1]["days"] == ["2025-01-15"]


def test_formula_over_series_with_zero_division(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            ("signup", "a", "2026-01-14T10:00:00Z"),
            ("$pageview", "a", "2026-01-14T10:00:00Z"),
            ("$pageview", "b", "2026-01-14T10:00:00Z"),
            ("signup", "c", "2026-01-15T10:00:00Z"),
        ],
    )
    body = trend(
        client,
        world,
        {"events": [{"id": "signup"}, {"id": "$pageview"}], "formula": "A / B * 100", "date_from": "-1d"},
    )
    [series] = body["result"]
    assert series["label"] == "Formula (A / B * 100)" and "action" not in series
    assert series["data"] == [50.0, 0.0] and series["count"] == 50.0


def test_formula_per_breakdown_value(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            ("a", "x", "2026-01-15T10:00:00Z", {"os": "mac"}),
            ("a", "x", "2026-01-15T10:00:00Z", {"os": "mac"}),
            ("b", "x", "2026-01-15T10:00:00Z", {"os": "mac"}),
            ("b", "x", "2026-01-15T10:00:00Z", {"os": "win"}),
        ],
    )
    body = trend(
        client,
        world,
        {"events": [{"id": "a"}, {"id": "b"}], "formula": "A + B", "breakdown": "os", "date_from": "dStart"},
    )
    assert [(s["breakdown_value"], s["data"]) for s in body["result"]] == [("mac", [3.0]), ("win", [1.0])]


def test_breakdown_limit_other_null_and_next(client, world, conn):
    events = [("e", "x", "2026-01-15T10:00:00Z", {"b": "one"})] * 3
    events += [("e", "x", "2026-01-15T10:00:00Z", {"b": "two"})] * 2
    events += [("e", "x", "2026-01-15T10:00:00Z", {"b": ""}), ("e", "x", "2026-01-15T10:00:00Z", {})]
    events += [("e", "x", "2026-01-15T10:00:00Z", {"b": "three"})]
    add_events(conn, world.project_id, events)
    body = trend(
        client, world, {"events": [{"id": "e"}], "breakdown": "b", "breakdown_limit": 2, "date_from": "dStart"}
    )
    # ranked by count: one 3, two 2, null 2 ("" and missing), three 1; ties by value descending, so the
    # page is one and two, and Other holds null and three (3). Series sort by count, then label.
    assert [(s["breakdown_value"], s["label"], s["data"]) for s in body["result"]] == [
        ("$$_posthog_breakdown_other_$$", "Other (i.e. all remaining values)", [3]),
        ("one", "one", [3]),
        ("two", "two", [2]),
    ]
    assert body["next"] is not None
    page = client.get(body["next"], headers=world.headers()).json()
    assert [(s["breakdown_value"], s["label"], s["data"]) for s in page["result"]] == [
        ("$$_posthog_breakdown_null_$$", "None (i.e. no value)", [2]),
        ("three", "three", [1]),
    ]
    assert page["next"] is None


def test_breakdown_by_person_group_cohort_session_and_hogql(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            ("e", "a", "2026-01-15T08:00:00Z", {"$session_id": "s1", "n": 5}),
            ("e", "a", "2026-01-15T08:01:00Z", {"$session_id": "s1", "n": 20}),
            ("e", "b", "2026-01-15T09:00:00Z", {"$session_id": "s2", "n": 30}),
        ],
        persons={"a": {"plan": "pro"}, "b": {"plan": "free"}},
    )
    conn.execute("UPDATE events SET group_2 = distinct_id")
    conn.execute(
        "INSERT INTO groups (project_id, group_type_index, group_key, properties, created_at)"
        " VALUES (?, 2, 'a', '{\"size\": \"big\"}', 0)",
        (world.project_id,),
    )
    conn.execute(
        "INSERT INTO cohorts (project_id, name, is_static, filters, created_at, updated_at)"
        " VALUES (?, 'Pros', 0, ?, '', '')",
        (
            world.project_id,
            json.dumps({"properties": {"type": "AND", "values": [{"key": "plan", "value": "pro", "type": "person"}]}}),
        ),
    )
    conn.commit()
    cohort_id = conn.execute("SELECT max(id) FROM cohorts").fetchone()[0]
    base = {"events": [{"id": "e"}], "date_from": "dStart"}

    def split(**extra):
        return [
            (s["breakdown_value"], s["label"], s["data"]) for s in trend(client, world, {**base, **extra})["result"]
        ]

    assert split(breakdown="plan", breakdown_type="person") == [("pro", "pro", [2]), ("free", "free", [1])]
    assert split(breakdown="size", breakdown_type="group", breakdown_group_type_index=2) == [
        ("big", "big", [2]),
        ("$$_posthog_breakdown_null_$$", "None (i.e. no value)", [1]),
    ]
    assert split(breakdown=[cohort_id, "all"], breakdown_type="cohort") == [
        ("all", "all users", [3]),
        (cohort_id, "Pros", [2]),
    ]
    assert split(breakdown="$session_duration", breakdown_type="session") == [
        ("60", "60", [2]),
        ("0", "0", [1]),
    ]
    assert split(breakdown="if(toFloat(properties.n) > 10, 'big', 'small')", breakdown_type="hogql") == [
        ("big", "big", [2]),
        ("small", "small", [1]),
    ]


def test_breakdown_labels_name_the_entity_when_there_are_several(client, world, conn):
    add_events(conn, world.project_id, [("a", "x", "2026-01-15T10:00:00Z", {"os": "mac"})])
    body = trend(client, world, {"events": [{"id": "a"}, {"id": "b"}], "breakdown": "os", "date_from": "dStart"})
    assert [s["label"] for s in body["result"]] == ["a - mac"]


def test_bold_number_ignores_the_breakdown(client, world, conn):
    add_events(conn, world.project_id, [("e", "a", "2026-01-15T10:00:00Z", {"os": "mac"})])
    body = trend(client, world, {"events": [{"id": "e"}], "breakdown": "os", "display": "BoldNumber"})
    assert len(body["result"]) == 1 and "breakdown_value" not in body["result"][0]


def test_global_and_entity_properties_and_test_accounts(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            ("e", "staff", "2026-01-15T10:00:00Z", {"$browser": "Chrome", "plan": "pro"}),
            ("e", "user", "2026-01-15T10:00:00Z", {"$browser": "Chrome", "plan": "pro"}),
            ("e", "user", "2026-01-15T10:00:00Z", {"$browser": "Chrome", "plan": "free"}),
            ("e", "user", "2026-01-15T10:00:00Z", {"$browser": "Safari", "plan": "pro"}),
        ],
        persons={"staff": {"email": "me@insightlab.dev"}, "user": {"email": "u@example.com"}},
    )
    response = client.patch(
        f"/api/projects/{world.project_id}/",
        json={
            "test_account_filters": [
                {"key": "email", "value": "insightlab.dev", "operator": "not_icontains", "type": "person"}
            ]
        },
        headers=world.headers(),
    )
    assert response.status_code == 200
    body = {
        "events": [{"id": "e", "properties": [{"key": "plan", "value": "pro"}]}],
        "properties": [{"key": "$browser", "value": "Chrome"}],
        "date_from": "dStart",
    }
    assert data_of(trend(client, world, body)) == [[2]]
    assert data_of(trend(client, world, {**body, "filter_test_accounts": True})) == [[1]]


def test_csv_has_a_row_per_series(client, world, conn):
    add_events(conn, world.project_id, [("e", "a", "2026-01-15T10:00:00Z")])
    response = client.post(
        f"/api/projects/{world.project_id}/insights/trend/?format=csv",
        json={"events": [{"id": "e", "custom_name": "Clicks"}], "date_from": "-1d"},
        headers=world.headers(),
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert "attachment" in response.headers["content-disposition"]
    assert response.text.splitlines() == ["series,14-Jan-2026,15-Jan-2026", "Clicks,0,1"]


def test_saved_insight_and_query_api_compute_the_same_trend(client, world, conn):
    add_events(conn, world.project_id, [("e", "a", "2026-01-15T10:00:00Z"), ("e", "b", "2026-01-14T10:00:00Z")])
    filters = {"insight": "TRENDS", "events": [{"id": "e", "math": "dau"}], "date_from": "-1d"}
    base = f"/api/projects/{world.project_id}/insights/"
    insight = client.post(base, json={"filters": filters}, headers=world.headers()).json()
    saved = client.get(f"{base}{insight['id']}/?refresh=blocking", headers=world.headers()).json()
    assert saved["result"][0]["data"] == [1, 1]
    query = {
        "kind": "TrendsQuery",
        "series": [{"kind": "EventsNode", "event": "e", "math": "dau"}],
        "dateRange": {"date_from": "-1d"},
    }
    response = client.post(f"/api/projects/{world.project_id}/query/", json={"query": query}, headers=world.headers())
    assert response.status_code == 200, response.text
    assert response.json()["results"][0]["data"] == [1, 1]


@pytest.mark.parametrize(
    ("body", "query", "attr"),
    [
        ({}, "", "events"),
        ({"events": [], "actions": []}, "", "events"),
        ({"events": [{"id": "e", "math": "mode"}]}, "", "events__0__math"),
        ({"events": [{"id": "e", "math": "sum"}]}, "", "events__0__math_property"),
        ({"events": [{"id": "e", "math": "unique_group"}]}, "", "events__0__math_group_type_index"),
        ({"events": [{"id": "e"}], "interval": "year"}, "", "interval"),
        ({"events": [{"id": "e"}], "display": "Sparkline"}, "", "display"),
        ({"events": [{"id": "e"}], "breakdown": "b", "breakdown_type": "planet"}, "", "breakdown_type"),
        ({"events": [{"id": "e"}], "breakdown": "b", "breakdown_type": "group"}, "", "breakdown_group_type_index"),
        ({"events": [{"id": "e"}], "breakdown": ["b"], "breakdown_type": "event"}, "", "breakdown"),
        ({"events": [{"id": "e"}], "breakdown": "b", "breakdown_limit": 0}, "", "breakdown_limit"),
        ({"events": [{"id": "e"}], "properties": [{"key": "b", "operator": "almost"}]}, "", "properties__0__operator"),
        ({"events": [{"id": "e"}], "properties": [{"key": ["b"], "value": 1}]}, "", "properties__0__key"),
        (
            {"events": [{"id": "e", "properties": [{"key": "b", "value": "(", "operator": "regex"}]}]},
            "",
            "events__0__properties__0__value",
        ),
        ({"events": [{"id": "e"}], "formula": "A +"}, "", "formula"),
        ({"events": [{"id": "e"}], "formula": "A + B"}, "", "formula"),
        ({"events": [{"id": "e"}], "date_from": "last tuesday"}, "", "date_from"),
        ({"events": [{"id": "e"}], "date_to": "-1x"}, "", "date_to"),
        ({"events": [{"id": "e"}], "compare": True, "compare_to": "soon"}, "", "compare_to"),
        ({"events": [{"id": "e"}], "breakdown": "nosuch(x)", "breakdown_type": "hogql"}, "", "breakdown"),
        ({"events": [{"id": "e"}]}, "?format=xml", "format"),
        ({"events": [{"id": "e"}]}, "?offset=-1", "offset"),
        ({"events": "not json["}, "", "events"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(client, world, body, query, attr):
    response = client.post(
        f"/api/projects/{world.project_id}/insights/trend/{query}", json=body, headers=world.headers()
    )
    assert response.status_code == 400, response.text
    error = response.json()
    assert error["type"] == "validation_error"
    if attr is not None:
        assert error["attr"] == attr
    assert error["detail"]


def test_access_needs_insight_read(client, world):
    key = world.make_key("plugin:read")
    url = f"/api/projects/{world.project_id}/insights/trend/"
    assert client.post(url, json={"events": [{"id": "e"}]}, headers=world.headers(key)).status_code == 403
    assert client.post(url, json={"events": [{"id": "e"}]}).status_code in (401, 403)


def test_other_bucket_of_unique_users_counts_each_person_once(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            ("e", "p1", "2026-01-15T10:00:00Z", {"v": "a"}),
            ("e", "p2", "2026-01-15T10:00:00Z", {"v": "a"}),
            ("e", "p2", "2026-01-15T10:00:00Z", {"v": "a"}),
            ("e", "p1", "2026-01-15T10:00:00Z", {"v": "b"}),
            ("e", "p1", "2026-01-15T10:00:00Z", {"v": "c"}),
        ],
    )
    base = {"breakdown": "v", "breakdown_limit": 1, "date_from": "dStart"}
    dau = trend(client, world, {**base, "events": [{"id": "e", "math": "dau"}]})
    # a is first (3 events); b and c are Other, done by p1 alone
    assert [(s["breakdown_value"], s["data"]) for s in dau["result"]] == [
        ("a", [2]),
        ("$$_posthog_breakdown_other_$$", [1]),
    ]
    total = trend(client, world, {**base, "events": [{"id": "e"}]})
    assert [(s["breakdown_value"], s["data"]) for s in total["result"]] == [
        ("a", [3]),
        ("$$_posthog_breakdown_other_$$", [2]),
    ]


def test_weekly_active_broken_down(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            ("e", "p1", "2026-01-10T10:00:00Z", {"v": "a"}),
            ("e", "p2", "2026-01-14T10:00:00Z", {"v": "a"}),
            ("e", "p3", "2026-01-14T10:00:00Z", {"v": "b"}),
        ],
    )
    body = trend(
        client, world, {"events": [{"id": "e", "math": "weekly_active"}], "breakdown": "v", "date_from": "-1d"}
    )
    # the 14th looks back over the 8th..14th (p1 and p2 for a), the 15th over the 9th..15th (the same)
    assert [(s["breakdown_value"], s["data"]) for s in body["result"]] == [("a", [2, 2]), ("b", [1, 1])]


def test_weekly_active_by_hour_looks_back_seven_days_from_each_hour(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            # the 11:00 bucket looks back over the 7 days to its end, from 12:00 on the 8th; the 12:00 bucket from
            # 13:00 on the 8th
            ("e", "a", "2026-01-08T12:30:00Z"),
            ("e", "b", "2026-01-15T11:15:00Z"),
        ],
    )
    body = trend(
        client,
        world,
        {"events": [{"id": "e", "math": "weekly_active"}], "date_from": "-1h", "interval": "hour"},
    )
    assert body["result"][0]["days"] == ["2026-01-15 11:00:00", "2026-01-15 12:00:00"]
    assert data_of(body) == [[2, 1]]


def test_explicit_dates_keep_exact_bounds(client, world, conn):
    add_events(conn, world.project_id, [("e", "a", "2026-01-14T08:00:00Z"), ("e", "a", "2026-01-14T20:00:00Z")])
    body = trend(
        client,
        world,
        {
            "events": [{"id": "e"}],
            "date_from": "2026-01-14T06:00:00",
            "date_to": "2026-01-14T12:00:00",
            "explicit_date": True,
        },
    )
    assert body["result"][0]["days"] == ["2026-01-14"] and data_of(body) == [[1]]


def test_all_time_starts_at_the_first_event(client, world, conn):
    add_events(conn, world.project_id, [("e", "a", "2026-01-12T08:00:00Z"), ("e", "a", "2026-01-15T08:00:00Z")])
    body = trend(client, world, {"events": [{"id": "e"}], "date_from": "all"})
    assert body["result"][0]["days"] == ["2026-01-12", "2026-01-13", "2026-01-14", "2026-01-15"]
    assert data_of(body) == [[1, 0, 0, 1]]
