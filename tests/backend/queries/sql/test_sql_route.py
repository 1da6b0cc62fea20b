"""``POST /api/projects/:id/query/`` with a HogQLQuery node: the body the toolkit reads, over HTTP."""

from __future__ import annotations

import pytest

from tests.factories import add_events

PATH = "/api/projects/{project}/query/"


@pytest.fixture
def filled(conn, world):
    add_events(
        conn, world.project_id, [("pageview", "a", "2026-01-10T10:00:00Z"), ("signup", "a", "2026-01-11T10:00:00Z")]
    )
    return world


def _post(client, world, node):
    return client.post(PATH.format(project=world.project_id), json={"query": node}, headers=world.headers())


def test_the_body_has_every_key_of_the_contract(client, filled):
    node = {"kind": "HogQLQuery", "query": "select event, count() as c from events group by event order by event"}
    response = _post(client, filled, node)
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"results", "columns", "types", "hogql", "clickhouse", "sqlite", "limit", "offset",
                         "hasMore", "is_cached", "timezone", "error"}  # fmt: skip
    assert body["results"] == [["pageview", 1], ["signup", 1]]
    assert body["columns"] == ["event", "c"]
    assert body["types"] == [["event", "String"], ["c", "UInt64"]]
    assert body["hogql"].endswith("LIMIT 100")
    assert body["sqlite"] and body["clickhouse"] is None
    assert (body["limit"], body["offset"], body["hasMore"], body["is_cached"]) == (100, 0, False, False)
    assert body["timezone"] == "UTC" and body["error"] is None


def test_the_node_limit_pages_and_says_has_more(client, filled):
    body = _post(
        client, filled, {"kind": "HogQLQuery", "query": "select event from events order by timestamp", "limit": 1}
    ).json()
    assert body["results"] == [["pageview"]] and body["hasMore"] is True and body["limit"] == 1


@pytest.mark.parametrize(
    ("node", "attr"),
    [
        ({"kind": "HogQLQuery", "query": "select 1", "limit": 50_001}, "limit"),
        ({"kind": "HogQLQuery", "query": "select 1", "limit": 0}, "limit"),
        ({"kind": "HogQLQuery", "query": "select 1", "explain": True}, "explain"),
        ({"kind": "HogQLQuery", "query": 7}, "query"),
        ({"kind": "HogQLQuery", "query": "select {a}", "values": {"a": [1]}}, "values"),
        ({"kind": "HogQLQuery", "query": "select nosuch(1)"}, "query"),
    ],
)
def test_bad_nodes_are_400s_naming_the_field(client, filled, node, attr):
    response = _post(client, filled, node)
    assert response.status_code == 400, response.text
    assert response.json()["attr"].endswith(attr)


@pytest.mark.parametrize(
    "query, named",
    [
        ("select hasAny([1], [2]) from events", "hasany"),
        ("select arrayMap(x -> x, [1, 2]) from events", "arraymap"),
        ("select sqrt(4) from events", "sqrt"),
    ],
)
def test_a_function_not_supported_is_a_400_naming_it_and_where(client, filled, query, named):
    response = _post(client, filled, {"kind": "HogQLQuery", "query": query})
    assert response.status_code == 400, response.text
    detail = response.json()["detail"]
    assert named in detail.lower().replace("_", "") and "line 1" in detail.lower(), detail
