"""HogQL reads that ClickHouse answers from what it stores beside the JSON: hot property columns, the person
joined only for a query that reads it (after merges), and persons grouped by their ids.

Hot values (a UTC project, on both engines): ``$browser`` as the events hold it, read as HogQL reads a property
(text as it is, ``true``/``false``, numbers as SQLite prints them, arrays as minified JSON, NULL for null or
missing):

===  ====================  ==================  ==============
 #   timestamp (UTC)       $browser (JSON)     read
===  ====================  ==================  ==============
 1   2026-01-10 10:00      "Chrome"            Chrome
 2   2026-01-10 11:00      true                true
 3   2026-01-10 12:00      1.5                 1.5
 4   2026-01-10 13:00      2.0                 2.0
 5   2026-01-10 14:00      7                   7
 6   2026-01-10 15:00      null                NULL
 7   2026-01-10 16:00      (missing)           NULL
 8   2026-01-10 17:00      ["a", 1]            ["a",1]
===  ====================  ==================  ==============

Merges (ClickHouse, whose events keep the person they were written with; an override row maps davy's person
to dave's):

===  ====  ==================  ===================
 #   who   timestamp (UTC)     person after merges
===  ====  ==================  ===================
 1   dave  2026-01-10 09:00    dave (d@x.com)
 2   davy  2026-01-11 09:00    dave (d@x.com)
 3   erin  2026-01-11 10:00    erin (no email)
===  ====  ==================  ===================

Grouped by person (both engines; ClickHouse groups by the person's id and names each group's uuid after the
grouping): in the shop, ann sends three events, bob and cyd one each, and bob's and cyd's person rows are deleted
afterwards (one NULL person of two events). The other project's zoe, made after, takes bob's freed person id:
her two events are never the shop's, nor is the shop's NULL person her:

=======  ===  ========  ==================
project  who  event     person
=======  ===  ========  ==================
shop     ann  pageview  ann
shop     ann  pageview  ann
shop     ann  signup    ann
shop     bob  pageview  NULL (row deleted)
shop     cyd  signup    NULL (row deleted)
other    zoe  pageview  zoe
other    zoe  pageview  zoe
=======  ===  ========  ==================
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from local_backend.queries.sql import read_hogql_node, run_hogql_query
from local_backend.store.engine.choice import open_database
from local_backend.store.migrations import migrate
from local_backend.store.projects import create_project
from tests.backend.store.clickhouse.mirror import (
    MirroredEngine,
    MovedEngine,
    SwitchedEngine,
    chdb_client,
    insert_rows,
    release_database,
)
from tests.factories import NOW, add_events

BROWSERS = ["Chrome", True, 1.5, 2.0, 7, None, "missing", ["a", 1]]
HOT_EVENTS = [
    ("pageview", "a", f"2026-01-10T{10 + i}:00:00Z", {} if value == "missing" else {"$browser": value})
    for i, value in enumerate(BROWSERS)
]
GROUPED_EVENTS = [
    ("pageview", "ann", "2026-01-10T09:00:00Z"),
    ("pageview", "ann", "2026-01-10T10:00:00Z"),
    ("signup", "ann", "2026-01-10T11:00:00Z"),
    ("pageview", "bob", "2026-01-11T09:00:00Z"),
    ("signup", "cyd", "2026-01-11T10:00:00Z"),
]
OTHER_EVENTS = [("pageview", "zoe", "2026-01-12T09:00:00Z"), ("pageview", "zoe", "2026-01-12T10:00:00Z")]
MERGED_EVENTS = [
    ("pageview", "dave", "2026-01-10T09:00:00Z"),
    ("pageview", "davy", "2026-01-11T09:00:00Z"),
    ("pageview", "erin", "2026-01-11T10:00:00Z"),
]


def _run(conn: Any, project: dict[str, Any], query: str) -> dict[str, Any]:
    return run_hogql_query(conn, project, read_hogql_node({"kind": "HogQLQuery", "query": query}), NOW)


@pytest.fixture(scope="module")
def hot_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, SwitchedEngine, dict[str, Any]]]:
    path: Path = tmp_path_factory.mktemp("sql") / "hot.db"
    migrate(path)
    client = chdb_client()
    engine = SwitchedEngine(MirroredEngine(client))
    conn = open_database(path, engine)
    project = create_project(conn, name="Shop", timezone="UTC", now="2026-01-01T00:00:00Z")
    add_events(conn, project["id"], HOT_EVENTS)
    conn.commit()
    yield conn, engine, project
    conn.close()
    release_database(client)


@pytest.fixture(params=["sqlite", "chdb"])
def ask(request: pytest.FixtureRequest, hot_world):
    conn, engine, project = hot_world
    engine.on_clickhouse = request.param == "chdb"
    yield lambda query: _run(conn, project, query)["results"]
    engine.on_clickhouse = False


READS = [["Chrome"], ["true"], ["1.5"], ["2.0"], ["7"], [None], [None], ['["a",1]']]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("select properties.$browser from events order by timestamp", READS),
        ("select e.properties['$browser'] from events as e order by e.timestamp", READS),
        # read from a subquery's properties and from a CTE's: the JSON read, the same values
        ("select properties.$browser from (select properties, timestamp from events) order by timestamp", READS),
        (
            "with t as (select properties, timestamp from events) select t.properties.$browser from t"
            " order by t.timestamp",
            READS,
        ),
        # a join: the hot read of the events side, the person's properties beside it (none here)
        (
            "select e.properties.$browser, p.properties.$browser from events e join persons p on e.person_id = p.id"
            " order by e.timestamp limit 2",
            [["Chrome", None], ["true", None]],
        ),
        ("select count() from events where properties.$browser = 'true'", [[1]]),
        ("select count() from events where properties.$browser is null", [[2]]),
        ("select count(distinct properties.$browser) from events", [[6]]),
    ],
)
def test_a_hot_property_reads_as_its_json_does(ask, query, expected):
    assert ask(query) == expected


def test_the_clickhouse_sql_reads_the_stored_column_and_joins_no_person_unless_asked(hot_world):
    conn, engine, project = hot_world
    engine.on_clickhouse = True
    try:
        plain = _run(conn, project, "select properties.$browser, count() from events group by 1")["clickhouse"]
        person = _run(conn, project, "select person.properties.email from events")["clickhouse"]
        counted = _run(conn, project, "select uniq(person_id), count(distinct person_id) from events")
    finally:
        engine.on_clickhouse = False
    assert "v_browser" in plain and "JSONType" not in plain
    assert "persons" not in plain and "person_overrides" not in plain
    assert "person_overrides" in person and "persons" in person
    # persons counted in a project without merges: the ids tested against the persons' set, no join
    assert counted["results"] == [[1, 1]]
    assert "JOIN" not in counted["clickhouse"] and "persons" in counted["clickhouse"]


@pytest.fixture(scope="module")
def merged_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, dict[str, Any]]]:
    path: Path = tmp_path_factory.mktemp("sql") / "merged.db"
    migrate(path)
    client = chdb_client()
    engine = MovedEngine(client)
    conn = open_database(path, engine)
    project = create_project(conn, name="Merged", timezone="UTC", now="2026-01-01T00:00:00Z")
    people = add_events(conn, project["id"], MERGED_EVENTS, persons={"dave": {"email": "d@x.com"}})
    conn.commit()
    engine.move(conn)
    insert_rows(
        client,
        "person_overrides",
        ("project_id", "old_person_id", "person_id", "version"),
        [(project["id"], people["davy"], people["dave"], 1)],
    )
    yield conn, project, {"dave": _uuid(conn, people["dave"]), "erin": _uuid(conn, people["erin"])}
    conn.close()
    release_database(client)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("select count() from events", [[3]]),
        ("select count(distinct person_id), uniq(person_id) from events", [[2, 2]]),
        (
            "select distinct_id, person.properties.email from events order by timestamp",
            [["dave", "d@x.com"], ["davy", "d@x.com"], ["erin", None]],
        ),
        (
            "select toDate(timestamp) as d, uniq(person_id), count() from events group by d order by d",
            [["2026-01-10", 1, 1], ["2026-01-11", 2, 2]],
        ),
        ("select count() from (select person_id, count() as c from events group by person_id) where c = 2", [[1]]),
        ("select count() from events e join persons p on e.person_id = p.id", [[3]]),
        # grouped by the person's id: davy's event is dave's
        ("select person_id, count() as c from events group by person_id order by c desc", [["@dave", 2], ["@erin", 1]]),
        (
            "select count(), sum(c), max(c) from (select person_id, count() as c from events group by person_id) as t",
            [[2, 3, 2]],
        ),
    ],
)
def test_a_merged_person_is_read_as_the_person_it_became(merged_world, query, expected):
    conn, project, uuids = merged_world
    assert _run(conn, project, query)["results"] == _named(expected, uuids)


def _uuid(conn: Any, person_id: int) -> str:
    return conn.execute("SELECT uuid FROM persons WHERE id = ?", (person_id,)).fetchone()[0]


def _named(rows: list[list[Any]], uuids: dict[str, str]) -> list[list[Any]]:
    """``rows`` with each ``"@who"`` replaced by the uuid of who's person."""
    return [[uuids[v[1:]] if isinstance(v, str) and v.startswith("@") else v for v in row] for row in rows]


