"""Paths through the API on hand-written events, the expected edges worked out by hand.

The app clock stands at 2026-01-15 12:00 UTC, so the default range (-7d) starts on Jan 8 00:00.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from local_backend.errors import ValidationError
from local_backend.queries.paths import PathFilter
from local_backend.queries.paths.compute import paths_payload, resolve_path_range
from local_backend.store.event_rows import earliest_event_time, to_micros
from local_backend.store.projects import get_project
from tests.factories import add_events

URL = "/api/projects/{pid}/insights/path/"
MIN = 60_000  # ms


def view(who, when, url, **props):
    return ("$pageview", who, f"2026-01-14T{when}:00Z", {"$current_url": url, **props})


EVENTS = [
    view("p1", "10:00", "/"),
    view("p1", "10:01", "/pricing/"),  # the trailing slash is dropped
    view("p1", "10:03", "/signup"),
    view("p2", "10:00", "/", **{"$browser": "Firefox"}),
    view("p2", "10:05", "/pricing", **{"$browser": "Firefox"}),
    view("p2", "10:45", "/"),  # 40 minutes later: a new session
    view("p2", "10:46", "/docs"),
    view("p3", "10:00", "/docs"),
    ("$screen", "p3", "2026-01-14T10:01:00Z", {"$screen_name": "Home"}),
    ("clicked", "p3", "2026-01-14T10:02:00Z"),
    ("$pageview", "p4", "2026-01-05T10:00:00Z", {"$current_url": "/old"}),  # before -7d
    ("$pageview", "p4", "2026-01-05T10:01:00Z", {"$current_url": "/older"}),
]


PAGEVIEWS = ["$pageview"]


def paths(client, world, **params):
    query = {k: json.dumps(v) if isinstance(v, dict | list) else v for k, v in params.items()}
    response = client.get(URL.format(pid=world.project_id), params=query, headers=world.headers())
    assert response.status_code == 200, response.json()
    return [(e["source"], e["target"], e["value"], e["average_conversion_time"]) for e in response.json()["result"]]


@pytest.fixture
def events(conn, world):
    add_events(conn, world.project_id, EVENTS)


def test_pageviews_by_url_per_session(client, world, events):
    # sessions: p1 [/, /pricing, /signup]; p2 [/, /pricing] and [/, /docs]; p3 [/docs] (no step)
    assert paths(client, world, include_event_types=PAGEVIEWS) == [
        ("1_/", "2_/pricing", 2, 3 * MIN),  # 1 and 5 minutes
        ("1_/", "2_/docs", 1, 1 * MIN),
        ("2_/pricing", "3_/signup", 1, 2 * MIN),
    ]


def test_screens_and_custom_events(client, world, events):
    edges = paths(client, world, include_event_types=["$pageview", "$screen", "custom_event"])
    assert edges == [
        ("1_/", "2_/pricing", 2, 3 * MIN),
        ("1_/", "2_/docs", 1, 1 * MIN),
        ("1_/docs", "2_Home", 1, 1 * MIN),
        ("2_/pricing", "3_/signup", 1, 2 * MIN),
        ("2_Home", "3_clicked", 1, 1 * MIN),
    ]
    assert paths(client, world, include_event_types=["custom_event"]) == []  # p3 clicked once: no step
    assert paths(client, world, path_type="$screen") == []


def test_start_point(client, world, events):
    # p1 from /pricing: [/pricing, /signup]; p2's first session ends at /pricing
    assert paths(client, world, start_point="/pricing") == [("1_/pricing", "2_/signup", 1, 2 * MIN)]


def test_end_point(client, world, events):
    assert paths(client, world, end_point="/pricing") == [("1_/", "2_/pricing", 2, 3 * MIN)]


def test_groupings_and_exclusions(client, world, events):
    assert paths(client, world, path_groupings=["/pri*"])[0] == ("1_/", "2_/pri*", 2, 3 * MIN)
    # without /pricing, p1 goes / -> /signup in 3 minutes
    assert paths(client, world, include_event_types=PAGEVIEWS, exclude_events=["/pricing"]) == [
        ("1_/", "2_/docs", 1, 1 * MIN),
        ("1_/", "2_/signup", 1, 3 * MIN),
    ]


def test_step_limit(client, world, events):
    assert paths(client, world, include_event_types=PAGEVIEWS, step_limit=2) == [
        ("1_/", "2_/pricing", 2, 3 * MIN),
        ("1_/", "2_/docs", 1, 1 * MIN),
    ]


def test_edge_weights_and_limit(client, world, events):
    assert [e[:2] for e in paths(client, world, min_edge_weight=2)] == [("1_/", "2_/pricing")]
    # 2_/pricing -> 3_/signup weighs 1 too, but the only edge into 2_/pricing weighs 2: nothing leads to it
    assert [e[:2] for e in paths(client, world, include_event_types=PAGEVIEWS, max_edge_weight=1)] == [
        ("1_/", "2_/docs"),
    ]
    assert len(paths(client, world, edge_limit=1)) == 1


def test_date_range_and_properties(client, world, events):
    assert ("1_/old", "2_/older", 1, 1 * MIN) in paths(client, world, date_from="-14d")
    assert paths(client, world, date_from="2026-01-05", date_to="2026-01-05") == [("1_/old", "2_/older", 1, 1 * MIN)]
    firefox = [{"key": "$browser", "value": "Firefox"}]
    assert paths(client, world, properties=firefox) == [("1_/", "2_/pricing", 1, 5 * MIN)]


def test_post_reads_the_body(client, world, events):
    response = client.post(
        URL.format(pid=world.project_id), json={"start_point": "/pricing", "step_limit": 2}, headers=world.headers()
    )
    assert response.status_code == 200
    assert [e["source"] for e in response.json()["result"]] == ["1_/pricing"]
    assert response.json()["is_cached"] is False


def test_the_payload_for_saved_insights_equals_the_endpoint(client, world, conn, clock, events):
    project = get_project(conn, world.project_id)
    payload = paths_payload(conn, project, {"insight": "PATHS", "step_limit": "3"}, clock.now())
    assert [tuple(edge.values()) for edge in payload["result"]] == paths(client, world, step_limit=3)
    with pytest.raises(ValidationError) as error:
        paths_payload(conn, project, {"include_event_types": '["$pageview"'}, clock.now())
    assert error.value.attr == "include_event_types"


def test_all_starts_at_the_earliest_plausible_event(client, world, conn, clock):
    # PostHog starts `all` at the project's first event on or after 2015-01-01: a stamp from 2000 is a broken
    # client clock. Here the first plausible event is on 2024-03-01 10:00, so the range starts that day at 00:00.
    add_events(
        conn,
        world.project_id,
        [("$pageview", "y2k", "2000-01-01T10:00:00Z", {"$current_url": "/y2k"}),
         ("$pageview", "y2k", "2000-01-01T10:01:00Z", {"$current_url": "/y2k/next"}),
         ("$pageview", "p1", "2024-03-01T10:00:00Z", {"$current_url": "/a"}),
         ("$pageview", "p1", "2024-03-01T10:02:00Z", {"$current_url": "/b"})],
    )  # fmt: skip
    assert paths(client, world, date_from="all") == [("1_/a", "2_/b", 1, 2 * MIN)]
    project = get_project(conn, world.project_id)
    bounds = resolve_path_range(PathFilter(date_from="all"), project, clock.now(), lambda: earliest(conn, project))
    assert bounds.start == to_micros(datetime(2024, 3, 1, tzinfo=UTC))
    assert bounds.end == to_micros(clock.now())


def test_all_without_plausible_events_starts_today(conn, world, clock):
    project = get_project(conn, world.project_id)
    bounds = resolve_path_range(PathFilter(date_from="all"), project, clock.now(), lambda: None)
    assert bounds.start == to_micros(datetime(2026, 1, 15, tzinfo=UTC))


def earliest(conn, project):
    return earliest_event_time(conn, int(project["id"]))


def test_an_empty_range_answers_no_edges(client, world, events):
    # PostHog answers a range that holds no time with no edges rather than an error
    assert paths(client, world, date_from="2026-01-10", date_to="2026-01-01") == []
    assert paths(client, world, date_from="2026-02-01") == []
