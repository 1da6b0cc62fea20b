"""Every people URL leads to exactly the people it counted: for each kind and every point of one small dataset,
the URL the server handed out lists as many actors as the point shows, and they are the ones worked out by hand;
``/query/``'s ``ActorsQuery`` over an ``InsightActorsQuery`` names the same point and lists the same people.

Hand-written pageviews (UTC; persons created at the epoch; the range is 12-14 January 2026 by day):

=====  =================================================================================
ann    12th 10:00 /home, 10:05 /pricing; 13th 10:00 /home
ben    12th 11:00 /home; 14th 11:00 /home, 11:05 /signup
cat    14th 09:00 /pricing
dan    11th 09:00 /home (the day before the range)
=====  =================================================================================

By hand: persons a day (dau) 12th {ann, ben}, 13th {ann}, 14th {ben, cat}; weekly actives (7 days ending with
the day) 12th and 13th {dan, ann, ben}, 14th all four. By URL, ranked by pageviews: /home 4, /pricing 2, /signup 1;
with two values shown /signup is Other. Stickiness: ann and ben on 2 days, cat on 1. Lifecycle (the 11th is
the interval before): resurrecting 12th {ann, ben}, 14th {ben, cat}; returning 13th {ann}; dormant 12th {dan},
13th {ben}, 14th {ann}. Paths (sessions): ann /home -> /pricing, ben /home -> /signup, the rest one step.
Retention by URL and paths restricted by a funnel: worked out beside their tests below.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.factories import add_events

RANGE = {"date_from": "2026-01-12", "date_to": "2026-01-14"}
DATE_RANGE = {"date_from": "2026-01-12", "date_to": "2026-01-14"}
PAGEVIEWS = [
    ("ann", "2026-01-12T10:00:00Z", "/home"),
    ("ann", "2026-01-12T10:05:00Z", "/pricing"),
    ("ann", "2026-01-13T10:00:00Z", "/home"),
    ("ben", "2026-01-12T11:00:00Z", "/home"),
    ("ben", "2026-01-14T11:00:00Z", "/home"),
    ("ben", "2026-01-14T11:05:00Z", "/signup"),
    ("cat", "2026-01-14T09:00:00Z", "/pricing"),
    ("dan", "2026-01-11T09:00:00Z", "/home"),
]
EVERYONE_WEEK = {"dan", "ann", "ben"}
OTHER = "$$_posthog_breakdown_other_$$"

# (kind, legacy filter, how to read the series' points, {series key: [people of each point]})
CASES = {
    "trend dau": (
        {"events": [{"id": "$pageview", "math": "dau"}]},
        {None: [{"ann", "ben"}, {"ann"}, {"ben", "cat"}]},
    ),
    "trend weekly actives": (
        {"events": [{"id": "$pageview", "math": "weekly_active"}]},
        {None: [EVERYONE_WEEK, EVERYONE_WEEK, EVERYONE_WEEK | {"cat"}]},
    ),
    "trend by url": (
        {"events": [{"id": "$pageview", "math": "dau"}], "breakdown": "$current_url", "breakdown_limit": 2},
        {
            "/home": [{"ann", "ben"}, {"ann"}, {"ben"}],
            "/pricing": [{"ann"}, set(), {"cat"}],
            OTHER: [set(), set(), {"ben"}],
        },
    ),
    "stickiness": (
        {"insight": "STICKINESS", "events": [{"id": "$pageview"}]},
        {None: [{"cat"}, {"ann", "ben"}, set()]},
    ),
    "lifecycle": (
        {"insight": "LIFECYCLE", "events": [{"id": "$pageview"}]},
        {
            "new": [set(), set(), set()],
            "returning": [set(), {"ann"}, set()],
            "resurrecting": [{"ann", "ben"}, set(), {"ben", "cat"}],
            "dormant": [{"dan"}, {"ben"}, {"ann"}],
        },
    ),
}


@pytest.fixture
def stored(conn, world, engine):
    add_events(
        conn, world.project_id, [("$pageview", who, when, {"$current_url": url}) for who, when, url in PAGEVIEWS]
    )


def _names(response) -> set[str]:
    assert response.status_code == 200, response.json()
    [page] = response.json()["results"]
    assert response.json()["count"] == len(page["people"])
    return {distinct_id for person in page["people"] for distinct_id in person["distinct_ids"]}


def _query_names(client, world, insight: dict[str, Any], **point: Any) -> set[str]:
    body = {"query": {"kind": "ActorsQuery", "source": {"kind": "InsightActorsQuery", "source": insight, **point}}}
    response = client.post(f"/api/projects/{world.project_id}/query/", json=body, headers=world.headers())
    assert response.status_code == 200, response.json()
    return {distinct_id for [person] in response.json()["results"] for distinct_id in person["distinct_ids"]}


def _node(fields: dict[str, Any]) -> dict[str, Any]:
    """The query node of a legacy filter of this module."""
    event = fields["events"][0]
    series = [{"kind": "EventsNode", "event": event["id"], **({"math": event["math"]} if "math" in event else {})}]
    kind = {"STICKINESS": "StickinessQuery", "LIFECYCLE": "LifecycleQuery"}.get(fields.get("insight"), "TrendsQuery")
    node: dict[str, Any] = {"kind": kind, "series": series, "dateRange": DATE_RANGE}
    if "breakdown" in fields:
        node["breakdownFilter"] = {"breakdown": fields["breakdown"], "breakdown_limit": fields["breakdown_limit"]}
    return node


@pytest.mark.parametrize("case", list(CASES))
def test_every_point_url_lists_exactly_the_people_it_counts(client, world, stored, case):
    fields, expected = CASES[case]
    body = {**RANGE, **fields}
    response = client.post(f"/api/projects/{world.project_id}/insights/trend/", json=body, headers=world.headers())
    assert response.status_code == 200, response.json()
    result = response.json()["result"]
    lifecycle = fields.get("insight") == "LIFECYCLE"
    key_of = (lambda s: s["status"]) if lifecycle else (lambda s: s.get("breakdown_value"))
    assert {key_of(series) for series in result} == set(expected)
    for series in result:
        people = expected[key_of(series)]
        assert len(series["persons_urls"]) == len(series["data"]) == len(people)
        for index, (link, shown) in enumerate(zip(series["persons_urls"], series["data"], strict=True)):
            listed = _names(client.get(link["url"], headers=world.headers()))
            assert listed == people[index], (series["label"], index)
            assert len(listed) == abs(shown), (series["label"], index)
            point: dict[str, Any] = {"day": series["days"][index], "series": 0}
            if lifecycle:
                point["status"] = series["status"]
            elif series.get("breakdown_value") is not None:
                point["breakdown"] = series["breakdown_value"]
            assert _query_names(client, world, _node(fields), **point) == people[index]


PATHS = {"include_event_types": ["$pageview"], **RANGE}


def test_every_path_edge_lists_exactly_the_people_it_counts(client, world, stored):
    response = client.post(f"/api/projects/{world.project_id}/insights/path/", json=PATHS, headers=world.headers())
    edges = {(edge["source"], edge["target"]): edge["value"] for edge in response.json()["result"]}
    expected = {("1_/home", "2_/pricing"): {"ann"}, ("1_/home", "2_/signup"): {"ben"}}
    assert set(edges) == set(expected)
    query = "include_event_types=%5B%22%24pageview%22%5D&date_from=2026-01-12&date_to=2026-01-14"
    for (source, target), people in expected.items():
        url = f"/api/projects/{world.project_id}/persons/paths/?{query}&path_start_key={source}&path_end_key={target}"
        listed = _names(client.get(url, headers=world.headers()))
        assert listed == people and len(listed) == edges[(source, target)]
        node = {
            "kind": "PathsQuery",
            "dateRange": DATE_RANGE,
            "pathsFilter": {"includeEventTypes": ["$pageview"], "pathStartKey": source, "pathEndKey": target},
        }
        assert _query_names(client, world, node) == people


# retention by URL, day cohorts 12th-14th: each (person, day) under the URL of the person's first pageview that
# day: /home ann@12, ann@13, ben@12, ben@14; /pricing cat@14 (dan's 11th is before the range)
RETENTION_BY_URL = {
    "/home": [[{"ann", "ben"}, {"ann"}, {"ben"}], [{"ann"}, set()], [{"ben"}]],
    "/pricing": [[set(), set(), set()], [set(), set()], [{"cat"}]],
}


def _retention_names(response) -> set[str]:
    assert response.status_code == 200, response.json()
    assert response.json()["count"] == len(response.json()["result"])
    return {distinct_id for item in response.json()["result"] for distinct_id in item["person"]["distinct_ids"]}


def test_every_retention_cell_by_breakdown_value_lists_exactly_the_people_it_counts(client, world, stored):
    body = {"date_to": "2026-01-14", "total_intervals": 3, "breakdown": "$current_url"}
    response = client.post(f"/api/projects/{world.project_id}/insights/retention/", json=body, headers=world.headers())
    assert response.status_code == 200, response.json()
    rows = response.json()["result"]
    assert [row["breakdown_value"] for row in rows] == ["/home"] * 3 + ["/pricing"] * 3
    for index, row in enumerate(rows):
        cells = RETENTION_BY_URL[row["breakdown_value"]][index % 3]
        assert _retention_names(client.get(row["people_url"], headers=world.headers())) == cells[0]
        for offset, value in enumerate(row["values"]):
            listed = _retention_names(client.get(value["people_url"], headers=world.headers()))
            assert listed == cells[offset] and len(listed) == value["count"], (row["breakdown_value"], index, offset)


# paths after reaching /home on a funnel /home -> /pricing: ann (10:00 on the 12th) goes on to /pricing and back
# /home on the 13th; ben (11:00 on the 12th) comes back to /home on the 14th and then /signup, one session as the
# 14-day window cuts them; cat never visits /home
FUNNEL = {
    **RANGE,
    "events": [
        {"id": "$pageview", "order": 0, "properties": [{"key": "$current_url", "value": "/home"}]},
        {"id": "$pageview", "order": 1, "properties": [{"key": "$current_url", "value": "/pricing"}]},
    ],
}
FUNNEL_PATHS = {
    "after step 1": (1, {("1_/home", "2_/pricing"): {"ann"}, ("2_/pricing", "3_/home"): {"ann"},
                         ("1_/home", "2_/signup"): {"ben"}}),
    "after dropping before step 2": (-2, {("1_/home", "2_/signup"): {"ben"}}),
}  # fmt: skip


@pytest.mark.parametrize("case", list(FUNNEL_PATHS))
def test_every_edge_of_paths_by_funnel_lists_exactly_the_people_it_counts(client, world, stored, case):
    step, expected = FUNNEL_PATHS[case]
    body = {**PATHS, "funnel_paths": "funnel_path_after_step", "funnel_filter": FUNNEL, "funnel_step": step}
    response = client.post(f"/api/projects/{world.project_id}/insights/path/", json=body, headers=world.headers())
    assert response.status_code == 200, response.json()
    edges = {(edge["source"], edge["target"]): edge["value"] for edge in response.json()["result"]}
    assert set(edges) == set(expected)
    params = {key: json.dumps(value) if isinstance(value, dict | list) else value for key, value in body.items()}
    for (source, target), people in expected.items():
        url = f"/api/projects/{world.project_id}/persons/paths/"
        keys = {"path_start_key": source, "path_end_key": target}
        listed = _names(client.get(url, params={**params, **keys}, headers=world.headers()))
        assert listed == people and len(listed) == edges[(source, target)]