@pytest.fixture(scope="module")
def grouped_world(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Any, SwitchedEngine, dict[str, dict[str, Any]], dict[str, str]]]:
    path: Path = tmp_path_factory.mktemp("sql") / "grouped.db"
    migrate(path)
    client = chdb_client()
    engine = SwitchedEngine(MirroredEngine(client))
    conn = open_database(path, engine)
    shop = create_project(conn, name="Shop", timezone="UTC", now="2026-01-01T00:00:00Z")
    ids = add_events(conn, shop["id"], GROUPED_EVENTS)
    ann = _uuid(conn, ids["ann"])
    gone = [ids["bob"], ids["cyd"]]
    conn.executemany("DELETE FROM person_distinct_ids WHERE person_id = ?", [(i,) for i in gone])
    conn.executemany("DELETE FROM persons WHERE id = ?", [(i,) for i in gone])
    other = create_project(conn, name="Other", timezone="UTC", now="2026-01-01T00:00:00Z")
    zoe = _uuid(conn, add_events(conn, other["id"], OTHER_EVENTS)["zoe"])
    conn.commit()
    yield conn, engine, {"shop": shop, "other": other}, {"ann": ann, "zoe": zoe}
    conn.close()
    release_database(client)


@pytest.fixture(params=["sqlite", "chdb"])
def ask_grouped(request: pytest.FixtureRequest, grouped_world):
    conn, engine, projects, uuids = grouped_world
    engine.on_clickhouse = request.param == "chdb"

    def run(project: str, query: str) -> list[list[Any]]:
        return _run(conn, projects[project], query)["results"]

    yield run, uuids
    engine.on_clickhouse = False


