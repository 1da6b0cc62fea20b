"""Queries that try to leave the project's events and persons: each is a 400 (or 403) envelope, none a row.

The SQL shapes that stay in reach (subquery, join, alias, CTE, union) are answered from this project's rows
only, checked by counting: the other project holds events the counts would include.
"""

from __future__ import annotations

import pytest

from tests.factories import add_events

PATH = "/api/projects/{project}/query/"

ESCAPES = [
    "select * from system.tables",
    "select * from system.one",
    "select name from system.databases",
    "select * from information_schema.tables",
    "select * from sqlite_master",
    "select * from sqlite_schema",
    "select * from main.events",
    "select * from calculations.events",
    "select * from personal_api_keys",
    "select * from users",
    "select * from projects",
    "select * from insights",
    "select * from person_distinct_ids",
    "select * from person_overrides",
    "select * from cohort_people",
    "select * from materialized_columns",
    "select * from events as e join personal_api_keys k on 1 = 1",
    "select * from (select * from users) as u",
    "with t as (select * from projects) select * from t",
    "select event from events union all select email from users",
    "select (select count() from users) from events",
    "select * from events where uuid in (select token from personal_api_keys)",
    "select * from file('/etc/passwd')",
    "select * from url('http://example.com/x', CSV)",
    "select * from remote('localhost', default.events)",
    "select * from s3('http://example.com/x')",
    "select * from cluster('c', default.events)",
    "select * from numbers(10)",
    "select * from mysql('h', 'd', 't', 'u', 'p')",
    "insert into events (event) values ('x')",
    "delete from events where 1 = 1",
    "update events set event = 'x'",
    "drop table events",
    "create table x (a Int64)",
    "alter table events delete where 1 = 1",
    "truncate table events",
    "attach table x",
    "pragma table_info(events)",
    "select 1; drop table events",
    "select event from events settings max_execution_time = 1000",
    "select sleep(3) from events",
    "select load_extension('x') from events",
    "select readfile('/etc/passwd') from events",
    "select currentDatabase()",
    "select version()",
    "select getSetting('max_threads')",
    "select event from events into outfile '/tmp/x'",
    "select event from events format JSON",
    "",
    "select",
    "select * from events where event = 'unterminated",
    "select " + " + ".join(["(1"] * 80) + ")" * 80,
    "select 1 from events " + " ".join(f"join events e{i} on 1 = 1" for i in range(2)) + " where x = {missing}",
    "select " + "a" * 20_001,
    "with __hogql_rows_events__ as (select 1) select * from __hogql_rows_events__",
    "select '__hogql_fragment_0__' from events",
    # toTimeZone's zone is checked against the zone database before any engine sees it
    "select toTimeZone(timestamp, 'UTC'') from system.tables --') from events",
    "select toTimeZone(timestamp, 'UTC\\') from system.tables --') from events",
    "select toTimeZone(timestamp, 'Europe/Berlin'' or 1 = 1') from events",
    "select toTimeZone(timestamp, '../../../etc/passwd') from events",
    "select toTimeZone(timestamp, concat('U', 'TC')) from events",
    # arrays are bounded: elements, nesting and depth
    "select [" + ", ".join(["1"] * 1_001) + "]",
    "select " + "[" * 70 + "1" + "]" * 70,
    "select [[1]]",
    "select has([1], (select count() from users))",
    "select arrayStringConcat(groupArray(token)) from personal_api_keys",
]


@pytest.fixture
def filled(conn, world):
    add_events(
        conn, world.project_id, [("pageview", "a", "2026-01-10T10:00:00Z"), ("signup", "a", "2026-01-11T10:00:00Z")]
    )
    add_events(conn, world.other_project_id, [("pageview", "z", "2026-01-10T10:00:00Z")] * 5)
    return world


def _post(client, world, query, **node):
    body = {"query": {"kind": "HogQLQuery", "query": query, **node}}
    return client.post(PATH.format(project=world.project_id), json=body, headers=world.headers())


def test_there_are_at_least_forty_escapes():
    assert len(ESCAPES) >= 40


@pytest.mark.parametrize("query", ESCAPES, ids=[f"{i:02d}" for i in range(len(ESCAPES))])
def test_each_escape_is_refused_with_an_envelope(client, filled, query):
    response = _post(client, filled, query)
    assert response.status_code in (400, 403), response.text
    body = response.json()
    assert set(body) >= {"type", "code", "detail", "attr"}
    assert "results" not in body


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("select count() from events", 2),
        ("select count() from (select * from events) as t", 2),
        ("select count() from events as persons", 2),
        ("with t as (select event from events) select count() from t", 2),
        ("select count() from (select event from events union all select event from events) as u", 4),
        ("select count() from events e join events f on e.uuid = f.uuid", 2),
        ("select count() from persons", 1),
        ("select countIf(is_identified) from persons", 0),
        ("select length(groupArray(event)) from events", 2),
        ("select count() from events where event in (select event from events)", 2),
    ],
)
def test_shapes_in_reach_read_this_project_only(engine, client, filled, query, expected):
    response = _post(client, filled, query)
    assert response.status_code == 200, response.text
    assert response.json()["results"] == [[expected]]


def test_the_other_project_cannot_be_named_by_the_key_scoped_elsewhere(client, filled):
    key = filled.make_key("query:read", projects=[filled.other_project_id])
    body = {"query": {"kind": "HogQLQuery", "query": "select count() from events"}}
    response = client.post(PATH.format(project=filled.project_id), json=body, headers=filled.headers(key))
    assert response.status_code == 403


def test_query_read_scope_is_needed(client, filled):
    key = filled.make_key("insight:read")
    body = {"query": {"kind": "HogQLQuery", "query": "select count() from events"}}
    response = client.post(PATH.format(project=filled.project_id), json=body, headers=filled.headers(key))
    assert response.status_code == 403


def test_a_value_is_bound_not_pasted(client, filled):
    response = _post(client, filled, "select count() from events where event = {name}", values={"name": "x' or '1'='1"})
    assert response.status_code == 200, response.text
    assert response.json()["results"] == [[0]]


def test_a_node_field_not_acted_on_is_a_400(client, filled):
    response = _post(client, filled, "select 1", modifiers={"personsOnEventsMode": "x"})
    assert response.status_code == 400
    assert response.json()["attr"] == "modifiers"
