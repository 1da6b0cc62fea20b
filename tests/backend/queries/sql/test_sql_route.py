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


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("select [1, 'a']", "share one type"),
        ("select [[1], [2]]", "arrays of arrays"),
        ("select groupArray([1]) from events", "arrays of arrays"),
        ("select has(['a'], 1)", "cannot be compared"),
        ("select indexOf([1], 'a')", "cannot be compared"),
        ("select has(event, 'a') from events", "reads an array"),
        ("select arraySort(event) from events", "reads an array"),
        ("select event[1] from events", "brackets read"),
        ("select [1, 2][1.5]", "whole number"),
        ("select [1] = [1]", "not compared"),
        ("select groupArray(event) as a from events order by a", "not compared"),
        ("select length([1]) + [1]", "not compared"),
        ("select splitByChar(', ', event) from events", "one character"),
        ("select splitByChar(',', event, 2) from events", "a separator and a text"),
        ("select splitByChar(',', 5)", "splits a text"),
        ("select arrayStringConcat([1, 2])", "array of text"),
        ("select arrayStringConcat(['a'], event) from events", "separator"),
        ("select empty(5)", "array or a text"),
        ("select [1] as x union all select 'abc' as x", "no array"),
        ("select if(1 = 1, [1], [2])", "not compared"),
        ("select groupArray(distinct event) from events", "distinct"),
        ("select groupArray(NULL) from events", "grouparray of null"),
        ("select groupArray(event) over () from events", "window"),
        ("select toTimeZone(timestamp, 'Mars/Olympus') from events", "unknown time zone 'mars/olympus'"),
        ("select toTimeZone(timestamp, {zone}) from events", "written in the query"),
        ("select toTimeZone(event, 'UTC') from events", "reads a datetime"),
        ("select dateDiff('day', toTimeZone(timestamp, 'UTC'), timestamp) from events", "datediff"),
        ("select toTimeZone(timestamp, 'UTC') + interval 1 day from events", "interval"),
        ("select toString(toTimeZone(timestamp, 'UTC')) from events", "tostring"),
        ("select toDateTime(toTimeZone(timestamp, 'UTC')) from events", "todatetime"),
    ],
)
def test_array_and_zone_misuse_is_a_400_saying_why(client, filled, query, said):
    node = {"kind": "HogQLQuery", "query": query, "values": {"zone": "UTC"} if "{zone}" in query else {}}
    response = _post(client, filled, node)
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["attr"] == "query" and said in body["detail"].lower(), body["detail"]


def test_is_identified_is_true_for_a_person_an_identify_event_named(engine, client, world):
    # anon-1's person becomes user-1's by $identify and is identified; anon-2 only viewed a page
    batch = [
        {"event": "$identify", "distinct_id": "user-1", "properties": {"$anon_distinct_id": "anon-1"}},
        {"event": "$pageview", "distinct_id": "anon-2", "properties": {}},
    ]
    captured = client.post("/batch/", json={"api_key": world.project_token, "batch": batch})
    assert captured.status_code == 200, captured.text
    node = {
        "kind": "HogQLQuery",
        "query": "select is_identified, count() from persons group by is_identified order by is_identified",
    }
    body = _post(client, world, node).json()
    assert body["results"] == [[False, 1], [True, 1]], body
    assert body["types"][0] == ["is_identified", "Bool"]


def test_a_qualified_star_is_the_columns_of_the_table_it_names(engine, client, filled):
    """``e.*`` answers what ``*`` answers over the same table, each value under its own name; beside a join,
    ``p.*`` is the person's columns."""
    plain = _post(client, filled, {"kind": "HogQLQuery", "query": "select * from events order by timestamp"}).json()
    named = _post(
        client, filled, {"kind": "HogQLQuery", "query": "select e.* from events e order by e.timestamp"}
    ).json()
    assert named["columns"] == plain["columns"] == [
        "uuid", "event", "properties", "timestamp", "distinct_id", "elements_chain", "created_at"
    ]  # fmt: skip
    assert named["results"] == plain["results"]
    assert [row[1] for row in named["results"]] == ["pageview", "signup"]
    assert [row[4] for row in named["results"]] == ["a", "a"]
    joined = _post(
        client,
        filled,
        {
            "kind": "HogQLQuery",
            "query": "select e.event, p.* from events e join persons p on e.person_id = p.id order by e.timestamp",
        },
    ).json()
    assert joined["columns"] == ["event", "id", "created_at", "properties", "is_identified"], joined
    assert [row[0] for row in joined["results"]] == ["pageview", "signup"]
    person_ids = {row[1] for row in joined["results"]}
    assert len(person_ids) == 1 and person_ids != {None}  # both events are a's


def test_a_star_naming_no_table_of_the_query_is_a_400(client, filled):
    response = _post(client, filled, {"kind": "HogQLQuery", "query": "select x.* from events e"})
    assert response.status_code == 400, response.text
    assert "x.*" in response.json()["detail"] and response.json()["attr"].endswith("query")


@pytest.mark.parametrize(
    ("query", "columns", "rows"),
    [
        (
            "select * from (select properties.$browser, count() from events group by properties.$browser) as t",
            ["$browser", "count()"],
            [["Chrome", 1]],
        ),
        # the toolkit's page of a query with a LIMIT of its own
        (
            "select * from (select p.properties.email from persons p limit 10) as t limit 5 offset 0",
            ["email"],
            [["a@x.com"]],
        ),
        ("with c as (select count() + 1 from events) select * from c", ["count() + 1"], [[2]]),
        (
            "select * from (select properties.$browser from events union all select 'x') order by 1",
            ["$browser"],
            [["Chrome"], ["x"]],
        ),
    ],
)
def test_a_star_over_unnamed_expressions_answers_their_values(engine, client, world, conn, query, columns, rows):
    """A star over a subquery or CTE whose columns are expressions without a name (a property, an aggregate)
    answers each expression's value under its name, on every engine."""
    add_events(conn, world.project_id, [("purchase", "a", "2026-01-10T10:00:00Z", {"$browser": "Chrome"})],
               persons={"a": {"email": "a@x.com"}})  # fmt: skip
    body = _post(client, world, {"kind": "HogQLQuery", "query": query}).json()
    assert (body["columns"], body["results"]) == (columns, rows), body