@pytest.mark.parametrize(
    ("project", "query", "expected"),
    [
        (
            "shop",
            "select person_id, count() as c from events group by person_id order by c desc",
            [["@ann", 3], [None, 2]],
        ),
        ("shop", "select person_id as p, count() from events group by p order by 2", [[None, 2], ["@ann", 3]]),
        (
            "shop",
            "select e.person_id, count() from events e group by 1 order by count() desc",
            [["@ann", 3], [None, 2]],
        ),
        (
            "shop",
            "select person_id, countIf(event = 'signup') as s, count() as c from events where event != 'x'"
            " group by person_id order by s, c desc",
            [["@ann", 1, 3], [None, 1, 2]],
        ),
        (
            "shop",
            "select count(), sum(c), max(c) from (select person_id, count() as c from events group by person_id) as t",
            [[2, 5, 3]],
        ),
        (
            "shop",
            "select t.person_id, t.c from (select person_id, count() as c from events group by person_id) as t"
            " order by t.c",
            [[None, 2], ["@ann", 3]],
        ),
        (
            "shop",
            "with g as (select person_id, count() as c from events group by person_id) select * from g order by c",
            [[None, 2], ["@ann", 3]],
        ),
        (
            "shop",
            "select person_id, count() as c from events group by person_id order by c desc limit 1",
            [["@ann", 3]],
        ),
        (
            "shop",
            "select person_id, event, count() as c from events where event = 'pageview' group by person_id, event"
            " order by c desc",
            [["@ann", "pageview", 2], [None, "pageview", 1]],
        ),
        (
            "shop",
            "select count(), sum(c) from (select person_id, count() as c from events group by person_id union all"
            " select person_id, count() as c from events where event = 'signup' group by person_id)",
            [[4, 7]],
        ),
        # the person read otherwise (a condition, HAVING): grouped by the uuid read with each event, the same rows
        (
            "shop",
            "select person_id, count() from events where person_id is not null group by person_id",
            [["@ann", 3]],
        ),
        ("shop", "select person_id as p, count() as c from events group by p having p is null", [[None, 2]]),
        ("other", "select person_id, count() from events group by person_id", [["@zoe", 2]]),
        (
            "other",
            "select count(), sum(c) from (select person_id, count() as c from events group by person_id) as t",
            [[1, 2]],
        ),
    ],
)
def test_events_grouped_by_person_are_each_person_s_events_of_this_project(ask_grouped, project, query, expected):
    run, uuids = ask_grouped
    assert run(project, query) == _named(expected, uuids)


def test_the_clickhouse_sql_groups_by_the_person_s_id_and_names_the_groups_after(grouped_world):
    conn, engine, projects, uuids = grouped_world
    engine.on_clickhouse = True
    try:
        top = _run(conn, projects["shop"], "select person_id, count() as c from events group by person_id")
        average = _run(
            conn, projects["shop"], "select avg(c) from (select person_id, count() as c from events group by person_id)"
        )
    finally:
        engine.on_clickhouse = False
    assert sorted(top["results"], key=lambda row: row[1]) == [[None, 2], [uuids["ann"], 3]]
    sql = top["clickhouse"]
    grouping = sql.index("GROUP BY events.__hogql_person_key")
    # the events read no person row before the grouping; the uuids are joined to the groups after it
    assert "argMax(properties, version)" not in sql and sql.index("argMax(uuid, version)") > grouping
    # the persons' uuids never read where nothing reads them
    assert average["results"] == [[2.5]] and "argMax(uuid, version)" not in average["clickhouse"]
