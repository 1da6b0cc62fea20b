"""``/query/``'s ``ActorsQuery`` over an ``InsightActorsQuery`` over a ``RetentionQuery``: the people of one
cohort, named by ``interval`` (the cohort's row, from 0) and, when broken down, ``breakdown``.

The pageviews are those of :mod:`.test_retention_breakdown`, day cohorts Jan 12 (0) to Jan 15 (3). Every person
who viewed a page on a day starts that day's cohort: Jan 12 alice, bob; Jan 13 alice, carol; Jan 14 bob, dave;
Jan 15 alice, carol. By browser (the first pageview of the day): Chrome holds alice@12 and carol@13, Safari bob@12
and alice@13, Firefox dave@14.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.factories import add_events

from .test_retention_breakdown import PAGEVIEWS, PLANS

RETENTION = {"kind": "RetentionQuery", "retentionFilter": {"totalIntervals": 4}}
BY_BROWSER = {**RETENTION, "breakdownFilter": {"breakdown": "$browser", "breakdown_type": "event"}}


@pytest.fixture(autouse=True)
def _pageviews(conn, world) -> None:
    add_events(conn, world.project_id, PAGEVIEWS, persons=PLANS)


def actors(client, world, source: dict[str, Any], **point: Any) -> Any:
    node = {"kind": "InsightActorsQuery", "source": source, **point}
    body = {"query": {"kind": "ActorsQuery", "source": node}}
    return client.post(f"/api/projects/{world.project_id}/query/", json=body, headers=world.headers())


def names(response) -> set[str]:
    assert response.status_code == 200, response.json()
    return {person["distinct_ids"][0] for [person] in response.json()["results"]}


@pytest.mark.parametrize(
    "interval, expected",
    [(0, {"alice", "bob"}), (1, {"alice", "carol"}), (2, {"bob", "dave"}), (3, {"alice", "carol"})],
)
def test_interval_names_the_cohort_whose_people_are_listed(client, world, interval, expected):
    assert names(actors(client, world, RETENTION, interval=interval)) == expected


@pytest.mark.parametrize(
    "breakdown, interval, expected",
    [("Chrome", 0, {"alice"}), ("Chrome", 1, {"carol"}), (["Safari"], 1, {"alice"}), ("Firefox", 2, {"dave"})],
)
def test_a_broken_down_cohort_lists_only_its_values_people(client, world, breakdown, interval, expected):
    assert names(actors(client, world, BY_BROWSER, interval=interval, breakdown=breakdown)) == expected


def test_the_people_are_those_of_the_legacy_cohort_list(client, world):
    legacy = client.get(
        f"/api/projects/{world.project_id}/persons/retention/?total_intervals=4&selected_interval=2",
        headers=world.headers(),
    ).json()
    listed = {item["person"]["distinct_ids"][0] for item in legacy["result"]}
    assert names(actors(client, world, RETENTION, interval=2)) == listed == {"bob", "dave"}


@pytest.mark.parametrize(
    "point, attr",
    [
        ({}, "query__source__interval"),
        ({"interval": -1}, "query__source__interval"),
        ({"interval": 4}, "query__source__interval"),  # four cohorts: rows 0 to 3
        ({"interval": "1"}, "query__source__interval"),
        ({"interval": 0, "day": "2026-01-12"}, "query__source__day"),
        ({"interval": 0, "status": "new"}, "query__source__status"),
        ({"interval": 0, "breakdown": ["Chrome", "pro"]}, "query__source__breakdown"),
    ],
)
def test_a_cohort_not_shown_is_a_400_naming_the_field(client, world, point, attr):
    response = actors(client, world, BY_BROWSER, **point)
    assert response.status_code == 400
    assert (response.json()["type"], response.json()["attr"]) == ("validation_error", attr)


def test_interval_is_refused_beside_another_kind(client, world):
    trend = {"kind": "TrendsQuery", "series": [{"kind": "EventsNode", "event": "$pageview"}]}
    response = actors(client, world, trend, day="2026-01-13", interval=0)
    assert response.status_code == 400 and response.json()["attr"] == "query__source__interval"
