"""Saved insights show their results by refresh mode, and /query/ computes the same numbers.

Hand-worked case: daily retention over 13-15 January 2026 (3 intervals ending on the 15th).
u1 views on the 13th and 14th, u2 on the 13th, u3 on the 15th. Recurring cohorts:
13th = {u1, u2}, of whom u1 is back on the 14th and nobody on the 15th -> [2, 1, 0];
14th = {u1}, not back on the 15th -> [1, 0]; 15th = {u3} -> [1].
"""

from __future__ import annotations

import time

import pytest

from tests.factories import add_events

RETENTION = {
    "insight": "RETENTION",
    "target_entity": {"id": "$pageview", "type": "events"},
    "period": "Day",
    "total_intervals": 3,
    "date_to": "2026-01-15",
}
EXPECTED = [[2, 1, 0], [1, 0], [1]]


@pytest.fixture
def views(conn, world):
    add_events(
        conn,
        world.project_id,
        [
            ("$pageview", "u1", "2026-01-13T09:00:00Z"),
            ("$pageview", "u2", "2026-01-13T10:00:00Z"),
            ("$pageview", "u1", "2026-01-14T09:00:00Z"),
            ("$pageview", "u3", "2026-01-15T08:00:00Z"),
        ],
    )


def counts(result):
    return [[value["count"] for value in row["values"]] for row in result]


def test_saved_retention_insight_by_refresh_mode(client, world, views, conn, clock):
    base = f"/api/projects/{world.project_id}/insights/"
    insight_id = client.post(base, json={"name": "Retention", "filters": RETENTION}, headers=world.headers()).json()[
        "id"
    ]
    url = f"{base}{insight_id}/"

    plain = client.get(url, headers=world.headers()).json()
    assert (plain["result"], plain["last_refresh"], plain["is_cached"]) == (None, None, False)

    computed = client.get(url + "?refresh=blocking", headers=world.headers()).json()
    assert counts(computed["result"]) == EXPECTED
    assert (computed["is_cached"], computed["last_refresh"]) == (False, "2026-01-15T12:00:00.000000Z")

    add_events(conn, world.project_id, [("$pageview", "u2", "2026-01-15T09:00:00Z")])  # u2 comes back on the 15th
    clock.advance(minutes=10)
    cached = client.get(url, headers=world.headers()).json()
    assert counts(cached["result"]) == EXPECTED and cached["is_cached"] is True
    listed = client.get(base, headers=world.headers()).json()["results"][0]
    assert counts(listed["result"]) == EXPECTED

    forced = client.get(url + "?refresh=force_blocking", headers=world.headers()).json()
    assert counts(forced["result"]) == [[2, 1, 1], [1, 0], [2]]
    assert forced["last_refresh"] == "2026-01-15T12:10:00.000000Z"


def test_changing_filters_gives_a_new_cache_entry(client, world, views):
    base = f"/api/projects/{world.project_id}/insights/"
    insight_id = client.post(base, json={"filters": RETENTION}, headers=world.headers()).json()["id"]
    client.get(f"{base}{insight_id}/?refresh=blocking", headers=world.headers())
    client.patch(f"{base}{insight_id}/", json={"filters": {**RETENTION, "total_intervals": 2}}, headers=world.headers())
    after = client.get(f"{base}{insight_id}/", headers=world.headers()).json()
    assert after["result"] is None  # the old result belonged to the old filters


def test_a_draft_that_cannot_be_calculated_does_not_break_the_refreshed_list(client, world, views):
    base = f"/api/projects/{world.project_id}/insights/"
    retention = client.post(base, json={"name": "Retention", "filters": RETENTION}, headers=world.headers()).json()
    draft = client.post(base, json={"name": "Draft", "filters": {"insight": "TRENDS"}}, headers=world.headers()).json()

    listed = client.get(base + "?refresh=blocking", headers=world.headers())
    assert listed.status_code == 200, listed.text
    results = {row["name"]: row["result"] for row in listed.json()["results"]}
    assert results["Draft"] is None
    assert counts(results["Retention"]) == EXPECTED
    assert retention["id"] != draft["id"]

    alone = client.get(f"{base}{draft['id']}/?refresh=blocking", headers=world.headers())
    assert (alone.status_code, alone.json()["attr"]) == (400, "events")


def test_insight_kinds_without_an_engine_say_so(client, world):
    base = f"/api/projects/{world.project_id}/insights/"
    sql = client.post(base, json={"filters": {"insight": "SQL"}}, headers=world.headers()).json()
    response = client.get(f"{base}{sql['id']}/?refresh=blocking", headers=world.headers())
    assert (response.status_code, response.json()["code"], response.json()["attr"]) == (400, "unsupported", "insight")
    listed = client.get(base + "?refresh=blocking", headers=world.headers())
    assert listed.status_code == 200 and listed.json()["results"][0]["result"] is None


def test_query_endpoint_matches_the_legacy_retention_endpoint(client, world, views):
    query = {
        "kind": "RetentionQuery",
        "dateRange": {"date_to": "2026-01-15"},
        "retentionFilter": {
            "period": "Day",
            "totalIntervals": 3,
            "targetEntity": {"id": "$pageview", "type": "events"},
        },
    }
    response = client.post(f"/api/projects/{world.project_id}/query/", json={"query": query}, headers=world.headers())
    assert response.status_code == 200, response.text
    assert counts(response.json()["results"]) == EXPECTED
    legacy = client.post(
        f"/api/projects/{world.project_id}/insights/retention/", json=RETENTION, headers=world.headers()
    ).json()
    assert response.json()["results"] == legacy["result"]


def test_async_query_is_polled_to_completion(client, world, views):
    query = {"kind": "InsightVizNode", "source": {"kind": "PathsQuery", "dateRange": {"date_from": "-7d"}}}
    started = client.post(
        f"/api/projects/{world.project_id}/query/",
        json={"query": query, "refresh": "force_async", "client_query_id": "paths-1"},
        headers=world.headers(),
    ).json()
    assert started["results"] is None and started["query_status"]["id"] == "paths-1"
    deadline = time.monotonic() + 10
    while True:
        status = client.get(f"/api/projects/{world.project_id}/query/paths-1/", headers=world.headers()).json()
        if status["query_status"]["complete"] or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert status["query_status"]["complete"] is True and status["query_status"]["error"] is False
    # every person viewed one page per session: no transitions, so no edges
    assert status["query_status"]["results"] == []


@pytest.mark.parametrize(
    "method, path, body, status, attr",
    [
        ("post", "query/", {"query": {"kind": "HogQLQuery"}}, 400, "query"),  # a HogQLQuery needs its SQL
        ("post", "query/", {"query": {"kind": "FunnelsQuery", "series": []}}, 400, "events"),  # no steps
        ("post", "query/", {}, 400, "query"),
        ("get", "query/nope/", None, 404, None),
        ("delete", "query/nope/", None, 404, None),
    ],
)
def test_query_bad_input(client, world, method, path, body, status, attr):
    kwargs = {"headers": world.headers()}
    if body is not None:
        kwargs["json"] = body
    response = getattr(client, method)(f"/api/projects/{world.project_id}/{path}", **kwargs)
    assert response.status_code == status
    assert response.json()["attr"] == attr


def test_query_needs_a_key_with_query_scope(client, world):
    body = {"query": {"kind": "PathsQuery"}}
    assert client.post(f"/api/projects/{world.project_id}/query/", json=body).status_code == 401
    key = world.make_key("insight:read")
    response = client.post(f"/api/projects/{world.project_id}/query/", json=body, headers=world.headers(key))
    assert response.json()["detail"] == "API key missing required scope 'query:read'"
