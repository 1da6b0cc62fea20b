"""HogQL on both engines: events whose person row is missing, and the calendar of a zone across its DST changes.

Missing persons (a UTC project): distinct ids a (email a@x.com), b and c; the rows of persons b and c are
deleted after their events were written, as a hand-edited database may leave them:

===  ===  ====================
 #   who  timestamp (UTC)
===  ===  ====================
 1   a    2026-01-10 10:00
 2   a    2026-01-11 10:00
 3   b    2026-01-11 11:00
 4   c    2026-01-12 12:00
===  ===  ====================

Every event is kept; b's and c's ``person_id`` and person properties are NULL (one NULL person). The second
project's person, made after, takes a freed person id: the shop's events must not find that person.

DST (an America/New_York project; EST is UTC-5, EDT UTC-4; clocks go forward on Sunday 2026-03-08 at 07:00
UTC and back on Sunday 2026-11-01 at 06:00 UTC):

===  ====================  ===========================  =========================================
 #   timestamp (UTC)       local                        note
===  ====================  ===========================  =========================================
 1   2026-03-08 04:30      Sat 03-07 23:30 EST          the day before the change
 2   2026-03-08 06:59      Sun 03-08 01:59 EST          a minute before it
 3   2026-03-08 07:30      Sun 03-08 03:30 EDT          after it: that day began at 00:00 EST
 4   2026-03-09 03:30      Sun 03-08 23:30 EDT          still the day that began in EST
 5   2026-03-11 03:59      Tue 03-10 23:59 EDT          a whole EDT day
 6   2026-03-11 04:30      Wed 03-11 00:30 EDT
 7   2026-11-01 05:30      Sun 11-01 01:30 EDT          the first 01:30 of the day
 8   2026-11-01 06:30      Sun 11-01 01:30 EST          the second 01:30
===  ====================  ===========================  =========================================
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
from tests.backend.store.clickhouse.mirror import MirroredEngine, SwitchedEngine, chdb_client, release_database
from tests.factories import NOW, add_events

PERSONLESS_EVENTS = [
    ("pageview", "a", "2026-01-10T10:00:00Z", {"$browser": "Chrome"}),
    ("pageview", "a", "2026-01-11T10:00:00Z", {"$browser": "Chrome"}),
    ("pageview", "b", "2026-01-11T11:00:00Z", {"$browser": "Safari"}),
    ("signup", "c", "2026-01-12T12:00:00Z"),
]
DST_EVENTS = [
    ("e1", "a", "2026-03-08T04:30:00Z"),
    ("e2", "a", "2026-03-08T06:59:00Z"),
    ("e3", "a", "2026-03-08T07:30:00Z"),
    ("e4", "a", "2026-03-09T03:30:00Z"),
    ("e5", "a", "2026-03-11T03:59:00Z"),
    ("e6", "a", "2026-03-11T04:30:00Z"),
    ("e7", "a", "2026-11-01T05:30:00Z"),
    ("e8", "a", "2026-11-01T06:30:00Z"),
]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, SwitchedEngine, dict[str, Any]]]:
    path: Path = tmp_path_factory.mktemp("sql") / "persons-dst.db"
    migrate(path)
    client = chdb_client()
    engine = SwitchedEngine(MirroredEngine(client))
    conn = open_database(path, engine)
    shop = create_project(conn, name="Shop", timezone="UTC", now="2026-01-01T00:00:00Z")
    ids = add_events(conn, shop["id"], PERSONLESS_EVENTS, persons={"a": {"email": "a@x.com"}})
    gone = [ids["b"], ids["c"]]
    conn.executemany("DELETE FROM person_distinct_ids WHERE person_id = ?", [(i,) for i in gone])
    conn.executemany("DELETE FROM persons WHERE id = ?", [(i,) for i in gone])
    york = create_project(conn, name="York", timezone="America/New_York", now="2026-01-01T00:00:00Z")
    add_events(conn, york["id"], DST_EVENTS)
    conn.commit()
    yield conn, engine, {"shop": shop, "york": york}
    conn.close()
    release_database(client)


@pytest.fixture(params=["sqlite", "chdb"])
def ask(request: pytest.FixtureRequest, world):
    conn, engine, projects = world
    engine.on_clickhouse = request.param == "chdb"

    def run(project: str, query: str) -> list[list[Any]]:
        node = read_hogql_node({"kind": "HogQLQuery", "query": query})
        return run_hogql_query(conn, projects[project], node, NOW)["results"]

    yield run
    engine.on_clickhouse = False


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("select count() from events", [[4]]),
        ("select count() from events where person_id is null", [[2]]),
        ("select uniq(person_id), count(distinct person_id), uniqExact(person_id) from events", [[1, 1, 1]]),
        (
            "select distinct_id, person.properties.email from events order by timestamp",
            [["a", "a@x.com"], ["a", "a@x.com"], ["b", None], ["c", None]],
        ),
        # b and c have no person: one NULL person (two events), not one each
        (
            "select person_id is null as gone, count() as c from events group by person_id order by c, gone",
            [[False, 2], [True, 2]],
        ),
        ("select count(), sum(c) from (select person_id, count() as c from events group by person_id) as t", [[2, 4]]),
        (
            "select properties.$browser as b, count() from events group by b order by b",
            [["Chrome", 2], ["Safari", 1], [None, 1]],
        ),
        (
            "select toDate(timestamp) as d, uniq(person_id), count() from events group by d order by d",
            [["2026-01-10", 1, 1], ["2026-01-11", 1, 2], ["2026-01-12", 0, 1]],
        ),
        ("select count() from events e join persons p on e.person_id = p.id", [[2]]),
    ],
)
def test_an_event_whose_person_row_is_missing_is_kept_with_a_null_person(ask, query, expected):
    assert ask("shop", query) == expected


def test_the_calendar_of_a_dst_zone_follows_each_time_s_own_offset(ask):
    rows = ask(
        "york",
        "select toDate(timestamp), toStartOfDay(timestamp), toStartOfHour(timestamp) from events order by timestamp",
    )
    assert rows == [
        ["2026-03-07", "2026-03-07T00:00:00-05:00", "2026-03-07T23:00:00-05:00"],
        ["2026-03-08", "2026-03-08T00:00:00-05:00", "2026-03-08T01:00:00-05:00"],
        ["2026-03-08", "2026-03-08T00:00:00-05:00", "2026-03-08T03:00:00-04:00"],
        ["2026-03-08", "2026-03-08T00:00:00-05:00", "2026-03-08T23:00:00-04:00"],
        ["2026-03-10", "2026-03-10T00:00:00-04:00", "2026-03-10T23:00:00-04:00"],
        ["2026-03-11", "2026-03-11T00:00:00-04:00", "2026-03-11T00:00:00-04:00"],
        ["2026-11-01", "2026-11-01T00:00:00-04:00", "2026-11-01T01:00:00-04:00"],
        ["2026-11-01", "2026-11-01T00:00:00-04:00", "2026-11-01T01:00:00-05:00"],
    ]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # 2026-03-08 and 2026-11-01 are Sundays: weeks start on them
        (
            "select toStartOfWeek(timestamp) as w, count() from events group by w order by w",
            [["2026-03-01", 1], ["2026-03-08", 5], ["2026-11-01", 2]],
        ),
        (
            "select toStartOfMonth(timestamp) as m, count() from events group by m order by m",
            [["2026-03-01", 6], ["2026-11-01", 2]],
        ),
        (
            "select dateTrunc('day', timestamp) as d, count() from events group by d order by d",
            [
                ["2026-03-07T00:00:00-05:00", 1],
                ["2026-03-08T00:00:00-05:00", 3],
                ["2026-03-10T00:00:00-04:00", 1],
                ["2026-03-11T00:00:00-04:00", 1],
                ["2026-11-01T00:00:00-04:00", 2],
            ],
        ),
        (
            "select dateTrunc('month', timestamp) as m, count() from events group by m order by m",
            [["2026-03-01", 6], ["2026-11-01", 2]],
        ),
        # the same moments in UTC: events 1 to 3 are on 03-08 there, 4 on 03-09, 5 and 6 on 03-11
        (
            "select toDate(toTimeZone(timestamp, 'UTC')) as d, count() from events group by d order by d",
            [["2026-03-08", 3], ["2026-03-09", 1], ["2026-03-11", 2], ["2026-11-01", 2]],
        ),
    ],
)
def test_weeks_months_and_truncation_in_a_dst_zone(ask, query, expected):
    assert ask("york", query) == expected
