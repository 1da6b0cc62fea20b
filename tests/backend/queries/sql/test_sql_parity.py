"""Analyst queries in HogQL, each answered by SQLite and by ClickHouse with the rows worked out here by hand.

The events, written once for the module (Europe/Berlin project, UTC+1 in January; the clock at
2026-01-15 12:00 UTC = 13:00 local):

=====  =========  ===  ======================  ===============================================
 #     event      who  timestamp (UTC)         properties
=====  =========  ===  ======================  ===============================================
 1     pageview   a    2026-01-10 23:30        $browser Chrome, amount 10, $session_id s1
 2     pageview   a    2026-01-11 10:00        $browser Chrome, amount 5,  $session_id s1
 3     pageview   b    2026-01-11 12:00        $browser Safari, amount 20
 4     signup     b    2026-01-12 09:00        plan pro
 5     pageview   c    2026-01-14 18:00        $browser Firefox, amount 1
 6     purchase   a    2026-01-15 11:00        amount 30, plan pro
=====  =========  ===  ======================  ===============================================

Persons: a (email a@x.com), b (email b@y.org), c (no properties). Groups of type 0: acme (name Acme) and
globex (no properties), both created 2026-01-01 00:00 UTC. Event 1 is on 2026-01-11 local time.
A second project holds three pageviews that no answer may count.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from local_backend.queries.sql import read_hogql_node, run_hogql_query
from local_backend.store.engine.choice import open_database
from local_backend.store.migrations import migrate
from local_backend.store.projects import create_project
from tests.backend.store.clickhouse.mirror import MirroredEngine, SwitchedEngine, chdb_client, release_database
from tests.factories import NOW, add_events

EVENTS = [
    ("pageview", "a", "2026-01-10T23:30:00Z", {"$browser": "Chrome", "amount": 10, "$session_id": "s1"}),
    ("pageview", "a", "2026-01-11T10:00:00Z", {"$browser": "Chrome", "amount": 5, "$session_id": "s1"}),
    ("pageview", "b", "2026-01-11T12:00:00Z", {"$browser": "Safari", "amount": 20}),
    ("signup", "b", "2026-01-12T09:00:00Z", {"plan": "pro"}),
    ("pageview", "c", "2026-01-14T18:00:00Z", {"$browser": "Firefox", "amount": 1}),
    ("purchase", "a", "2026-01-15T11:00:00Z", {"amount": 30, "plan": "pro"}),
]
PERSONS = {"a": {"email": "a@x.com"}, "b": {"email": "b@y.org"}}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, SwitchedEngine, dict[str, Any]]]:
    path: Path = tmp_path_factory.mktemp("sql") / "parity.db"
    migrate(path)
    client = chdb_client()
    engine = SwitchedEngine(MirroredEngine(client))
    conn = open_database(path, engine)
    project = create_project(conn, name="Shop", timezone="Europe/Berlin", now="2026-01-01T00:00:00Z")
    other = create_project(conn, name="Other", timezone="UTC", now="2026-01-01T00:00:00Z")
    add_events(conn, project["id"], EVENTS, persons=PERSONS)
    for project_id, key, name in (
        (project["id"], "acme", "Acme"),
        (project["id"], "globex", None),
        (other["id"], "z", "Z"),
    ):
        properties = json.dumps({"name": name} if name else {})
        conn.execute(
            "INSERT INTO groups (project_id, group_type_index, group_key, properties, created_at)"
            " VALUES (?, 0, ?, ?, ?)",
            (project_id, key, properties, 1_767_225_600_000_000),  # 2026-01-01 00:00 UTC
        )
    conn.execute(
        "UPDATE persons SET is_identified = 1 WHERE project_id = ? AND id IN"
        " (SELECT person_id FROM person_distinct_ids WHERE distinct_id = 'a')",
        (project["id"],),
    )
    conn.commit()
    add_events(conn, other["id"], [("pageview", "z", "2026-01-11T10:00:00Z", {"$browser": "Chrome"})] * 3)
    yield conn, engine, project
    conn.close()
    release_database(client)


@pytest.fixture(params=["sqlite", "chdb"])
def ask(request: pytest.FixtureRequest, world):
    conn, engine, project = world
    engine.on_clickhouse = request.param == "chdb"

    def run(query: str, **node: Any) -> dict[str, Any]:
        return run_hogql_query(conn, project, read_hogql_node({"kind": "HogQLQuery", "query": query, **node}), NOW)

    yield run
    engine.on_clickhouse = False


BERLIN = "DateTime64(6, 'Europe/Berlin')"
CASES: list[tuple[str, list[list[Any]]]] = [
    ("select count() from events", [[6]]),
    ("select count(*) from events", [[6]]),
    (
        "select event, count() as c from events group by event order by c desc, event",
        [["pageview", 4], ["purchase", 1], ["signup", 1]],
    ),
    ("select count() from events where event = 'pageview'", [[4]]),
    ("select countIf(event = 'pageview') as views, countIf(event != 'pageview') as other from events", [[4, 2]]),
    ("select uniq(distinct_id) from events", [[3]]),
    ("select uniqExact(person_id) from events", [[3]]),
    ("select count(distinct event) from events", [[3]]),
    (
        "select properties.$browser as b, count() as c from events where b is not null group by b order by b",
        [["Chrome", 2], ["Firefox", 1], ["Safari", 1]],
    ),
    ("select properties['$browser'] from events where event = 'purchase'", [[None]]),
    (
        "select person.properties.email as email, count() as c from events group by email order by email",
        [["a@x.com", 3], ["b@y.org", 2], [None, 1]],
    ),
    ("select distinct_id from events where person.properties.email like '%@y.org' limit 1", [["b"]]),
    ("select sum(toFloat(properties.amount)) from events", [[66.0]]),
    ("select avg(toFloat(properties.amount)) from events where event = 'pageview'", [[9.0]]),
    ("select min(toFloat(properties.amount)), max(toFloat(properties.amount)) from events", [[1.0, 30.0]]),
    (
        "select toDate(timestamp) as d, count() as c from events group by d order by d",
        [["2026-01-11", 3], ["2026-01-12", 1], ["2026-01-14", 1], ["2026-01-15", 1]],
    ),
    ("select toStartOfDay(timestamp) as d from events order by timestamp limit 1", [["2026-01-11T00:00:00+01:00"]]),
    ("select toStartOfHour(timestamp) from events order by timestamp limit 1", [["2026-01-11T00:00:00+01:00"]]),
    ("select timestamp from events order by timestamp limit 1", [["2026-01-11T00:30:00+01:00"]]),
    ("select toStartOfWeek(timestamp) as w, count() from events group by w order by w", [["2026-01-11", 6]]),
    ("select toStartOfMonth(timestamp) as m, count() from events group by m", [["2026-01-01", 6]]),
    ("select count() from events where timestamp >= '2026-01-12'", [[3]]),
    ("select count() from events where timestamp < '2026-01-11 01:00:00'", [[1]]),
    ("select count() from events where timestamp > now() - interval 1 day", [[2]]),
    # after 2026-01-12 13:00 local: events 5 and 6 (event 4 was at 10:00 local)
    ("select count() from events where timestamp > now() - interval 3 day", [[2]]),
    ("select count() from events where toDate(timestamp) = today()", [[1]]),
    ("select dateDiff('day', min(timestamp), max(timestamp)) from events", [[4]]),
    # 00:30 on the 11th to 12:00 on the 15th, local: 4 days and 12 hour boundaries
    ("select dateDiff('hour', min(timestamp), max(timestamp)) from events", [[108]]),
    ("select distinct event from events order by event", [["pageview"], ["purchase"], ["signup"]]),
    ("select event from events order by timestamp desc limit 2", [["purchase"], ["pageview"]]),
    ("select event from events order by timestamp limit 2 offset 2", [["pageview"], ["signup"]]),
    ("select event, count() as c from events group by event having c > 1", [["pageview", 4]]),
    ("select count() from (select distinct_id from events group by distinct_id having count() >= 2) as t", [[2]]),
    ("with views as (select distinct_id from events where event = 'pageview') select count() from views", [[4]]),
    (
        "select * from (select event, count() as c from events group by event) as t order by c desc limit 1",
        [["pageview", 4]],
    ),
    ("select count() from (select event from events union all select event from events) as u", [[12]]),
    (
        "select if(event = 'pageview', 'view', 'other') as k, count() from events group by k order by k",
        [["other", 2], ["view", 4]],
    ),
    (
        "select multiIf(event = 'pageview', 1, event = 'signup', 2, 3) as k from events order by timestamp",
        [[1], [1], [1], [2], [1], [3]],
    ),
    (
        "select coalesce(properties.plan, 'free') as plan, count() from events group by plan order by plan",
        [["free", 4], ["pro", 2]],
    ),
    ("select ifNull(properties.plan, 'none') from events where event = 'signup'", [["pro"]]),
    (
        "select lower(properties.$browser), upper(event) from events where event = 'pageview'"
        " order by timestamp limit 1",
        [["chrome", "PAGEVIEW"]],
    ),
    ("select concat(event, '-', distinct_id) from events order by timestamp limit 1", [["pageview-a"]]),
    ("select substring(event, 1, 4), length(event) from events where event = 'signup'", [["sign", 6]]),
    ("select trim('  x  ')", [["x"]]),
    ("select 'it''s', length('a\\\\b')", [["it's", 3]]),  # HogQL's 'a\\b' is a, a backslash, b
    ("select count() from events where properties['it''s'] is null", [[6]]),
    ("select count() from events where event ilike 'PAGE%'", [[4]]),
    ("select count() from events where event like 'page%'", [[4]]),
    ("select count() from events where match(event, '^(sign|purch)')", [[2]]),
    ("select round(avg(toFloat(properties.amount)), 1) from events", [[13.2]]),
    ("select floor(toFloat(properties.amount) / 3) from events where event = 'purchase'", [[10.0]]),
    ("select count() from events where event in ('signup', 'purchase')", [[2]]),
    ("select count() from events where toFloat(properties.amount) between 5 and 20", [[3]]),
    ("select count() from events where event = 'pageview' and (distinct_id = 'a' or distinct_id = 'c')", [[3]]),
    ("select count() from events where not (event = 'pageview')", [[2]]),
    ("select count() from persons", [[3]]),
    ("select count() from persons where properties.email is not null", [[2]]),
    ("select count() from events e join persons p on e.person_id = p.id where p.properties.email = 'a@x.com'", [[3]]),
    ("select key, properties.name from groups where index = 0 order by key", [["acme", "Acme"], ["globex", None]]),
    ("select count(), min(created_at) from groups", [[2, "2026-01-01T01:00:00+01:00"]]),
    ("select $session_id as s, count() from events where s is not null group by s", [["s1", 2]]),
    ("select count() from events where event = {name}", [[4]]),
    ("select median(toFloat(properties.amount)) from events where event = 'pageview'", [[7.5]]),
    ("select quantile(0.5)(toFloat(properties.amount)) from events where event = 'pageview'", [[7.5]]),
    ("select toString(count()) from events", [["6"]]),
    ("select toInt(properties.amount) + 1 from events where event = 'purchase'", [[31]]),
    (
        "select event, row_number() over (order by timestamp) as n from events order by n limit 2",
        [["pageview", 1], ["pageview", 2]],
    ),
    # arrays: groupArray's order is the order rows are read, so answers sort or measure it
    ("select [1, 2, 3], ['a'], []", [[[1, 2, 3], ["a"], []]]),
    ("select arraySort(groupArray(distinct_id)) from events where event = 'pageview'", [[["a", "a", "b", "c"]]]),
    (
        "select event, length(groupArray(distinct_id)) as n from events group by event order by event",
        [["pageview", 4], ["purchase", 1], ["signup", 1]],
    ),
    ("select count() from events where has(['signup', 'purchase'], event)", [[2]]),
    (
        "select indexOf(['a', 'b', 'c'], distinct_id) as i, count() from events group by i order by i",
        [[1, 3], [2, 2], [3, 1]],
    ),
    ("select indexOf(['a'], event) from events limit 1", [[0]]),
    # 1-based; -1 is the last; out of range gives the element type's default (0, '')
    ("select [10, 20, 30][1], [10, 20, 30][-1], [10, 20, 30][4], [10, 20, 30][0], ['x'][2]", [[10, 30, 0, 0, ""]]),
    # a NULL index (a missing property) is out of range too; the empty array holds no value
    ("select [1, 2][toInt(properties.nothing)], has([], 1), indexOf([], 1) from events limit 1", [[0, False, 0]]),
    ("select splitByChar('@', person.properties.email) from events where event = 'signup'", [[["b", "y.org"]]]),
    (
        "select splitByChar('@', person.properties.email), splitByChar(',', 'a,,b') from events"
        " where distinct_id = 'c'",
        [[[], ["a", "", "b"]]],
    ),
    (
        "select arrayStringConcat(arraySort(groupArray(event)), '-') from events where distinct_id = 'b'",
        [["pageview-signup"]],
    ),
    ("select arrayStringConcat(['x', properties.plan, 'y']) from events where event = 'pageview' limit 1", [["xy"]]),
    (
        "select empty(groupArray(properties.plan)), notEmpty(groupArray(properties.$browser)) from events"
        " where event = 'signup'",
        [[False, False]],
    ),
    ("select length('abc'), length([1, 2]), empty(''), notEmpty('x'), empty([])", [[3, 2, True, True, True]]),
    (
        "select distinct_id, arraySort(groupArray(toFloat(properties.amount))) as amounts from events"
        " group by distinct_id order by distinct_id",
        [["a", [5.0, 10.0, 30.0]], ["b", [20.0]], ["c", [1.0]]],
    ),
    (
        "select countIf(has(evs, 'signup')) from"
        " (select distinct_id, groupArray(event) as evs from events group by distinct_id) as t",
        [[1]],
    ),
    ("select groupArray(event)[1] from events where distinct_id = 'c'", [["pageview"]]),
    # equal arrays group together whichever function made them (on SQLite: the same JSON text); 'b' sorts first
    (
        "select x, count() from (select ['b', 'ä'] as x union all select splitByChar(',', 'b,ä') as x"
        " union all select arraySort(['ä', 'b']) as x) as u group by x",
        [[["b", "ä"], 3]],
    ),
    # toTimeZone: the same moment shown in another zone (event 1 is 2026-01-10 23:30 UTC)
    ("select toTimeZone(timestamp, 'UTC') from events order by timestamp limit 1", [["2026-01-10T23:30:00+00:00"]]),
    (
        "select toTimeZone(timestamp, 'America/New_York') from events order by timestamp limit 1",
        [["2026-01-10T18:30:00-05:00"]],
    ),
    (
        "select toDate(toTimeZone(timestamp, 'UTC')) as d, count() from events group by d order by d",
        [["2026-01-10", 1], ["2026-01-11", 2], ["2026-01-12", 1], ["2026-01-14", 1], ["2026-01-15", 1]],
    ),
    (
        "select toStartOfDay(toTimeZone(timestamp, 'Asia/Tokyo')) from events order by timestamp limit 1",
        [["2026-01-11T00:00:00+09:00"]],
    ),
    (
        "select toStartOfHour(toTimeZone(timestamp, 'Asia/Kolkata')) from events order by timestamp limit 1",
        [["2026-01-11T05:00:00+05:30"]],
    ),
    # the text is read in the value's zone: 10:30 UTC leaves out event 2 (10:00 UTC)
    ("select count() from events where toTimeZone(timestamp, 'UTC') >= '2026-01-11 10:30:00'", [[4]]),
    # an alias of a time compares with a text as the time itself does (SQLite compared the text with a number)
    (
        "select toTimeZone(timestamp, 'UTC') as t from events where t < '2026-01-11 00:00:00'",
        [["2026-01-10T23:30:00+00:00"]],
    ),
    ("select count() from (select timestamp as t from events where t < '2026-01-11 01:00:00') as s", [[1]]),
    (
        "select has([1, NULL], NULL), indexOf([1, NULL], NULL), [1, NULL][5], groupArray(timestamp)[3] from events"
        " where event = 'signup'",
        [[True, 2, None, None]],
    ),
    # in UTC event 1 is on Saturday the 10th: the week from Sunday the 4th
    (
        "select toStartOfWeek(toTimeZone(timestamp, 'UTC')) as w, count() from events group by w order by w",
        [["2026-01-04", 1], ["2026-01-11", 5]],
    ),
    (
        "select dateTrunc('day', toTimeZone(timestamp, 'UTC')) from events order by timestamp limit 1",
        [["2026-01-10T00:00:00+00:00"]],
    ),
    (
        "select arraySort(groupArray(toTimeZone(timestamp, 'UTC'))) from events where distinct_id = 'b'",
        [[["2026-01-11T12:00:00+00:00", "2026-01-12T09:00:00+00:00"]]],
    ),
    # person a is identified (the module's world)
    ("select countIf(is_identified), count() from persons", [[1, 3]]),
    (
        "select properties.email, is_identified from persons order by properties.email",
        [["a@x.com", True], ["b@y.org", False], [None, False]],
    ),
]


def _ids() -> list[str]:
    return [f"{index:02d}" for index in range(len(CASES))]


def test_the_suite_has_at_least_fifty_queries():
    assert len(CASES) >= 50


@pytest.mark.parametrize(("query", "expected"), CASES, ids=_ids())
def test_rows(ask, query, expected):
    answer = ask(query, values={"name": "pageview"} if "{name}" in query else {})
    assert answer["results"] == expected


def test_the_answer_has_posthogs_shape_and_types(ask):
    answer = ask(
        "select event, count() as c, min(timestamp) as first, toDate(min(timestamp)) as d"
        " from events group by event order by event"
    )
    assert answer["columns"] == ["event", "c", "first", "d"]
    assert answer["types"] == [["event", "String"], ["c", "UInt64"], ["first", BERLIN], ["d", "Date"]]
    assert answer["results"][0] == ["pageview", 4, "2026-01-11T00:30:00+01:00", "2026-01-11"]
    assert answer["limit"] == 100 and answer["offset"] == 0 and answer["hasMore"] is False
    assert answer["timezone"] == "Europe/Berlin" and answer["is_cached"] is False and answer["error"] is None
    assert answer["hogql"].endswith("LIMIT 100")
    ran = [key for key in ("sqlite", "clickhouse") if answer[key]]
    assert len(ran) == 1


def test_types_come_through_subqueries_and_ctes(ask):
    answer = ask(
        "with t as (select timestamp as ts, toDate(timestamp) as d from events)"
        " select * from (select ts, d from t) as s order by ts limit 1"
    )
    assert answer["types"] == [["ts", BERLIN], ["d", "Date"]]
    assert answer["results"] == [["2026-01-11T00:30:00+01:00", "2026-01-11"]]


def test_star_from_events_is_posthogs_event_columns(ask):
    answer = ask("select * from events order by timestamp limit 1")
    assert answer["columns"] == [
        "uuid",
        "event",
        "properties",
        "timestamp",
        "distinct_id",
        "elements_chain",
        "created_at",
    ]


def test_has_more_says_whether_rows_are_left(ask):
    assert ask("select event from events", limit=5)["hasMore"] is True
    assert ask("select event from events", limit=6)["hasMore"] is False
    assert ask("select event from events limit 3", limit=5)["hasMore"] is False
    # the query's own LIMIT stands over the default of 100 rows and the node's limit, as in PostHog
    own = ask("select event from events limit 4", limit=2)
    assert (len(own["results"]), own["limit"], own["hasMore"]) == (4, 4, False)
    paged = ask("select * from (select event, timestamp from events order by timestamp) as t limit 2 offset 4")
    assert [row[0] for row in paged["results"]] == ["pageview", "purchase"]
    assert paged["offset"] == 4


@pytest.mark.parametrize(
    ("since", "count"),
    # local (Berlin) times: event 4 is at 10:00 on the 12th, events 5 and 6 later
    [("2026-01-12", 3), ("2026-01-12 10:30:00", 2), ("2026-01-16", 0)],
)
def test_a_placeholder_compared_with_a_time_reads_as_a_time_in_the_project_zone(ask, since, count):
    answer = ask("select count() from events where timestamp >= {since}", values={"since": since})
    assert answer["results"] == [[count]]
    between = ask(
        "select count() from events where timestamp between {since} and '2026-01-31'", values={"since": since}
    )
    assert between["results"] == [[count]]


def test_to_int_and_to_float_of_text_that_is_no_number_are_null(ask):
    # ClickHouse's OrNull readings: a whole-number text for toInt (a whole float counts), any number for toFloat
    ints = ask("select toInt('12'), toInt('-7'), toInt('2.5'), toInt('abc'), toInt('12abc'), toInt(2.5), toInt(5.0)"
               " from events limit 1")  # fmt: skip
    assert ints["results"] == [[12, -7, None, None, None, None, 5]]
    floats = ask("select toFloat('2.5'), toFloat('abc'), toFloat('1e3'), toFloat(7), toFloat('')"
                 " from events limit 1")  # fmt: skip
    assert floats["results"] == [[2.5, None, 1000.0, 7.0, None]]
    plans = ask("select toInt(properties.plan), toFloat(properties.amount) from events where event = 'signup'")
    assert plans["results"] == [[None, None]]


def test_arrays_and_zones_are_typed_as_clickhouse_types_them(ask):
    answer = ask(
        "select [1, 2.5] as n, ['a', properties.plan] as p, toTimeZone(timestamp, 'Asia/Tokyo') as t,"
        " splitByChar(',', event) as s, has([1], 1) as h, indexOf([1], 1) as i, ['x'][1] as x"
        " from events order by timestamp limit 1"
    )
    assert answer["types"] == [
        ["n", "Array(Float64)"],
        ["p", "Array(Nullable(String))"],
        ["t", "DateTime64(6, 'Asia/Tokyo')"],
        ["s", "Array(String)"],
        ["h", "Bool"],
        ["i", "UInt64"],
        ["x", "String"],
    ]
    # event 1, 2026-01-10 23:30 UTC, is 08:30 the next morning in Tokyo
    assert answer["results"] == [[[1.0, 2.5], ["a", None], "2026-01-11T08:30:00+09:00", ["pageview"], True, 1, "x"]]
    times = ask("select groupArray(timestamp) as ts from events where event = 'signup'")
    assert times["types"] == [["ts", f"Array({BERLIN})"]]
    assert times["results"] == [[["2026-01-12T10:00:00+01:00"]]]


def test_an_array_read_again_by_its_alias_is_an_array(ask):
    answer = ask(
        "select distinct_id, groupArray(event) as evs from events group by distinct_id"
        " having has(evs, 'purchase') order by distinct_id"
    )
    assert [row[0] for row in answer["results"]] == ["a"]
    assert sorted(answer["results"][0][1]) == ["pageview", "pageview", "purchase"]
