"""The people behind every stickiness bucket: each series' ``persons_urls[k - 1]`` lists the actors active in
exactly k intervals (k or more when cumulative).

Hand-written events of ``e``, 10-14 January 2026 by day (the clock is Thursday the 15th): alice on the 10th,
11th and 12th (3 days, Chrome), bob on the 10th and 14th (2 days, Safari), carol on the 13th (1 day, Chrome);
dave only before the range, on the 8th (the previous period of a comparison, 5th-9th). Buckets by hand:
1 day {carol}, 2 days {bob}, 3 days {alice}; cumulative 1+ {alice, bob, carol}, 2+ {alice, bob}, 3+ {alice}.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.factories import add_events

TREND = "/api/projects/{pid}/insights/trend/"
BASE = {"insight": "STICKINESS", "events": [{"id": "e"}], "date_from": "2026-01-10", "date_to": "2026-01-14"}
EVENTS = [
    ("e", "alice", "2026-01-10T09:00:00Z", {"$browser": "Chrome"}),
    ("e", "alice", "2026-01-11T09:00:00Z", {"$browser": "Chrome"}),
    ("e", "alice", "2026-01-12T09:00:00Z", {"$browser": "Chrome"}),
    ("e", "bob", "2026-01-10T08:00:00Z", {"$browser": "Safari"}),
    ("e", "bob", "2026-01-14T12:00:00Z", {"$browser": "Safari"}),
    ("e", "carol", "2026-01-13T00:00:00Z", {"$browser": "Chrome"}),
    ("e", "dave", "2026-01-08T10:00:00Z", {"$browser": "Chrome"}),
]


@pytest.fixture
def stored(conn, world):
    add_events(conn, world.project_id, EVENTS)


def _sticky(client, world, **fields: Any) -> list[dict[str, Any]]:
    response = client.post(TREND.format(pid=world.project_id), json={**BASE, **fields}, headers=world.headers())
    assert response.status_code == 200, response.json()
    return response.json()["result"]


def _people(client, world, url: str) -> set[str]:
    response = client.get(url, headers=world.headers())
    assert response.status_code == 200, response.json()
    [page] = response.json()["results"]
    return {distinct_id for person in page["people"] for distinct_id in person["distinct_ids"]}


def _buckets(client, world, series: dict[str, Any]) -> list[set[str]]:
    assert len(series["persons_urls"]) == len(series["days"])
    return [_people(client, world, link["url"]) for link in series["persons_urls"]]


def test_each_bucket_lists_the_actors_of_that_many_days(client, world, stored):
    [series] = _sticky(client, world)
    assert series["data"] == [1, 1, 1, 0, 0]
    assert _buckets(client, world, series) == [{"carol"}, {"bob"}, {"alice"}, set(), set()]
    assert series["persons_urls"][1]["filter"]["stickiness_days"] == 2


def test_cumulative_buckets_list_k_or_more(client, world, stored):
    [series] = _sticky(client, world, computed_as="cumulative")
    assert series["data"] == [3, 2, 1, 0, 0]
    assert _buckets(client, world, series) == [{"alice", "bob", "carol"}, {"alice", "bob"}, {"alice"}, set(), set()]


def test_breakdown_series_list_their_own_actors(client, world, stored):
    result = _sticky(client, world, breakdown="$browser")
    people = {series["breakdown_value"]: _buckets(client, world, series) for series in result}
    assert people == {
        "Chrome": [{"carol"}, set(), {"alice"}, set(), set()],
        "Safari": [set(), {"bob"}, set(), set(), set()],
    }


def test_the_previous_period_lists_its_people(client, world, stored):
    current, previous = _sticky(client, world, compare=True)
    assert previous["compare_label"] == "previous" and previous["data"] == [1, 0, 0, 0, 0]
    assert _buckets(client, world, previous)[0] == {"dave"}
    assert _buckets(client, world, current)[2] == {"alice"}


@pytest.mark.parametrize(
    ("change", "attr"),
    [
        (("stickiness_days=2", "stickiness_days=6"), "stickiness_days"),
        (("entity_order=0", "entity_order=1"), "entity_order"),
    ],
)
def test_a_bucket_not_on_the_chart_is_a_400_naming_it(client, world, stored, change, attr):
    [series] = _sticky(client, world)
    url = series["persons_urls"][1]["url"].replace(*change)
    response = client.get(url, headers=world.headers())
    assert response.status_code == 400 and response.json()["attr"] == attr


def test_groups_are_listed_by_key(client, world, stored, conn):
    # alice's events belong to org1, carol's to org2: org1 on 3 days, org2 on 1
    conn.execute(
        "UPDATE events SET group_0 = CASE distinct_id WHEN 'alice' THEN 'org1' WHEN 'carol' THEN 'org2' ELSE '' END"
    )
    conn.commit()
    [series] = _sticky(client, world, events=[{"id": "e", "math": "unique_group", "math_group_type_index": 0}])
    assert series["data"] == [1, 0, 1, 0, 0]
    response = client.get(series["persons_urls"][2]["url"], headers=world.headers())
    assert [group["group_key"] for group in response.json()["results"][0]["people"]] == ["org1"]


def test_the_actors_query_names_a_bucket_and_a_period(client, world, stored):
    source = {
        "kind": "StickinessQuery",
        "series": [{"kind": "EventsNode", "event": "e"}],
        "dateRange": {"date_from": "2026-01-10", "date_to": "2026-01-14"},
        "compareFilter": {"compare": True},
    }
    for day, compare, expected in ((2, "current", {"bob"}), (1, "previous", {"dave"}), (3, None, {"alice"})):
        node = {"kind": "InsightActorsQuery", "source": source, "day": day, "compare": compare}
        body = {"query": {"kind": "ActorsQuery", "source": node}}
        response = client.post(f"/api/projects/{world.project_id}/query/", json=body, headers=world.headers())
        assert response.status_code == 200, response.json()
        assert {p["distinct_ids"][0] for [p] in response.json()["results"]} == expected
