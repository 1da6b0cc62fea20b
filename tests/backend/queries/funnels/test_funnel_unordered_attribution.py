"""Unordered funnels broken down with step attribution: any step may come first, so step 0 is the event each
attempt starts at, and a person counts under the value of every step event, with the attempts starting there.

Mirrors PostHog's unordered ``test_funnel_step_breakdown_with_step_attribution``; the numbers are worked out
by hand here. Steps: sign up, buy (either order, within 7 days).
"""

from __future__ import annotations

import json

import pytest

from tests.factories import add_events

URL = "/api/projects/{pid}/insights/funnel/"
EVENTS = [
    # one: sign up (Chrome) then buy 1 h later (no browser)
    ("sign up", "one", "2020-01-01T12:00:00Z", {"$browser": "Chrome"}),
    ("buy", "one", "2020-01-01T13:00:00Z"),
    # two: sign up (no browser) then buy a day later (Safari)
    ("sign up", "two", "2020-01-01T13:00:00Z"),
    ("buy", "two", "2020-01-02T13:00:00Z", {"$browser": "Safari"}),
    # three: sign up (Mac) then buy 1 h later (no browser)
    ("sign up", "three", "2020-01-02T14:00:00Z", {"$browser": "Mac"}),
    ("buy", "three", "2020-01-02T15:00:00Z"),
    # four: sign up (the number 0) then buy 1 h later (alakazam)
    ("sign up", "four", "2020-01-02T15:00:00Z", {"$browser": 0}),
    ("buy", "four", "2020-01-02T16:00:00Z", {"$browser": "alakazam"}),
]
FILTER = {
    "insight": "FUNNELS",
    "funnel_order_type": "unordered",
    "events": [{"id": "sign up", "order": 0}, {"id": "buy", "order": 1}],
    "date_from": "2020-01-01",
    "date_to": "2020-01-08",
    "funnel_window_days": 7,
    "breakdown_type": "event",
    "breakdown_attribution_type": "step",
    "breakdown_attribution_value": 0,
}
# Attempts start at a sign up or at a buy; each counts under the value of the event it starts at:
# one: from sign up (Chrome) both steps; from buy ("") nothing follows: 1 step
# two: from sign up ("") the buy follows a day later: 2 steps; from buy (Safari): 1 step
# three: from sign up (Mac): 2 steps; from buy (""): 1 step
# four: from sign up (0): 2 steps; from buy (alakazam): 1 step
COUNTS = {
    "Chrome": [1, 1],
    "": [3, 1],
    "Mac": [1, 1],
    "0": [1, 1],
    "Safari": [1, 0],
    "alakazam": [1, 0],
}
PEOPLE = {("", 1): {"one", "two", "three"}, ("", 2): {"two"}, ("", -2): {"one", "three"}, ("Mac", 1): {"three"}}


def _funnel(client, world, **fields):
    body = {**FILTER, **fields}
    return client.post(URL.format(pid=world.project_id), json=body, headers=world.headers())


def _value(group):
    value = group[0]["breakdown_value"]
    return value[0] if isinstance(value, list) else value


def _people(client, world, url):
    response = client.get(url, headers=world.headers())
    assert response.status_code == 200, response.json()
    return {name for person in response.json()["results"][0]["people"] for name in person["distinct_ids"]}


@pytest.mark.parametrize("breakdown", ["$browser", ["$browser"]])
def test_every_value_seen_at_an_attempt_start_is_listed_with_its_counts(client, world, conn, breakdown):
    add_events(conn, world.project_id, EVENTS)
    response = _funnel(client, world, breakdown=breakdown)
    assert response.status_code == 200, response.json()
    result = response.json()["result"]
    assert {_value(group): [step["count"] for step in group] for group in result} == COUNTS
    times = {_value(group): group[1]["average_conversion_time"] for group in result}
    assert times == {"Chrome": 3600, "": 86400, "Mac": 3600, "0": 3600, "Safari": None, "alakazam": None}
    shown = {_value(group): group for group in result}
    for (value, step), persons in PEOPLE.items():
        item = shown[value][abs(step) - 1]
        url = item["converted_people_url"] if step > 0 else item["dropped_people_url"]
        assert _people(client, world, url) == persons, (value, step)


def test_a_list_breakdown_shows_its_values_as_lists(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    result = _funnel(client, world, breakdown=["$browser"]).json()["result"]
    assert sorted(json.dumps(group[0]["breakdown_value"]) for group in result) == sorted(
        json.dumps([value]) for value in COUNTS
    )


def test_a_later_step_has_no_meaning_without_an_order(client, world, conn):
    # PostHog answers non-zero step attribution of an unordered funnel with a validation error
    add_events(conn, world.project_id, EVENTS)
    response = _funnel(client, world, breakdown="$browser", breakdown_attribution_value=1)
    assert response.status_code == 400
    assert response.json()["attr"] == "breakdown_attribution_value"
