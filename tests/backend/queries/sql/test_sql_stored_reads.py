"""HogQL reads that ClickHouse answers from what it stores beside the JSON: hot property columns, and the person
joined only for a query that reads it (after merges).

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
    yield conn, project
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
    ],
)
def test_a_merged_person_is_read_as_the_person_it_became(merged_world, query, expected):
    conn, project = merged_world
    assert _run(conn, project, query)["results"] == expected
