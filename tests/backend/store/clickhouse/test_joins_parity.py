"""What an event reaches beyond its own row reads the same on ClickHouse: its person's and groups' properties,
its session, static cohorts, and its person after a merge.

    alice  $pageview  Jan 10 10:00  session s1   group acme     alice: plan pro
    alice  $pageview  Jan 10 10:40  session s1   group acme
    bob    $pageview  Jan 10 12:00  session s2   group zeta     bob: plan free
    bob    signup     Jan 10 12:10  session s2
    bobby  $pageview  Jan 11 09:00  session ""                  bobby: plan pro, later merged into bob
    carol  $pageview  Jan 11 10:00                              carol: no properties
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from local_backend.store.cohorts import create_cohort
from local_backend.store.engine.clickhouse.event_store import ClickHouseEventStore
from local_backend.store.engine.interface import (
    COUNT,
    ActiveActors,
    EventStore,
    FirstSeen,
    FlaggedScan,
    Fragment,
    Measure,
    SpanAggregate,
)
from local_backend.store.engine.sqlite.event_store import SQLiteEventStore
from local_backend.store.materialized import backfill, materialize
from local_backend.store.projects import create_project
from tests.backend.store.clickhouse.mirror import insert_rows, mirror
from tests.backend.store.test_event_store import DAYS, EVERYTHING, at
from tests.factories import add_events

EVENTS = [
    ("$pageview", "alice", "2026-01-10T10:00:00Z", {"$session_id": "s1", "$groups": {"company": "acme"}}),
    ("$pageview", "alice", "2026-01-10T10:40:00Z", {"$session_id": "s1"}),
    ("$pageview", "bob", "2026-01-10T12:00:00Z", {"$session_id": "s2", "$groups": {"company": "zeta"}}),
    ("signup", "bob", "2026-01-10T12:10:00Z", {"$session_id": "s2"}),
    ("$pageview", "bobby", "2026-01-11T09:00:00Z", {"$session_id": ""}),
    ("$pageview", "carol", "2026-01-11T10:00:00Z"),
]
PERSONS = {"alice": {"plan": "pro"}, "bob": {"plan": "free"}, "bobby": {"plan": "pro", "age": 30}}


@pytest.fixture
def world(conn, ch_client) -> tuple[int, dict[str, int], SQLiteEventStore, ClickHouseEventStore]:
    project_id = int(create_project(conn, name="Joins", timezone="UTC", now="2026-01-15T12:00:00Z")["id"])
    people = add_events(conn, project_id, EVENTS, persons=PERSONS)
    for name, key in (("alice", "acme"), ("bob", "zeta")):  # both of alice's pageviews, bob's one
        conn.execute("UPDATE events SET group_0 = ? WHERE person_id = ? AND event = '$pageview'", (key, people[name]))
    conn.executemany(
        "INSERT INTO groups (project_id, group_type_index, group_key, properties, created_at) VALUES (?, 0, ?, ?, 0)",
        [(project_id, "acme", '{"size": 50}'), (project_id, "zeta", '{"size": 5}')],
    )
    conn.commit()
    mirror(conn, ch_client)
    return project_id, people, SQLiteEventStore(conn), ClickHouseEventStore(conn, ch_client)


def merge_bobby_into_bob(conn, ch_client, project_id: int, people: dict[str, int]) -> None:
    """The merge as each engine records it: SQLite rewrites events and deletes the person; ClickHouse keeps the
    events as written and adds an override and a new version of the surviving person."""
    bob, bobby = people["bob"], people["bobby"]
    merged = json.dumps({**PERSONS["bobby"], **PERSONS["bob"]})
    conn.execute("UPDATE events SET person_id = ? WHERE person_id = ?", (bob, bobby))
    conn.execute("UPDATE person_distinct_ids SET person_id = ? WHERE person_id = ?", (bob, bobby))
    conn.execute("UPDATE persons SET properties = ? WHERE id = ?", (merged, bob))
    conn.execute("DELETE FROM persons WHERE id = ?", (bobby,))
    conn.commit()
    insert_rows(ch_client, "person_overrides", ("project_id", "old_person_id", "person_id", "version"),
                [(project_id, bobby, bob, 1)])  # fmt: skip
    insert_rows(ch_client, "persons", ("project_id", "id", "uuid", "properties", "created_at", "version"),
                [(project_id, bob, "bob-uuid", merged, 0, 2)])  # fmt: skip


def values(store: EventStore, project_id: int, value: Fragment | None, flags: list[Fragment] = ()) -> tuple[list, list]:
    rows = store.flagged_rows(
        FlaggedScan(project_id=project_id, lower=at(10), upper=at(13), where=EVERYTHING, flags=list(flags),
                    only_flagged=False, value=value)
    )  # fmt: skip
    return rows.values or [], rows.flags.tolist()


def person_text(store: EventStore, key: str) -> Fragment:
    return store.dialect.text(store.dialect.person_properties(), key)


def each(world, make) -> list[Any]:
    project_id, _, sqlite_store, clickhouse_store = world
    return [make(store, project_id) for store in (sqlite_store, clickhouse_store)]


def test_person_and_group_properties_read_per_event(world):
    expected, found = each(world, lambda s, pid: values(s, pid, person_text(s, "plan")))
    assert found == expected == (["pro", "pro", "free", "free", "pro", ""], [0] * 6)
    groups = each(world, lambda s, pid: values(s, pid, s.dialect.text(s.dialect.group_properties(0), "size")))
    assert groups[1] == groups[0] == (["50", "50", "5", "", "", ""], [0] * 6)


def test_session_lengths_and_session_conditions(world):
    seconds = each(world, lambda s, pid: values(s, pid, (s.dialect.session_seconds(), [])))
    # s1 lasted 40 minutes, s2 10; the empty session id is one session of one event; carol has none
    assert seconds[1] == seconds[0] == ([2400, 2400, 600, 600, 0, None], [0] * 6)
    long = each(
        world,
        lambda s, pid: values(s, pid, None, [(s.dialect.session_having("max(s.timestamp) - min(s.timestamp) > ?"),
                                                   [1_000_000_000])]),
    )  # fmt: skip
    assert long[1] == long[0] == ([], [1, 1, 0, 0, 0, 0])


def test_session_durations_measure_leaves_out_events_without_a_session(world):
    measure = Measure(aggregate="count(*)", per="e.session_id", session_durations=True)
    request = lambda pid: SpanAggregate(project_id=pid, spans=DAYS, where=EVERYTHING, measure=measure)  # noqa: E731
    found = each(world, lambda s, pid: {k: v for k, v in s.aggregate_spans(request(pid)).items() if v})
    assert found[1] == found[0] == {(0, None): 2}  # s1 and s2 on Jan 10; Jan 11 has no session


def test_static_cohort_members_come_from_sqlite(conn, world):
    project_id, people, _, _ = world
    cohort = create_cohort(conn, project_id=project_id, user_id=None, values={"name": "VIP", "is_static": True},
                           members={people["alice"], people["carol"]}, now="2026-01-15T12:00:00Z")  # fmt: skip
    found = each(world, lambda s, pid: values(s, pid, None, [(s.dialect.static_cohort_member(), [cohort])]))
    assert found[1] == found[0] == ([], [1, 1, 0, 0, 0, 1])


def test_persons_matching_and_their_properties(world):
    def make(store: EventStore, project_id: int) -> Any:
        sql, params = person_text(store, "plan")
        return store.persons_matching(project_id, (f"{sql} = ?", [*params, "pro"]))

    found = each(world, make)
    _, people, _, _ = world
    assert found[1] == found[0] == sorted([people["alice"], people["bobby"]])


def test_a_merge_reads_the_same_on_both_engines(conn, ch_client, world):
    project_id, people, _, _ = world
    merge_bobby_into_bob(conn, ch_client, project_id, people)
    bob = people["bob"]

    def make(store: EventStore, pid: int) -> Any:
        plan = person_text(store, "plan")
        distinct = Measure(aggregate="count(DISTINCT e.person_id)")
        return (
            values(store, pid, plan),
            store.flagged_rows(FlaggedScan(project_id=pid, lower=at(10), upper=at(13), where=EVERYTHING,
                                           flags=[("e.event = ?", ["$pageview"])])).actors.tolist(),
            store.aggregate_spans(SpanAggregate(project_id=pid, spans=[(at(10), at(12))], where=EVERYTHING,
                                                measure=distinct)),
            sorted(store.first_seen(FirstSeen(project_id=pid, lower=at(10), upper=at(13), where=EVERYTHING,
                                              actor="e.person_id"))),
            sorted(store.active_actors(ActiveActors(project_id=pid, spans=DAYS, where=EVERYTHING,
                                                    actor="e.person_id"))),
            store.persons_matching(pid, ("1", [])),
            sorted(store.person_properties(pid, [bob, people["bobby"]])),
            {cell: count for cell, count in store.aggregate_spans(
                SpanAggregate(project_id=pid, spans=DAYS, where=EVERYTHING, measure=COUNT)).items() if count},
        )  # fmt: skip

    sqlite_answer, clickhouse_answer = each(world, make)
    assert clickhouse_answer == sqlite_answer
    # bobby's pageview is bob's now; three persons are left
    assert clickhouse_answer[1] == [people["alice"], people["alice"], bob, bob, people["carol"]]
    assert clickhouse_answer[2] == {(0, None): 3}
    assert clickhouse_answer[6] == [(bob, {"plan": "free", "age": 30})]


def test_materialized_event_and_person_columns_hold_sqlites_values(conn, world):
    project_id, people, sqlite_store, clickhouse_store = world
    event_column = materialize(conn, project_id, "$session_id", now="2026-01-15T12:00:00Z")
    backfill(conn, event_column)
    person_column = materialize(conn, project_id, "plan", kind="person", now="2026-01-15T12:00:00Z")
    sqlite_person = f"(SELECT p.{person_column} FROM persons p WHERE p.id = e.person_id)"
    answers = [
        values(store, project_id, (f"{column}", []), [(f"coalesce({person} = ?, 0)", ["pro"])])
        for store, column, person in (
            (sqlite_store, f"e.{event_column}", sqlite_person),
            (clickhouse_store, f"e.{event_column}", clickhouse_store.dialect.person_column(person_column)),
        )
    ]
    assert answers[1] == answers[0] == (["s1", "s1", "s2", "s2", "", None], [1, 1, 0, 0, 1, 0])
