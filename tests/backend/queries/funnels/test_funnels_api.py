"""Funnels through the API on hand-written events, every expected number worked out by hand.

The app clock stands at Thursday 2026-01-15 12:00 UTC; the default range is Jan 8 00:00 to Jan 15 23:59:59.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.backend.funnel_events import EVENTS
from tests.factories import add_events

URL = "/api/projects/{pid}/insights/funnel/"
STEPS = [{"id": "$pageview", "order": 0}, {"id": "signup", "order": 1}, {"id": "purchase", "order": 2}]


def funnel(client, world, *, status=200, method="post", **body):
    body.setdefault("events", STEPS)
    if method == "post":
        response = client.post(URL.format(pid=world.project_id), json=body, headers=world.headers())
    else:
        query = {k: json.dumps(v) if isinstance(v, dict | list) else v for k, v in body.items()}
        response = client.get(URL.format(pid=world.project_id), params=query, headers=world.headers())
    assert response.status_code == status, response.json()
    return response.json()


def summary(steps):
    return [(s["name"], s["count"], s["average_conversion_time"], s["median_conversion_time"]) for s in steps]


def test_ordered_funnel_counts_and_times(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    payload = funnel(client, world)
    # step 2: alice 600 s, bob 1800 s -> mean 1200, median 1200; step 3: alice 3600 s
    assert summary(payload["result"]) == [
        ("$pageview", 3, None, None),
        ("signup", 2, 1200.0, 1200.0),
        ("purchase", 1, 3600.0, 3600.0),
    ]
    assert payload["is_cached"] is False and payload["timezone"] == "UTC"
    first = payload["result"][0]
    assert set(first) >= {
        "action_id", "name", "custom_name", "order", "people", "count", "type", "average_conversion_time",
        "median_conversion_time", "converted_people_url", "dropped_people_url",
    }  # fmt: skip
    assert first["dropped_people_url"] is None and first["type"] == "events" and first["action_id"] == "$pageview"
    assert [s["order"] for s in payload["result"]] == [0, 1, 2]


def test_get_reads_the_filter_from_the_query_string(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    payload = funnel(client, world, method="get", funnel_window_interval=20, funnel_window_interval_type="minute")
    # a 20 minute window: alice reaches signup (10 min) not purchase (70 min); bob's signup is 30 min late
    assert [s["count"] for s in payload["result"]] == [3, 1, 0]


@pytest.mark.parametrize(
    ("window", "expected"),
    [
        ({"funnel_window_interval": 3600, "funnel_window_interval_type": "SECOND"}, [3, 2, 0]),
        ({"funnel_window_interval": 4200, "funnel_window_interval_type": "second"}, [3, 2, 1]),
        ({"funnel_window_interval": 70, "funnel_window_interval_type": "Minute"}, [3, 2, 1]),
        ({"funnel_window_interval": 1, "funnel_window_interval_type": "HOUR"}, [3, 2, 0]),
        ({"funnel_window_interval": 1, "funnel_window_interval_unit": "hour"}, [3, 2, 0]),
        ({"funnel_window_days": 1}, [3, 2, 1]),
        ({"funnel_window_days": 1, "funnel_window_interval": 15, "funnel_window_interval_type": "minute"}, [3, 1, 0]),
        ({"funnel_window_interval": 1, "funnel_window_interval_type": "week"}, [3, 2, 1]),
        ({"funnel_window_interval": 1, "funnel_window_interval_type": "month"}, [3, 2, 1]),
    ],
)
def test_window_units(client, world, conn, window, expected):
    add_events(conn, world.project_id, EVENTS)
    assert [s["count"] for s in funnel(client, world, **window)["result"]] == expected


def test_month_window_is_calendar_months(client, world, conn):
    add_events(conn, world.project_id, [("a", "p", "2025-11-30T10:00:00Z"), ("b", "p", "2025-12-30T10:00:00Z")])
    steps = [{"id": "a"}, {"id": "b", "order": 1}]
    one_month = {"funnel_window_interval": 1, "funnel_window_interval_type": "month", "date_from": "2025-11-01"}
    assert [s["count"] for s in funnel(client, world, events=steps, **one_month)["result"]] == [1, 1]
    thirty_days = {"funnel_window_interval": 29, "funnel_window_interval_type": "day", "date_from": "2025-11-01"}
    assert [s["count"] for s in funnel(client, world, events=steps, **thirty_days)["result"]] == [1, 0]


def test_strict_and_unordered(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            ("$pageview", "p1", "2026-01-10T10:00:00Z"),
            ("other", "p1", "2026-01-10T10:01:00Z"),
            ("signup", "p1", "2026-01-10T10:02:00Z"),
            ("signup", "p2", "2026-01-10T10:00:00Z"),
            ("$pageview", "p2", "2026-01-10T10:05:00Z"),
        ],
    )
    steps = STEPS[:2]
    assert [s["count"] for s in funnel(client, world, events=steps)["result"]] == [2, 1]
    assert [s["count"] for s in funnel(client, world, events=steps, funnel_order_type="strict")["result"]] == [2, 0]
    unordered = funnel(client, world, events=steps, funnel_order_type="UNORDERED")["result"]
    # p1: 120 s between pageview and signup; p2: 300 s the other way round
    assert summary(unordered) == [("Completed 1 step", 2, None, None), ("Completed 2 steps", 2, 210.0, 210.0)]
    assert unordered[0]["action_id"] is None and unordered[0]["custom_name"] is None


def test_single_step_and_no_events(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    assert [s["count"] for s in funnel(client, world, events=[{"id": "signup"}])["result"]] == [3]
    empty = funnel(client, world, events=[{"id": "never"}, {"id": "seen", "order": 1}])["result"]
    assert [(s["count"], s["average_conversion_time"]) for s in empty] == [(0, None), (0, None)]


def test_actions_and_step_properties_and_global_properties(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    conn.execute(
        "INSERT INTO actions (project_id, name, steps, created_at, updated_at) VALUES (?, 'Signed up', ?, '', '')",
        (world.project_id, json.dumps([{"event": "signup"}])),
    )
    conn.commit()
    action_id = conn.execute("SELECT id FROM actions").fetchone()[0]
    action = [{"id": action_id, "order": 1, "type": "actions"}]
    payload = funnel(client, world, events=[{"id": "$pageview", "order": 0}], actions=action)
    assert [(s["name"], s["action_id"], s["type"], s["count"]) for s in payload["result"]] == [
        ("$pageview", "$pageview", "events", 3),
        ("Signed up", action_id, "actions", 2),
    ]
    chrome_first = [
        {"id": "$pageview", "order": 0, "properties": [{"key": "$browser", "value": "Chrome"}]},
        {"id": "signup", "order": 1},
    ]
    assert [s["count"] for s in funnel(client, world, events=chrome_first)["result"]] == [2, 1]
    safari_only = [{"key": "$browser", "value": "Safari", "type": "event"}]
    assert [s["count"] for s in funnel(client, world, properties=safari_only)["result"]] == [1, 1, 0]


def test_custom_names_are_echoed(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    steps = [{"id": "$pageview", "custom_name": "Landed"}, {"id": "signup", "order": 1}]
    assert [s["custom_name"] for s in funnel(client, world, events=steps)["result"]] == ["Landed", None]


def test_exclusions_remove_persons(client, world, conn):
    add_events(conn, world.project_id, [*EVENTS, ("logout", "alice", "2026-01-10T10:05:00Z")])
    exclusion = [{"id": "logout", "type": "events", "funnel_from_step": 0, "funnel_to_step": 1}]
    # alice logged out between pageview and signup: gone from every step
    assert [s["count"] for s in funnel(client, world, exclusions=exclusion)["result"]] == [2, 1, 0]
    later = [{"id": "logout", "type": "events", "funnel_from_step": 1, "funnel_to_step": 2}]
    assert [s["count"] for s in funnel(client, world, exclusions=later)["result"]] == [3, 2, 1]


def test_breakdown_by_event_property(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    payload = funnel(client, world, breakdown="$browser", breakdown_type="event")
    # Chrome: alice (3 steps), carol (1); Safari: bob (2). Chrome has a full conversion, so it comes first
    groups = [(g[0]["breakdown_value"], [s["count"] for s in g]) for g in payload["result"]]
    assert groups == [(["Chrome"], [2, 1, 1]), (["Safari"], [1, 1, 0])]
    unboxed = funnel(client, world, breakdown="$browser", breakdown_type="event", insight="FUNNELS")
    assert [g[0]["breakdown_value"] for g in unboxed["result"]] == ["Chrome", "Safari"]
    assert unboxed["result"][0][0]["breakdown"] == "Chrome"


def test_breakdown_limit_other_and_missing_values(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            ("a", "p1", "2026-01-10T10:00:00Z", {"v": "x"}),
            ("a", "p2", "2026-01-10T10:00:00Z", {"v": "x"}),
            ("a", "p3", "2026-01-10T10:00:00Z", {"v": "y"}),
            ("a", "p4", "2026-01-10T10:00:00Z", {"v": "z"}),
            ("b", "p4", "2026-01-10T10:01:00Z", {"v": "z"}),
            ("a", "p5", "2026-01-10T10:00:00Z"),
        ],
    )
    steps = [{"id": "a"}, {"id": "b", "order": 1}]
    payload = funnel(client, world, events=steps, breakdown="v", breakdown_limit=2, insight="FUNNELS")
    # event counts: x 2, z 2 (a and b of p4), y 1, "" 1 -> top 2 by count then value descending: z, x; Other: y, ""
    groups = {g[0]["breakdown_value"]: [s["count"] for s in g] for g in payload["result"]}
    assert groups == {"z": [1, 1], "x": [2, 0], "Other": [2, 0]}
    assert payload["result"][0][0]["breakdown_value"] == "z"
    everything = funnel(client, world, events=steps, breakdown="v", insight="FUNNELS")
    assert {g[0]["breakdown_value"]: g[0]["count"] for g in everything["result"]} == {"x": 2, "y": 1, "z": 1, "": 1}


def test_multi_property_breakdown_is_a_list(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    payload = funnel(client, world, breakdown=["$browser", "missing"], breakdown_type="event")
    assert sorted(g[0]["breakdown_value"] for g in payload["result"]) == [["Chrome", ""], ["Safari", ""]]


def test_person_breakdown(client, world, conn):
    add_events(conn, world.project_id, EVENTS, persons={"alice": {"plan": "pro"}, "bob": {"plan": "free"}})
    payload = funnel(client, world, breakdown="plan", breakdown_type="person", insight="FUNNELS")
    groups = {g[0]["breakdown_value"]: [s["count"] for s in g] for g in payload["result"]}
    assert groups == {"pro": [1, 1, 1], "free": [1, 1, 0], "": [1, 0, 0]}


ATTRIBUTION = [
    # p1 lands from "ads", signs up with "mail", buys with nothing set
    ("a", "p1", "2026-01-10T10:00:00Z", {"src": "ads"}),
    ("b", "p1", "2026-01-10T10:01:00Z", {"src": "mail"}),
    ("c", "p1", "2026-01-10T10:02:00Z"),
    # p2 lands with nothing, signs up with "mail" twice: "mail" then "tv"
    ("a", "p2", "2026-01-10T10:00:00Z"),
    ("b", "p2", "2026-01-10T10:01:00Z", {"src": "mail"}),
    ("b", "p2", "2026-01-10T10:02:00Z", {"src": "tv"}),
]
ABC = [{"id": "a"}, {"id": "b", "order": 1}, {"id": "c", "order": 2}]


@pytest.mark.parametrize(
    ("attribution", "expected"),
    [
        # first non-empty: p1 ads, p2 mail
        ({"breakdown_attribution_type": "first_touch"}, {"ads": [1, 1, 1], "mail": [1, 1, 0]}),
        # last non-empty: p1 mail (c has none), p2 tv
        ({"breakdown_attribution_type": "last_touch"}, {"mail": [1, 1, 1], "tv": [1, 1, 0]}),
        # values of step 1 (b): p1 mail; p2 mail and tv (counted under both)
        (
            {"breakdown_attribution_type": "step", "breakdown_attribution_value": 1},
            {"mail": [2, 2, 1], "tv": [1, 1, 0]},
        ),
        # per value, only events carrying it: "" has a (p2) and c (p1); ads has a (p1); mail b (p1, p2); tv b (p2)
        ({"breakdown_attribution_type": "all_events"}, {"ads": [1, 0, 0], "": [1, 0, 0]}),
    ],
)
def test_breakdown_attribution(client, world, conn, attribution, expected):
    add_events(conn, world.project_id, ATTRIBUTION)
    payload = funnel(client, world, events=ABC, breakdown="src", insight="FUNNELS", **attribution)
    assert {g[0]["breakdown_value"]: [s["count"] for s in g] for g in payload["result"]} == expected


def test_cohort_breakdown(client, world, conn):
    ids = add_events(conn, world.project_id, EVENTS)
    conn.execute(
        "INSERT INTO cohorts (project_id, name, is_static, created_at, updated_at) VALUES (?, 'VIP', 1, '', '')",
        (world.project_id,),
    )
    cohort = conn.execute("SELECT id FROM cohorts").fetchone()[0]
    conn.executemany("INSERT INTO cohort_people VALUES (?, ?)", [(cohort, ids["alice"]), (cohort, ids["carol"])])
    conn.commit()
    payload = funnel(client, world, breakdown=[cohort], breakdown_type="cohort")
    [group] = payload["result"]
    assert [s["count"] for s in group] == [2, 1, 1]
    assert group[0]["breakdown_value"] == cohort and group[0]["breakdown"] == "VIP"
    # "all" is everyone: alice, bob, carol; both have one full conversion, "all" has bob stopping at step 2
    both = funnel(client, world, breakdown=["all", cohort], breakdown_type="cohort")["result"]
    assert [(g[0]["breakdown_value"], [s["count"] for s in g]) for g in both] == [
        ("all", [3, 2, 1]),
        (cohort, [2, 1, 1]),
    ]
    assert people(client, world, both[1][1]["dropped_people_url"]) == ["carol"]


def test_funnel_trends(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    payload = funnel(client, world, funnel_viz_type="trends", date_from="2026-01-09", date_to="2026-01-12")
    [series] = payload["result"]
    # Jan 9: nobody; Jan 10: alice converts fully; Jan 11: bob stops at signup; Jan 12: carol stops at pageview
    assert series["days"] == ["2026-01-09", "2026-01-10", "2026-01-11", "2026-01-12"]
    assert series["labels"] == ["9-Jan-2026", "10-Jan-2026", "11-Jan-2026", "12-Jan-2026"]
    assert series["data"] == [0.0, 100.0, 0.0, 0.0]
    assert series["count"] == 4
    to_signup = funnel(client, world, funnel_viz_type="trends", date_from="2026-01-09", date_to="2026-01-12",
                       funnel_to_step=1)["result"][0]  # fmt: skip
    assert to_signup["data"] == [0.0, 100.0, 100.0, 0.0]


def test_display_line_graph_means_trends(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    payload = funnel(client, world, display="ActionsLineGraph", date_from="2026-01-10", date_to="2026-01-10")
    assert payload["result"][0]["data"] == [100.0]


def test_time_to_convert(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    payload = funnel(client, world, funnel_viz_type="time_to_convert", funnel_from_step=0, funnel_to_step=1)
    # alice 600 s, bob 1800 s: ceil(cbrt 2) = 2 bins of ceil(1200 / 2) = 600 s: 600, 1200, 1800
    assert payload["result"] == {"bins": [[600, 1], [1200, 0], [1800, 1]], "average_conversion_time": 1200.0}
    whole = funnel(client, world, funnel_viz_type="time_to_convert", bin_count=1)["result"]
    # to the last step: alice only, 600 + 3600 = 4200 s; one bin of width 60 (range 0), two bin starts
    assert whole == {"bins": [[4200, 1], [4260, 0]], "average_conversion_time": 4200.0}


def people(client, world, url):
    response = client.get(url, headers=world.headers())
    assert response.status_code == 200, response.json()
    body = response.json()
    return sorted(d for person in body["results"][0]["people"] for d in person["distinct_ids"])


def test_people_urls_resolve_to_the_persons(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    steps = funnel(client, world)["result"]
    assert people(client, world, steps[0]["converted_people_url"]) == ["alice", "bob", "carol"]
    assert people(client, world, steps[1]["converted_people_url"]) == ["alice", "bob"]
    assert people(client, world, steps[1]["dropped_people_url"]) == ["carol"]
    assert people(client, world, steps[2]["dropped_people_url"]) == ["bob"]
    assert people(client, world, steps[2]["converted_people_url"]) == ["alice"]
    query = parse_qs(urlsplit(steps[1]["converted_people_url"]).query)
    assert query["funnel_step"] == ["2"] and query["date_from"] == ["2026-01-08T00:00:00"]


def test_people_urls_with_breakdown(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    groups = funnel(client, world, breakdown="$browser")["result"]
    chrome = groups[0]
    assert people(client, world, chrome[0]["converted_people_url"]) == ["alice", "carol"]
    assert people(client, world, chrome[1]["dropped_people_url"]) == ["carol"]
    assert people(client, world, groups[1][1]["converted_people_url"]) == ["bob"]


def test_people_pagination(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    url = funnel(client, world)["result"][0]["converted_people_url"]
    response = client.get(url + "&limit=2", headers=world.headers()).json()
    assert response["count"] == 3 and len(response["results"][0]["people"]) == 2 and response["next"]


def test_saved_insight_and_query_compute_funnels(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    query = {
        "kind": "FunnelsQuery",
        "series": [{"kind": "EventsNode", "event": "$pageview"}, {"kind": "EventsNode", "event": "signup"}],
        "funnelsFilter": {"funnelWindowInterval": 15, "funnelWindowIntervalUnit": "minute"},
    }
    response = client.post(f"/api/projects/{world.project_id}/query/", json={"query": query}, headers=world.headers())
    assert response.status_code == 200, response.json()
    assert [s["count"] for s in response.json()["results"]] == [3, 1]


TWO = [{"id": "a"}, {"id": "b", "order": 1}]
THREE = [{"id": "a"}, {"id": "b", "order": 1}, {"id": "c", "order": 2}]


@pytest.mark.parametrize(
    ("body", "attr"),
    [
        ({"events": []}, "events"),
        ({"events": TWO, "funnel_order_type": "sideways"}, "funnel_order_type"),
        ({"events": TWO, "funnel_window_interval_type": "fortnight"}, "funnel_window_interval_type"),
        ({"events": TWO, "funnel_window_interval_unit": "year"}, "funnel_window_interval_unit"),
        ({"events": TWO, "funnel_viz_type": "pie"}, "funnel_viz_type"),
        ({"events": TWO, "breakdown": "x", "breakdown_attribution_type": "middle_touch"}, "breakdown_attribution_type"),
        ({"events": TWO, "funnel_window_interval": -1}, "funnel_window_interval"),
        ({"events": TWO, "funnel_window_interval": 0}, "funnel_window_interval"),
        ({"events": TWO, "funnel_window_days": -3}, "funnel_window_days"),
        ({"events": TWO, "funnel_window_days": 10**9}, "funnel_window_days"),
        (
            {"events": TWO, "funnel_window_interval": 10**12, "funnel_window_interval_type": "second"},
            "funnel_window_interval",
        ),
        (
            {"events": TWO, "funnel_window_interval": 5000, "funnel_window_interval_type": "month"},
            "funnel_window_interval",
        ),
        ({"events": TWO, "exclusions": [{"id": "x", "funnel_from_step": 0, "funnel_to_step": 2}]}, "exclusions__0"),
        ({"events": TWO, "exclusions": [{"id": "x", "funnel_from_step": 1, "funnel_to_step": 1}]}, "exclusions__0"),
        ({"events": THREE, "exclusions": [{"id": "x", "funnel_from_step": 2, "funnel_to_step": 2}]}, "exclusions__0"),
        ({"events": TWO, "exclusions": [{"id": "x", "funnel_from_step": 0}]}, "exclusions__0"),
        ({"events": TWO, "exclusions": [{"id": "b", "funnel_from_step": 0, "funnel_to_step": 1}]}, "exclusions__0"),
        (
            {
                "events": THREE,
                "funnel_order_type": "unordered",
                "exclusions": [{"id": "x", "funnel_from_step": 0, "funnel_to_step": 1}],
            },
            "exclusions__0",
        ),  # fmt: skip
        ({"events": TWO, "funnel_viz_type": "time_to_convert", "funnel_to_step": 2}, "funnel_to_step"),
        ({"events": TWO, "funnel_viz_type": "time_to_convert", "funnel_to_step": 0}, "funnel_to_step"),
        (
            {"events": THREE, "funnel_viz_type": "time_to_convert", "funnel_from_step": 2, "funnel_to_step": 1},
            "funnel_from_step",
        ),
        ({"events": TWO, "funnel_viz_type": "time_to_convert", "bin_count": 0}, "bin_count"),
        ({"events": TWO, "funnel_viz_type": "trends", "funnel_to_step": 5}, "funnel_to_step"),
        ({"events": TWO, "funnel_from_step": -1}, "funnel_from_step"),
        ({"events": TWO, "breakdown": "x", "breakdown_attribution_type": "step"}, "breakdown_attribution_value"),
        (
            {"events": TWO, "breakdown": "x", "breakdown_attribution_type": "step", "breakdown_attribution_value": 2},
            "breakdown_attribution_value",
        ),
        ({"events": TWO, "breakdown": "x", "breakdown_type": "planet"}, "breakdown_type"),
        ({"events": TWO, "breakdown": "x", "breakdown_type": "hogql"}, "breakdown"),
        ({"events": TWO, "breakdown": [99], "breakdown_type": "cohort"}, "breakdown"),
        ({"events": TWO, "breakdown": "x", "breakdown_type": "group"}, "breakdown_group_type_index"),
        ({"events": TWO, "breakdown_limit": 0}, "breakdown_limit"),
        ({"events": TWO, "date_from": "yesterdayish"}, "date_from"),
        ({"events": TWO, "date_from": "2026-01-10", "date_to": "2026-01-01"}, "date_from"),
        ({"events": TWO, "interval": "fortnight", "funnel_viz_type": "trends"}, "interval"),
        ({"events": [{"id": "x", "type": "actions"}]}, "events__0"),
        ({"events": [{"id": 999, "type": "actions"}]}, "events__0__id"),
        ({"events": "not json"}, "events"),
        ({"events": TWO, "properties": [{"key": "x", "operator": "regex_ish"}]}, "properties__0__operator"),
        ({"events": TWO, "breakdown": [1, 2], "breakdown_type": "event"}, "breakdown"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(client, world, body, attr):
    response = client.post(URL.format(pid=world.project_id), json=body, headers=world.headers())
    assert response.status_code == 400, response.json()
    error = response.json()
    assert error["type"] == "validation_error" and error["attr"] == attr, error


@pytest.mark.parametrize("step", ["0", "-1", "4", "-4", "two"])
def test_people_bad_step(client, world, step):
    query = {"events": json.dumps(THREE), "funnel_step": step}
    response = client.get(f"/api/projects/{world.project_id}/persons/funnel/", params=query, headers=world.headers())
    assert response.status_code == 400 and response.json()["attr"] == "funnel_step"


def test_funnel_needs_insight_read(client, world):
    key = world.make_key("person:read")
    response = client.post(URL.format(pid=world.project_id), json={"events": TWO}, headers=world.headers(key))
    assert response.status_code == 403


def test_same_microsecond_events_count_in_step_order(client, world, conn):
    # the index orders same-time rows by name ("alpha" before "zeta"); the funnel must not
    add_events(conn, world.project_id, [("zeta", "p", "2026-01-10T10:00:00Z"), ("alpha", "p", "2026-01-10T10:00:00Z")])
    steps = [{"id": "zeta", "order": 0}, {"id": "alpha", "order": 1}]
    assert [s["count"] for s in funnel(client, world, events=steps)["result"]] == [1, 1]
    assert [s["count"] for s in funnel(client, world, events=steps, funnel_order_type="strict")["result"]] == [1, 1]


def test_dropped_people_of_strict_and_unordered_funnels(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    # strict: alice's and bob's steps follow each other directly, dave never starts
    # unordered: dave's signup and purchase are two steps in any order, so he stops before the third with bob
    for order, third in (("strict", ["bob"]), ("unordered", ["bob", "dave"])):
        steps = funnel(client, world, funnel_order_type=order)["result"]
        assert people(client, world, steps[2]["dropped_people_url"]) == third, order
        assert people(client, world, steps[1]["dropped_people_url"]) == ["carol"], order


def test_people_urls_keep_a_range_that_starts_mid_day(client, world, conn):
    # -30h from Jan 15 12:00 starts Jan 14 06:00: alice's 05:00 step is outside, bob's 07:00 inside
    add_events(
        conn,
        world.project_id,
        [("$pageview", "alice", "2026-01-14T05:00:00Z"), ("signup", "alice", "2026-01-14T05:30:00Z"),
         ("$pageview", "bob", "2026-01-14T07:00:00Z"), ("signup", "bob", "2026-01-14T07:10:00Z")],
    )  # fmt: skip
    steps = funnel(client, world, events=STEPS[:2], date_from="-30h")["result"]
    assert [s["count"] for s in steps] == [1, 1]
    assert people(client, world, steps[1]["converted_people_url"]) == ["bob"]


def test_saved_funnel_insight_computes_on_refresh(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    base = f"/api/projects/{world.project_id}/insights/"
    filters = {
        "insight": "FUNNELS",
        "events": STEPS,
        "funnel_window_interval": 20,
        "funnel_window_interval_type": "minute",
    }
    insight = client.post(base, json={"filters": filters}, headers=world.headers()).json()
    assert client.get(f"{base}{insight['id']}/", headers=world.headers()).json()["result"] is None
    computed = client.get(f"{base}{insight['id']}/?refresh=blocking", headers=world.headers())
    assert computed.status_code == 200, computed.json()
    # 20 minutes: alice signs up after 10 (buys after 70: too late), bob after 30 (too late)
    assert [step["count"] for step in computed.json()["result"]] == [3, 1, 0]


def test_all_time_trends_start_at_the_first_plausible_event(client, world, conn):
    # PostHog looks for the first event at or after 2015-01-01 when date_from is "all": the 2000 pageview is a
    # broken client clock, so the range is Jan 13 to Jan 15, three daily entrance periods.
    add_events(
        conn,
        world.project_id,
        [
            ("$pageview", "alice", "2000-03-01T10:00:00Z"),
            ("$pageview", "alice", "2026-01-13T10:00:00Z"),
            ("signup", "alice", "2026-01-13T10:05:00Z"),
            ("$pageview", "bob", "2026-01-14T09:00:00Z"),
        ],
    )
    payload = funnel(client, world, events=STEPS[:2], date_from="all", funnel_viz_type="trends")
    (series,) = payload["result"]
    assert series["days"] == ["2026-01-13", "2026-01-14", "2026-01-15"]
    # Jan 13: alice enters and converts (100 %); Jan 14: bob enters and does not (0 %); Jan 15: nobody enters
    assert series["data"] == [100.0, 0.0, 0.0]
