"""Retention through the API on hand-written events, the expected triangles worked out by hand.

The app clock stands at Thursday 2026-01-15 12:00 UTC.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from local_backend.errors import ValidationError
from local_backend.routes.insight_kinds import ENGINES
from local_backend.store.projects import get_project, update_project
from tests.factories import add_events

URL = "/api/projects/{pid}/insights/retention/"

# Day cohorts Jan 12, 13, 14, 15 (total_intervals=4, date_to = now)
DAILY = [
    ("$pageview", "alice", "2026-01-12T10:00:00Z"),
    ("$pageview", "alice", "2026-01-13T09:00:00Z"),
    ("$pageview", "alice", "2026-01-15T08:00:00Z"),
    ("$pageview", "bob", "2026-01-12T23:30:00Z"),
    ("$pageview", "bob", "2026-01-14T00:10:00Z"),
    ("$pageview", "carol", "2026-01-13T12:00:00Z"),
    ("$pageview", "carol", "2026-01-13T13:00:00Z"),
    ("$pageview", "carol", "2026-01-15T11:00:00Z"),
    ("$pageview", "dave", "2026-01-11T10:00:00Z"),  # before the range
    ("$pageview", "dave", "2026-01-14T10:00:00Z"),
    ("$pageview", "erin", "2026-01-16T00:30:00Z"),  # after the last cohort's day
    ("signup", "alice", "2026-01-14T10:00:00Z"),  # another event: ignored
]


def retention(client, world, pid=None, **params):
    query = {k: json.dumps(v) if isinstance(v, dict | list) else v for k, v in params.items()}
    response = client.get(URL.format(pid=pid or world.project_id), params=query, headers=world.headers())
    assert response.status_code == 200, response.json()
    return response.json()


def counts(payload):
    return [[value["count"] for value in row["values"]] for row in payload["result"]]


def test_recurring_retention_counts_every_cohort_a_person_is_in(client, world, conn):
    add_events(conn, world.project_id, DAILY)
    payload = retention(client, world, total_intervals=4)
    # Jan 12: alice, bob; alice back Jan 13 and 15, bob back Jan 14
    # Jan 13: alice, carol (twice that day: once); both back Jan 15
    # Jan 14: bob, dave; nobody back Jan 15.  Jan 15: alice, carol
    assert counts(payload) == [[2, 1, 1, 1], [2, 0, 2], [2, 0], [2]]
    assert [row["label"] for row in payload["result"]] == ["Day 0", "Day 1", "Day 2", "Day 3"]
    assert [row["date"] for row in payload["result"]] == [
        "2026-01-12T00:00:00Z",
        "2026-01-13T00:00:00Z",
        "2026-01-14T00:00:00Z",
        "2026-01-15T00:00:00Z",
    ]
    assert payload["timezone"] == "UTC"
    assert payload["is_cached"] is False
    assert payload["last_refresh"].startswith("2026-01-15T12:00:00")
    assert {timing["k"] for timing in payload["timings"]} == {"./filter", "./query", "./format"}


def test_first_time_retention_puts_people_in_the_cohort_of_their_first_event_ever(client, world, conn):
    add_events(conn, world.project_id, DAILY)
    payload = retention(client, world, total_intervals=4, retention_type="retention_first_time")
    # alice and bob first came Jan 12 (alice back 13, 15; bob back 14); carol first Jan 13, back 15;
    # dave first came Jan 11, before the range: in no cohort
    assert counts(payload) == [[2, 1, 1, 1], [1, 0, 1], [0, 0], [0]]


def test_returning_entity_differs_from_the_target(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            ("signup", "frank", "2026-01-12T09:00:00Z"),
            ("$pageview", "frank", "2026-01-12T10:00:00Z"),  # same period as the signup: not a return
            ("$pageview", "frank", "2026-01-14T10:00:00Z"),
            ("$pageview", "gina", "2026-01-12T10:00:00Z"),  # before her signup's period
            ("signup", "gina", "2026-01-13T10:00:00Z"),
        ],
    )
    payload = retention(
        client, world, total_intervals=3, date_to="2026-01-14", target_entity={"id": "signup", "type": "events"},
        returning_entity={"id": "$pageview", "type": "events"},
    )  # fmt: skip
    # cohorts Jan 12, 13, 14: frank (back Jan 14), gina (never back)
    assert counts(payload) == [[1, 0, 1], [1, 0], [0]]


@pytest.mark.parametrize(
    "week_start_day, dates, expected",
    [
        # Sunday weeks: Jan 4-10 and Jan 11-17; ivy in both (Sat 10th, Mon 12th), hank only the second
        (0, ["2026-01-04T00:00:00Z", "2026-01-11T00:00:00Z"], [[1, 1], [2]]),
        # Monday weeks: Jan 5-11 and Jan 12-18; both of them in both
        (1, ["2026-01-05T00:00:00Z", "2026-01-12T00:00:00Z"], [[2, 2], [2]]),
    ],
)
def test_weeks_start_on_the_projects_first_day_of_the_week(client, world, conn, week_start_day, dates, expected):
    update_project(conn, world.project_id, {"week_start_day": week_start_day}, "2026-01-15T12:00:00Z")
    add_events(
        conn,
        world.project_id,
        [
            ("$pageview", "hank", "2026-01-11T10:00:00Z"),  # Sunday
            ("$pageview", "hank", "2026-01-14T10:00:00Z"),
            ("$pageview", "ivy", "2026-01-10T10:00:00Z"),  # Saturday
            ("$pageview", "ivy", "2026-01-12T10:00:00Z"),
        ],
    )
    payload = retention(client, world, period="Week", total_intervals=2)
    assert [row["date"] for row in payload["result"]] == dates
    assert [row["label"] for row in payload["result"]] == ["Week 0", "Week 1"]
    assert counts(payload) == expected


def test_months_are_counted_in_the_project_timezone(client, world, conn):
    # Oct 31 23:00 UTC is already Nov 1 in Berlin
    events = [("$pageview", "jay", "2025-10-31T23:00:00Z"), ("$pageview", "jay", "2025-12-01T10:00:00Z")]
    add_events(conn, world.project_id, events)
    add_events(conn, world.other_project_id, events)
    utc = retention(client, world, period="Month", total_intervals=3, date_to="2025-12-10")
    berlin = retention(
        client, world, pid=world.other_project_id, period="Month", total_intervals=3, date_to="2025-12-10"
    )
    assert counts(utc) == [[1, 0, 1], [0, 0], [1]]
    assert counts(berlin) == [[0, 0, 0], [1, 1], [1]]
    assert [row["date"] for row in berlin["result"]] == [
        "2025-10-01T00:00:00+02:00",
        "2025-11-01T00:00:00+01:00",
        "2025-12-01T00:00:00+01:00",
    ]
    assert berlin["timezone"] == "Europe/Berlin"
    assert berlin["result"][0]["label"] == "Month 0"


def test_hours(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            ("$pageview", "kim", "2026-01-15T08:15:00Z"),
            ("$pageview", "kim", "2026-01-15T10:59:00Z"),
            ("$pageview", "kim", "2026-01-15T11:00:00Z"),  # after the last cohort hour
            ("$pageview", "lee", "2026-01-15T09:30:00Z"),
        ],
    )
    payload = retention(client, world, period="Hour", total_intervals=3, date_to="2026-01-15T10:30:00")
    assert [row["date"] for row in payload["result"]] == [
        "2026-01-15T08:00:00Z",
        "2026-01-15T09:00:00Z",
        "2026-01-15T10:00:00Z",
    ]
    assert counts(payload) == [[1, 0, 1], [1, 0], [1]]


def test_properties_and_test_accounts_narrow_the_events(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            ("$pageview", "mia", "2026-01-14T10:00:00Z", {"$browser": "Chrome"}),
            ("$pageview", "mia", "2026-01-15T10:00:00Z", {"$browser": "Safari"}),
            ("$pageview", "ned", "2026-01-14T10:00:00Z", {"$browser": "Chrome"}),
            ("$pageview", "ned", "2026-01-15T10:00:00Z", {"$browser": "Chrome"}),
        ],
        persons={"mia": {"email": "mia@example.com"}, "ned": {"email": "ned@insightlab.dev"}},
    )
    assert counts(retention(client, world, total_intervals=2)) == [[2, 2], [2]]
    chrome = [{"key": "$browser", "value": "Chrome", "operator": "exact", "type": "event"}]
    # mia's Safari visit on the 15th no longer counts
    assert counts(retention(client, world, total_intervals=2, properties=chrome)) == [[2, 1], [1]]
    internal = [{"key": "email", "value": "@insightlab.dev", "operator": "not_icontains", "type": "person"}]
    update_project(conn, world.project_id, {"test_account_filters": internal}, "2026-01-15T12:00:00Z")
    assert counts(retention(client, world, total_intervals=2, filter_test_accounts="true")) == [[1, 1], [1]]
    assert counts(retention(client, world, total_intervals=2, filter_test_accounts="false")) == [[2, 2], [2]]


def test_an_action_as_the_target(client, world, conn):
    conn.execute(
        "INSERT INTO actions (project_id, name, steps, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
        (
            world.project_id,
            "Activated",
            json.dumps([{"event": "signup"}, {"event": "$pageview", "url": "/welcome", "url_matching": "contains"}]),
            "2026-01-01T00:00:00Z",
            "2026-01-01T00:00:00Z",
        ),
    )
    action_id = conn.execute("SELECT max(id) FROM actions").fetchone()[0]
    add_events(
        conn,
        world.project_id,
        [
            ("signup", "olga", "2026-01-14T10:00:00Z"),
            ("$pageview", "pat", "2026-01-14T10:00:00Z", {"$current_url": "https://app.test/welcome"}),
            ("$pageview", "quinn", "2026-01-14T10:00:00Z", {"$current_url": "https://app.test/pricing"}),
            ("$pageview", "olga", "2026-01-15T10:00:00Z", {"$current_url": "https://app.test/home"}),
        ],
    )
    payload = retention(
        client, world, total_intervals=2, target_entity={"id": action_id, "type": "actions"},
        returning_entity={"id": "$pageview", "type": "events"},
    )  # fmt: skip
    # the action matches olga's signup and pat's /welcome visit; only olga comes back
    assert counts(payload) == [[2, 1], [0]]


def test_people_urls_list_the_people_of_a_cohort_and_of_a_cell(client, world, conn):
    ids = add_events(conn, world.project_id, DAILY)
    payload = retention(client, world, total_intervals=4)
    row = client.get(payload["result"][0]["people_url"], headers=world.headers()).json()
    # cohort Jan 12: alice (Jan 12, 13, 15) before bob (Jan 12, 14): more appearances first
    assert [(p["person"]["id"], p["appearances"]) for p in row["result"]] == [
        (ids["alice"], [1, 1, 0, 1]),
        (ids["bob"], [1, 0, 1, 0]),
    ]
    assert row["result"][0]["person"]["distinct_ids"] == ["alice"]
    cell = client.get(payload["result"][0]["values"][2]["people_url"], headers=world.headers()).json()
    assert [p["person"]["id"] for p in cell["result"]] == [ids["bob"]]
    assert cell["count"] == payload["result"][0]["values"][2]["count"] == 1
    paged = client.get(payload["result"][0]["people_url"] + "&limit=1", headers=world.headers()).json()
    assert [p["person"]["id"] for p in paged["result"]] == [ids["alice"]]
    assert "offset=1" in paged["next"]


def test_people_urls_keep_their_cohorts_when_the_clock_moves(client, world, conn, clock):
    add_events(conn, world.project_id, DAILY)
    payload = retention(client, world, total_intervals=4)
    clock.instant = datetime(2026, 2, 1, tzinfo=UTC)
    later = client.get(payload["result"][1]["values"][2]["people_url"], headers=world.headers()).json()
    assert later["count"] == 2  # alice and carol, back on Jan 15


def test_post_body_wins_over_the_query_string(client, world, conn):
    add_events(conn, world.project_id, DAILY)
    response = client.post(
        URL.format(pid=world.project_id) + "?total_intervals=2&period=Week",
        json={"total_intervals": 4, "period": "Day"},
        headers=world.headers(),
    )
    assert response.status_code == 200
    assert counts(response.json()) == [[2, 1, 1, 1], [2, 0, 2], [2, 0], [2]]


def test_the_payload_for_saved_insights_equals_the_endpoint(client, world, conn, clock):
    add_events(conn, world.project_id, DAILY)
    project = get_project(conn, world.project_id)
    retention_payload = ENGINES["RETENTION"]
    payload = retention_payload(conn, project, {"insight": "RETENTION", "total_intervals": 4}, clock.now())
    assert payload["result"] == retention(client, world, total_intervals=4)["result"]
    with pytest.raises(ValidationError) as error:
        retention_payload(conn, project, {"period": "Year"}, clock.now())
    assert error.value.attr == "period"


PRO = [{"key": "plan", "value": "pro", "operator": "exact", "type": "event"}]


def test_without_a_returning_entity_people_return_on_the_plain_target_event(client, world, conn):
    # mirrors PostHog's "properties on start event" case: the target's properties choose the cohort, and any
    # $pageview is a return
    add_events(
        conn,
        world.project_id,
        [
            ("$pageview", "mia", "2026-01-13T10:00:00Z", {"plan": "pro"}),
            ("$pageview", "mia", "2026-01-14T10:00:00Z"),
            ("$pageview", "mia", "2026-01-15T10:00:00Z", {"plan": "free"}),
            ("$pageview", "ned", "2026-01-13T10:00:00Z"),
            ("$pageview", "ned", "2026-01-14T10:00:00Z", {"plan": "pro"}),
            ("$pageview", "ned", "2026-01-15T10:00:00Z"),
        ],
    )
    target = {"id": "$pageview", "type": "events", "properties": PRO}
    # Jan 13: mia (pro), back Jan 14 and 15; Jan 14: ned (pro), back Jan 15; Jan 15: no pro visit
    payload = retention(client, world, total_intervals=3, target_entity=target)
    assert counts(payload) == [[1, 1, 1], [1, 1], [0]]
    back_on_a_free_visit = client.get(payload["result"][0]["values"][2]["people_url"], headers=world.headers()).json()
    assert [p["person"]["distinct_ids"] for p in back_on_a_free_visit["result"]] == [["mia"]]
    # a returning entity with the same properties counts only pro visits as returns: nobody comes back
    narrowed = retention(client, world, total_intervals=3, target_entity=target, returning_entity=target)
    assert counts(narrowed) == [[1, 0, 0], [1, 0], [0]]


def test_first_time_with_target_properties_returns_on_the_plain_event(client, world, conn):
    # mirrors PostHog's "properties on start event for first time" case
    add_events(
        conn,
        world.project_id,
        [
            ("$pageview", "olga", "2026-01-12T10:00:00Z"),  # not pro: not her first pro visit
            ("$pageview", "olga", "2026-01-13T10:00:00Z", {"plan": "pro"}),
            ("$pageview", "olga", "2026-01-14T10:00:00Z", {"plan": "pro"}),
            ("$pageview", "olga", "2026-01-15T10:00:00Z"),
            ("$pageview", "pat", "2026-01-12T10:00:00Z", {"plan": "pro"}),  # first pro visit before the range
            ("$pageview", "pat", "2026-01-14T10:00:00Z", {"plan": "pro"}),
        ],
    )
    target = {"id": "$pageview", "type": "events", "properties": PRO}
    payload = retention(client, world, total_intervals=3, target_entity=target, retention_type="retention_first_time")
    # olga's first pro visit is Jan 13; she is back Jan 14 and, on a plain visit, Jan 15; pat joins no cohort
    assert counts(payload) == [[1, 1, 1], [0, 0], [0]]


def test_a_day_is_the_projects_local_day(client, world, conn):
    # mirrors PostHog's timezone case: the same events, by UTC days and by US/Pacific days
    events = [
        ("$pageview", "quinn", "2026-01-13T01:00:00Z"),  # Jan 12, 17:00 in Los Angeles
        ("$pageview", "quinn", "2026-01-14T01:00:00Z"),  # Jan 13, 17:00
        ("$pageview", "ruth", "2026-01-14T02:00:00Z"),  # Jan 13, 18:00
        ("$pageview", "ruth", "2026-01-14T09:00:00Z"),  # Jan 14, 01:00
    ]
    add_events(conn, world.project_id, events)
    # Jan 13: quinn (back Jan 14); Jan 14: quinn and ruth (twice that day: once)
    assert counts(retention(client, world, total_intervals=2, date_to="2026-01-14")) == [[1, 1], [2]]
    update_project(conn, world.project_id, {"timezone": "America/Los_Angeles"}, "2026-01-15T12:00:00Z")
    pacific = retention(client, world, total_intervals=2, date_to="2026-01-14")
    # Jan 13 (local): quinn and ruth; ruth back Jan 14 (local); quinn's Jan 12 visit is before the range
    assert counts(pacific) == [[2, 1], [1]]
    assert [row["date"] for row in pacific["result"]] == ["2026-01-13T00:00:00-08:00", "2026-01-14T00:00:00-08:00"]
