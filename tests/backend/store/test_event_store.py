"""The SQLite event store's methods, called directly on hand-written events with hand-worked answers.

The events (project timezone UTC; spans are the days Jan 10, 11 and 12 of 2026, ``[start, next start)``)::

    alice  $pageview  Jan 10 10:00  $browser Chrome   price 10    session s1
    alice  $pageview  Jan 10 11:00  $browser Chrome   price "5"   session s1
    bob    $pageview  Jan 10 12:00  $browser Firefox  price 2
    alice  signup     Jan 11 09:00
    bob    $pageview  Jan 11 09:30  $browser Chrome
    carol  $pageview  Jan 12 00:00  (no browser: exactly on the day's first microsecond)
    dave   $pageview  2014-12-31    (before 2015: a broken clock)
    erin   $pageview  2015-03-01
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from local_backend.store.engine.choice import event_store
from local_backend.store.engine.interface import (
    COUNT,
    ActiveActors,
    ActiveIntervals,
    EventStore,
    FirstSeen,
    FlaggedScan,
    Measure,
    PersonEventScan,
    SpanAggregate,
    TopValues,
)
from local_backend.store.engine.sqlite import flagged_scan as sqlite_flagged_scan
from local_backend.store.engine.sqlite.dialect import DIALECT
from local_backend.store.engine.sqlite.event_store import SQLiteEventStore
from local_backend.store.event_rows import EventRow, insert_events, to_micros
from local_backend.store.projects import create_project
from tests.factories import add_events

EVENTS = [
    ("$pageview", "alice", "2026-01-10T10:00:00Z", {"$browser": "Chrome", "price": 10, "$session_id": "s1"}),
    ("$pageview", "alice", "2026-01-10T11:00:00Z", {"$browser": "Chrome", "price": "5", "$session_id": "s1"}),
    ("$pageview", "bob", "2026-01-10T12:00:00Z", {"$browser": "Firefox", "price": 2}),
    ("signup", "alice", "2026-01-11T09:00:00Z"),
    ("$pageview", "bob", "2026-01-11T09:30:00Z", {"$browser": "Chrome"}),
    ("$pageview", "carol", "2026-01-12T00:00:00Z"),
    ("$pageview", "dave", "2014-12-31T23:00:00Z"),
    ("$pageview", "erin", "2015-03-01T08:00:00Z"),
]
PAGEVIEW = ("e.event = ?", ["$pageview"])
EVERYTHING = ("1", [])


def at(day: int, hour: int = 0, minute: int = 0) -> int:
    return to_micros(datetime(2026, 1, day, hour, minute, tzinfo=UTC))


DAYS = [(at(10), at(11)), (at(11), at(12)), (at(12), at(13))]
BROWSER = DIALECT.breakdown_value("e.properties", "$browser")


@pytest.fixture
def project_id(conn) -> int:
    return int(create_project(conn, name="Store", timezone="UTC", now="2026-01-15T12:00:00Z")["id"])


@pytest.fixture
def people(conn, project_id) -> dict[str, int]:
    return add_events(conn, project_id, EVENTS, persons={"alice": {"plan": "pro"}, "carol": {"plan": "pro"}})


@pytest.fixture
def store(conn, people) -> EventStore:
    return event_store(conn)


def non_empty(cells: dict) -> dict:
    return {key: value for key, value in cells.items() if value}


def test_the_factory_gives_the_sqlite_store_and_its_dialect(conn):
    store = event_store(conn)
    assert isinstance(store, SQLiteEventStore)
    assert isinstance(store, EventStore)  # every method of the interface is there
    assert store.dialect is DIALECT


def test_earliest_event_ignores_events_before_2015(store, project_id):
    assert store.earliest_event(project_id) == datetime(2015, 3, 1, 8, tzinfo=UTC)


def test_earliest_event_of_a_project_without_events_is_none(conn, store, project_id):
    other = int(create_project(conn, name="Empty", timezone="UTC", now="2026-01-15T12:00:00Z")["id"])
    assert store.earliest_event(other) is None


def test_event_counts_per_day_span_are_half_open(store, project_id):
    cells = store.aggregate_spans(SpanAggregate(project_id=project_id, spans=DAYS, where=PAGEVIEW, measure=COUNT))
    # carol's event at Jan 12 00:00 belongs to Jan 12, not Jan 11
    assert non_empty(cells) == {(0, None): 3, (1, None): 1, (2, None): 1}


def test_event_counts_per_span_and_breakdown_value(store, project_id):
    request = SpanAggregate(project_id=project_id, spans=DAYS, where=PAGEVIEW, measure=COUNT, group=BROWSER)
    assert store.aggregate_spans(request) == {
        (0, "Chrome"): 2,
        (0, "Firefox"): 1,
        (1, "Chrome"): 1,
        (2, None): 1,
    }


def test_distinct_persons_per_span(store, project_id):
    measure = Measure(aggregate="count(DISTINCT e.person_id)")
    request = SpanAggregate(project_id=project_id, spans=DAYS, where=EVERYTHING, measure=measure)
    # Jan 10: alice, bob; Jan 11: alice (signup), bob; Jan 12: carol
    assert non_empty(store.aggregate_spans(request)) == {(0, None): 2, (1, None): 2, (2, None): 1}


def test_distinct_persons_of_a_span_without_events_is_zero(store, project_id):
    measure = Measure(aggregate="count(DISTINCT e.person_id)")
    request = SpanAggregate(project_id=project_id, spans=[(at(9), at(10)), *DAYS], where=PAGEVIEW, measure=measure)
    assert store.aggregate_spans(request) == {(0, None): 0, (1, None): 2, (2, None): 1, (3, None): 1}


def test_distinct_persons_counted_by_sql_when_an_id_is_not_an_integer(conn, store, project_id, people):
    # the ids are read from text in numpy; an id stored as text (a table written by hand) is left to SQL
    conn.execute("UPDATE events SET person_id = 'p-bob' WHERE person_id = ?", [people["bob"]])
    measure = Measure(aggregate="count(DISTINCT e.person_id)")
    request = SpanAggregate(project_id=project_id, spans=DAYS, where=EVERYTHING, measure=measure)
    assert store.aggregate_spans(request) == {(0, None): 2, (1, None): 2, (2, None): 1}
    actors = ActiveActors(project_id=project_id, spans=DAYS[:1], where=PAGEVIEW, actor="e.person_id")
    assert set(store.active_actors(actors)) == {(0, None, people["alice"]), (0, None, "p-bob")}


def test_property_sum_reads_numbers_and_numeric_text(store, project_id):
    measure = Measure(aggregate="sum(il_float({v}))", value=DIALECT.text("e.properties", "price"))
    request = SpanAggregate(project_id=project_id, spans=DAYS, where=PAGEVIEW, measure=measure)
    cells = store.aggregate_spans(request)
    # Jan 10: 10 + "5" + 2; Jan 11 and 12 have no price at all: no number
    assert cells[(0, None)] == 17
    assert cells.get((1, None)) is None and cells.get((2, None)) is None


def test_per_actor_measure_counts_each_persons_events_first(store, project_id):
    measure = Measure(aggregate="max({v})", per="e.person_id", per_value="count(*)")
    request = SpanAggregate(project_id=project_id, spans=DAYS[:1], where=PAGEVIEW, measure=measure)
    assert store.aggregate_spans(request) == {(0, None): 2}  # alice 2, bob 1


def test_session_durations_cover_the_whole_session(store, project_id):
    measure = Measure(aggregate="avg({v})", per="e.session_id", session_durations=True)
    # the span holds only the 11:00 event of s1; its session still lasted from 10:00 to 11:00
    request = SpanAggregate(project_id=project_id, spans=[(at(10, 10, 30), at(11))], where=PAGEVIEW, measure=measure)
    assert store.aggregate_spans(request) == {(0, None): 3600.0}


def test_counted_aggregate_gives_events_beside_the_aggregate(store, project_id):
    group = (f"coalesce({BROWSER[0]}, ?)", [*BROWSER[1], "none"])
    request = SpanAggregate(project_id=project_id, spans=DAYS, where=PAGEVIEW, measure=COUNT, group=group)
    assert store.aggregate_counted(request, max_groups=10) == {
        (0, "Chrome"): (2, 2),
        (0, "Firefox"): (1, 1),
        (1, "Chrome"): (1, 1),
        (2, "none"): (1, 1),
    }
    assert store.aggregate_counted(request, max_groups=2) is None


def test_first_seen_within_the_range(store, project_id, people):
    request = FirstSeen(
        project_id=project_id, lower=at(10, 11, 30), upper=at(13) - 1, where=PAGEVIEW, actor="e.person_id"
    )
    # alice's pageviews are all before the range
    assert sorted(store.first_seen(request), key=lambda row: row[2]) == [
        (None, people["bob"], at(10, 12)),
        (None, people["carol"], at(12)),
    ]


def test_first_seen_ever_leaves_out_actors_who_started_earlier(store, project_id, people):
    request = FirstSeen(
        project_id=project_id, lower=at(10, 10, 30), upper=at(13) - 1, where=PAGEVIEW, actor="e.person_id", ever=True
    )
    # alice's first pageview ever (10:00) is before 10:30; dave and erin started years ago
    assert sorted(store.first_seen(request), key=lambda row: row[2]) == [
        (None, people["bob"], at(10, 12)),
        (None, people["carol"], at(12)),
    ]


def test_active_actors_are_distinct_per_span(store, project_id, people):
    request = ActiveActors(project_id=project_id, spans=DAYS, where=PAGEVIEW, actor="e.person_id")
    found = list(store.active_actors(request))
    assert len(found) == len(set(found))
    assert set(found) == {
        (0, None, people["alice"]),
        (0, None, people["bob"]),
        (1, None, people["bob"]),
        (2, None, people["carol"]),
    }


def test_active_intervals_count_each_actors_spans_that_meet_the_criterion(store, project_id, people):
    def intervals(operator: str, value: int, group=None) -> set:
        request = ActiveIntervals(
            project_id=project_id, spans=DAYS, where=PAGEVIEW, actor="e.person_id", group=group,
            operator=operator, value=value,
        )  # fmt: skip
        return set(store.active_intervals(request))

    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    # pageviews per day: alice 2 on the 10th; bob 1 on the 10th and 1 on the 11th; carol 1 on the 12th
    assert intervals("gte", 1) == {(None, alice, 1), (None, bob, 2), (None, carol, 1)}
    assert intervals("gte", 2) == {(None, alice, 1)}
    assert intervals("lte", 1) == {(None, bob, 2), (None, carol, 1)}  # a day without events never counts
    assert intervals("exact", 2) == {(None, alice, 1)}
    # by browser: bob's Firefox day and his Chrome day count apart; carol has no browser (NULL)
    assert intervals("gte", 1, BROWSER) == {("Chrome", alice, 1), ("Firefox", bob, 1), ("Chrome", bob, 1),
                                            (None, carol, 1)}  # fmt: skip


def test_actors_created_at_of_existing_persons_and_groups(conn, store, project_id, people):
    conn.execute("UPDATE persons SET created_at = id * 1000 WHERE project_id = ?", (project_id,))
    conn.execute(
        "INSERT INTO groups (project_id, group_type_index, group_key, properties, created_at) VALUES (?, 0, 'acme',"
        " '{}', 77)",
        (project_id,),
    )
    alice, bob = people["alice"], people["bob"]
    assert sorted(store.actors_created_at(project_id, [alice, bob, 99_999])) == [(alice, alice * 1000),
                                                                                (bob, bob * 1000)]  # fmt: skip
    assert list(store.actors_created_at(project_id, ["acme", "zeta"], 0)) == [("acme", 77)]
    assert list(store.actors_created_at(project_id, ["acme"], 1)) == []


def test_top_values_rank_by_count_then_value_descending(store, project_id):
    def top(count: int) -> list:
        request = TopValues(
            project_id=project_id, lower=at(10), upper=at(13) - 1, where=PAGEVIEW, value=BROWSER,
            null_label="$none", count=count,
        )  # fmt: skip
        return store.top_values(request)

    # Chrome 3, then Firefox and the null bucket with 1 each: "Firefox" > "$none"
    assert top(3) == ["Chrome", "Firefox", "$none"]
    assert top(1) == ["Chrome"]


def flagged(store: EventStore, project_id: int, **changes) -> FlaggedScan:
    base = dict(
        project_id=project_id,
        lower=at(10),
        upper=at(13) - 1,
        where=EVERYTHING,
        flags=[PAGEVIEW, ("e.event = ?", ["signup"])],
    )
    return FlaggedScan(**{**base, **changes})


def test_flagged_rows_come_in_person_then_time_order(store, project_id, people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    for changes in ({}, {"flag_events": ["$pageview", "signup"], "events": ["$pageview", "signup"]}):
        rows = store.flagged_rows(flagged(store, project_id, **changes))
        assert rows.actors.tolist() == [alice, alice, alice, bob, bob, carol]
        assert rows.timestamps.tolist() == [at(10, 10), at(10, 11), at(11, 9), at(10, 12), at(11, 9, 30), at(12)]
        assert rows.flags.tolist() == [1, 1, 2, 1, 1, 1]
        assert rows.values is None and rows.keys is None
        assert rows.actors.dtype == rows.timestamps.dtype == rows.flags.dtype == np.int64


@pytest.mark.parametrize("persons_per_text", [1, 2, 50_000])
def test_flagged_rows_read_by_person_range_or_without_the_person_index_are_the_same(
    conn, store, project_id, people, monkeypatch, persons_per_text
):
    monkeypatch.setattr(sqlite_flagged_scan, "_TEXT_CHUNK_PERSONS", persons_per_text)
    scan = flagged(store, project_id)
    read = store.flagged_rows(scan)
    conn.execute("DROP INDEX idx_events_person_ts")  # as during a bulk load: rows as Python tuples, sorted by SQL
    sorted_by_sql = store.flagged_rows(scan)
    for rows in (read, sorted_by_sql):
        assert rows.actors.tolist() == [people["alice"]] * 3 + [people["bob"]] * 2 + [people["carol"]]
        assert rows.timestamps.tolist() == [at(10, 10), at(10, 11), at(11, 9), at(10, 12), at(11, 9, 30), at(12)]
        assert rows.flags.tolist() == [1, 1, 2, 1, 1, 1]


@pytest.mark.parametrize("persons_per_text", [1, 50_000])
def test_flagged_rows_of_named_events_are_in_person_order_through_either_index(
    conn, store, project_id, people, monkeypatch, persons_per_text
):
    # one range of persons: the (event, timestamp) index, its rows sorted after; several: the person index
    monkeypatch.setattr(sqlite_flagged_scan, "_TEXT_CHUNK_PERSONS", persons_per_text)
    add_events(conn, project_id, [("$pageview", "alice", "2026-01-13T00:00:00Z")])  # after the range
    scan = flagged(store, project_id, flag_events=["$pageview", "signup"], events=["$pageview", "signup"])
    rows = store.flagged_rows(scan)
    assert rows.actors.tolist() == [people["alice"]] * 3 + [people["bob"]] * 2 + [people["carol"]]
    assert rows.timestamps.tolist() == [at(10, 10), at(10, 11), at(11, 9), at(10, 12), at(11, 9, 30), at(12)]
    assert rows.flags.tolist() == [1, 1, 2, 1, 1, 1]


def test_flagged_rows_with_a_value_per_row(store, project_id, people):
    rows = store.flagged_rows(flagged(store, project_id, flags=[PAGEVIEW], value=BROWSER))
    assert rows.actors.tolist() == [people["alice"]] * 2 + [people["bob"]] * 2 + [people["carol"]]
    assert rows.values == ["Chrome", "Chrome", "Firefox", "Chrome", None]


def test_flagged_rows_of_every_event_when_not_only_flagged(conn, store, project_id, people):
    add_events(conn, project_id, [("other", "carol", "2026-01-12T06:00:00Z")])
    rows = store.flagged_rows(flagged(store, project_id, flags=[("e.event = ?", ["signup"])], only_flagged=False))
    assert len(rows) == 7
    assert rows.flags.tolist() == [0, 0, 1, 0, 0, 0, 0]


def test_flagged_rows_by_group_code_groups_in_order_of_first_appearance(conn, store, project_id, people):
    def grouped(event: str, when: int, key: str | None) -> EventRow:
        return EventRow(project_id, event, "alice", people["alice"], when, groups=(key, None, None, None, None))

    insert_events(
        conn,
        [grouped("g", at(14, 9), "zeta"), grouped("g", at(14, 8), "acme"), grouped("g", at(14, 10), "zeta"),
         grouped("g", at(14, 11), None)],
    )  # fmt: skip
    rows = store.flagged_rows(
        flagged(store, project_id, lower=at(14), upper=at(15), flags=[("e.event = ?", ["g"])], group_type_index=0)
    )
    # ordered by group key ("acme" < "zeta"), the event without a group left out
    assert rows.keys == ["acme", "zeta"]
    assert rows.actors.tolist() == [0, 1, 1]
    assert rows.timestamps.tolist() == [at(14, 8), at(14, 9), at(14, 10)]


def test_person_events_order_ties_by_event_name(conn, store, project_id, people):
    add_events(
        conn,
        project_id,
        [("b_second", "carol", "2026-01-12T00:00:00Z"), ("a_first", "carol", "2026-01-12T00:00:00Z", {"$browser": 1})],
    )
    scan = PersonEventScan(
        project_id=project_id, lower=at(12), upper=at(13) - 1, where=EVERYTHING, properties=["$browser"]
    )
    assert list(store.person_events(scan)) == [
        (people["carol"], at(12), "$pageview", None),
        (people["carol"], at(12), "a_first", 1),
        (people["carol"], at(12), "b_second", None),
    ]


def test_persons_matching_a_person_condition_ascending(store, project_id, people):
    where = (f"json_extract({DIALECT.person_properties()}, '$.plan') = ?", ["pro"])
    assert store.persons_matching(project_id, where) == sorted([people["alice"], people["carol"]])


def test_person_properties_of_existing_ids_only(store, project_id, people):
    found = dict(store.person_properties(project_id, [people["bob"], people["alice"], 99_999]))
    assert found == {people["alice"]: {"plan": "pro"}, people["bob"]: {}}


def test_group_properties_of_existing_groups_of_the_type_only(conn, store, project_id):
    conn.executemany(
        "INSERT INTO groups (project_id, group_type_index, group_key, properties, created_at) VALUES (?, ?, ?, ?, 0)",
        [
            (project_id, 0, "acme", '{"plan": "big"}'),
            (project_id, 1, "acme", '{"plan": "other type"}'),
            (project_id, 0, "zeta", "{}"),
        ],
    )
    found = dict(store.group_properties(project_id, 0, ["zeta", "acme", "missing"]))
    assert found == {"acme": {"plan": "big"}, "zeta": {}}
