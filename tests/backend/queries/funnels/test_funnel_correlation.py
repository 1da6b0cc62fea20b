"""Funnel correlation on hand-written events: counts and odds ratios worked out by hand.

Odds ratio with a prior of 1: (s + 1) * (F - f + 1) / ((S - s + 1) * (f + 1)), S and F the totals.
"""

from __future__ import annotations

import json

import pytest

from local_backend.queries.funnels.correlation import odds_ratio
from tests.factories import add_events

URL = "/api/projects/{pid}/insights/funnel/correlation/"
STEPS = [{"id": "a", "order": 0}, {"id": "b", "order": 1}]
EVENTS = [
    ("a", "s1", "2026-01-10T10:00:00Z"), ("video", "s1", "2026-01-10T10:01:00Z"), ("b", "s1", "2026-01-10T10:05:00Z"),
    ("a", "s2", "2026-01-10T10:00:00Z"), ("video", "s2", "2026-01-10T10:02:00Z"), ("b", "s2", "2026-01-10T10:10:00Z"),
    # s3 watches only after converting: not counted
    ("a", "s3", "2026-01-10T10:00:00Z"), ("b", "s3", "2026-01-10T10:03:00Z"), ("video", "s3", "2026-01-10T10:20:00Z"),
    ("a", "f1", "2026-01-10T10:00:00Z"), ("video", "f1", "2026-01-10T10:01:00Z"),
    ("a", "f2", "2026-01-10T10:00:00Z"), ("help", "f2", "2026-01-10T10:01:00Z"),
    # f3 watched before entering the funnel: not counted
    ("video", "f3", "2026-01-10T09:00:00Z"), ("a", "f3", "2026-01-10T10:00:00Z"),
    ("help", "f3", "2026-01-10T10:05:00Z"),
]  # fmt: skip
PLANS = {"s1": {"plan": "pro"}, "s2": {"plan": "pro"}, "s3": {"plan": "free"}, "f1": {"plan": "free"},
         "f2": {"plan": "free"}}  # fmt: skip


def correlation(client, world, **body):
    body.setdefault("events", STEPS)
    response = client.post(URL.format(pid=world.project_id), json=body, headers=world.headers())
    assert response.status_code == 200, response.json()
    return response.json()


def test_odds_ratio_formula():
    # 5 of 7 successes and 1 of 11 failures did it: (6 * 11) / (3 * 2) = 11
    assert odds_ratio(5, 1, 7, 11) == 11.0


def test_event_correlation(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    payload = correlation(client, world)
    result = payload["result"]
    rows = [
        (r["event"]["event"], r["success_count"], r["failure_count"], r["correlation_type"]) for r in result["events"]
    ]
    # video: 2 of 3 successes, 1 of 3 failures -> 3 * 3 / (2 * 2) = 2.25; help: 0 and 2 -> 1 * 2 / (4 * 3)
    assert rows == [("video", 2, 1, "success"), ("help", 0, 2, "failure")]
    assert result["events"][0]["odds_ratio"] == 2.25
    assert result["events"][1]["odds_ratio"] == pytest.approx(2 / 12)
    assert result["skewed"] is False
    assert set(payload) == {"result", "last_refresh", "is_cached"}


def test_excluded_event_names(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    payload = correlation(client, world, funnel_correlation_exclude_event_names=["help"])
    assert [r["event"]["event"] for r in payload["result"]["events"]] == ["video"]


def test_property_correlation(client, world, conn):
    add_events(conn, world.project_id, EVENTS, persons=PLANS)
    payload = correlation(client, world, funnel_correlation_type="properties", funnel_correlation_names=["plan"])
    rows = [
        (r["event"]["event"], r["success_count"], r["failure_count"], r["odds_ratio"])
        for r in payload["result"]["events"]
    ]
    # pro: 2 and 0 -> 3 * 4 / (2 * 1) = 6; free: 1 and 2 -> 2 * 2 / (3 * 3)
    assert rows == [("plan::pro", 2, 0, 6.0), ("plan::free", 1, 2, pytest.approx(4 / 9))]


def test_people_of_a_correlation_row(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    video = correlation(client, world)["result"]["events"][0]

    def people(url):
        response = client.get(url, headers=world.headers())
        assert response.status_code == 200, response.json()
        return sorted(d for p in response.json()["results"][0]["people"] for d in p["distinct_ids"])

    assert people(video["success_people_url"]) == ["s1", "s2"]
    assert people(video["failure_people_url"]) == ["f1"]


def test_people_of_an_event_whose_name_reads_as_json(client, world, conn):
    # "[beta] signup" begins like a JSON list: the people URL carries it as the event name it is
    renamed = [("[beta] signup" if name == "video" else name, who, at) for name, who, at in EVENTS]
    add_events(conn, world.project_id, renamed)
    row = correlation(client, world)["result"]["events"][0]
    assert row["event"]["event"] == "[beta] signup"
    response = client.get(row["success_people_url"], headers=world.headers())
    assert response.status_code == 200, response.json()
    assert sorted(d for p in response.json()["results"][0]["people"] for d in p["distinct_ids"]) == ["s1", "s2"]


def test_one_sided_funnel_is_empty_and_skewed(client, world, conn):
    add_events(conn, world.project_id, [("a", "p", "2026-01-10T10:00:00Z"), ("x", "p", "2026-01-10T10:01:00Z")])
    assert correlation(client, world)["result"] == {"events": [], "skewed": True}


def test_skewed_totals(client, world, conn):
    events = [("a", f"f{i}", "2026-01-10T10:00:00Z") for i in range(11)]
    events += [("a", "s", "2026-01-10T10:00:00Z"), ("b", "s", "2026-01-10T10:01:00Z")]
    add_events(conn, world.project_id, events)
    assert correlation(client, world)["result"]["skewed"] is True


def test_insignificant_events_are_left_out(client, world, conn):
    # 60 persons: 2 % is 1.2, so an event done by one person only is dropped, by two it stays
    events = [("a", f"p{i}", "2026-01-10T10:00:00Z") for i in range(60)]
    events += [("b", f"p{i}", "2026-01-10T10:05:00Z") for i in range(30)]
    events += [("rare", "p0", "2026-01-10T10:01:00Z"), ("twice", "p1", "2026-01-10T10:01:00Z"),
               ("twice", "p40", "2026-01-10T10:01:00Z")]  # fmt: skip
    add_events(conn, world.project_id, events)
    names = [r["event"]["event"] for r in correlation(client, world)["result"]["events"]]
    assert names == ["twice"]


@pytest.mark.parametrize(
    ("body", "attr"),
    [
        ({"funnel_correlation_type": "colours"}, "funnel_correlation_type"),
        ({"funnel_correlation_type": "properties"}, "funnel_correlation_names"),
        ({"funnel_correlation_type": "properties", "funnel_correlation_names": [3]}, "funnel_correlation_names"),
        ({"events": []}, "events"),
    ],
)
def test_bad_correlation_input(client, world, conn, body, attr):
    add_events(conn, world.project_id, EVENTS)
    body.setdefault("events", STEPS)
    response = client.post(URL.format(pid=world.project_id), json=body, headers=world.headers())
    assert response.status_code == 400 and response.json()["attr"] == attr, response.json()


def test_get_reads_the_query_string(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    response = client.get(
        URL.format(pid=world.project_id), params={"events": json.dumps(STEPS)}, headers=world.headers()
    )
    assert response.status_code == 200 and len(response.json()["result"]["events"]) == 2
