"""ingest_events into a chdb engine: events land in ClickHouse, once per uuid, with persons, groups and merges."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from local_backend.ingestion import ingest_events
from local_backend.store.projects import get_project

RECEIVED = datetime(2026, 1, 15, 12, 0, 0, tzinfo=UTC)
UUID_A = "01890000-0000-7000-8000-0000000000aa"
UUID_B = "01890000-0000-7000-8000-0000000000bb"


def ingest(conn, world, events, **options):
    options.setdefault("now", RECEIVED)
    return ingest_events(conn, get_project(conn, world.project_id), events, **options)


def rows(ch, sql: str) -> list[tuple]:
    return ch.query_rows(sql.replace("{db}", f"`{ch.database}`"))


def event(name: str, distinct_id: str, second: int, uuid: str | None = None, **properties) -> dict:
    body = {"event": name, "distinct_id": distinct_id, "timestamp": f"2026-01-10T10:00:{second:02d}Z",
            "properties": properties}  # fmt: skip
    if uuid:
        body["uuid"] = uuid
    return body


def test_events_are_stored_in_clickhouse_not_sqlite(ch_conn, ch, world):
    report = ingest(ch_conn, world, [event("signup", "alice", 0, plan="pro"), event("$pageview", "bob", 1)])
    assert (report.accepted, report.duplicates, report.rejected) == (2, 0, 0)
    assert rows(ch, "SELECT event, distinct_id, timestamp, properties FROM {db}.events ORDER BY timestamp") == [
        ("signup", "alice", 1_768_039_200_000_000, '{"plan":"pro"}'),
        ("$pageview", "bob", 1_768_039_201_000_000, "{}"),
    ]
    assert ch_conn.execute("SELECT count(*) FROM events").fetchone()[0] == 0
    # persons and distinct ids stay in SQLite; ClickHouse holds a copy of each person
    persons = dict(ch_conn.execute("SELECT distinct_id, person_id FROM person_distinct_ids").fetchall())
    stored = rows(ch, "SELECT distinct_id, person_id FROM {db}.events")
    assert dict(stored) == persons
    assert sorted(r[0] for r in rows(ch, "SELECT id FROM {db}.persons")) == sorted(persons.values())


def test_the_same_uuid_is_stored_once_across_calls_and_within_one(ch_conn, ch, world):
    first = ingest(ch_conn, world, [event("a", "alice", 0, UUID_A), event("a", "alice", 1, UUID_A)])
    again = ingest(ch_conn, world, [event("a", "alice", 2, UUID_A), event("b", "alice", 3, UUID_B)])
    assert (first.accepted, first.duplicates) == (1, 1)
    assert (again.accepted, again.duplicates) == (1, 1)
    assert rows(ch, "SELECT uuid, event, count() FROM {db}.events GROUP BY uuid, event ORDER BY uuid") == [
        (UUID_A, "a", 1),
        (UUID_B, "b", 1),
    ]


def test_a_uuid_in_another_project_is_not_a_duplicate(ch_conn, ch, world):
    ingest(ch_conn, world, [event("a", "alice", 0, UUID_A)])
    other = ingest_events(ch_conn, get_project(ch_conn, world.other_project_id), [event("a", "x", 0, UUID_A)],
                          now=RECEIVED)  # fmt: skip
    assert other.accepted == 1
    assert rows(ch, "SELECT project_id FROM {db}.events ORDER BY project_id") == [
        (world.project_id,),
        (world.other_project_id,),
    ]


def test_a_merge_writes_an_override_and_leaves_the_events_as_written(ch_conn, ch, world):
    ingest(ch_conn, world, [event("$pageview", "anon", 0), event("$pageview", "alice", 1)])
    before = dict(rows(ch, "SELECT distinct_id, person_id FROM {db}.events"))
    assert before["anon"] != before["alice"]
    ingest(ch_conn, world, [event("$identify", "alice", 2, **{"$anon_distinct_id": "anon"})])
    # the events keep the person they were written with; the override maps anon's person to alice's
    assert dict(rows(ch, "SELECT distinct_id, person_id FROM {db}.events WHERE event = '$pageview'")) == before
    assert rows(ch, "SELECT old_person_id, person_id FROM {db}.person_overrides FINAL") == [
        (before["anon"], before["alice"])
    ]
    mapped = ch_conn.execute("SELECT DISTINCT person_id FROM person_distinct_ids").fetchall()
    assert [tuple(row) for row in mapped] == [(before["alice"],)]


def test_a_chain_of_merges_points_every_old_person_at_the_last_survivor(ch_conn, ch, world):
    ingest(ch_conn, world, [event("$pageview", "a", 0), event("$pageview", "b", 1), event("$pageview", "c", 2)])
    person = dict(rows(ch, "SELECT distinct_id, person_id FROM {db}.events"))
    ingest(ch_conn, world, [event("$merge_dangerously", "b", 3, alias="a")])  # a's person -> b's
    ingest(ch_conn, world, [event("$merge_dangerously", "c", 4, alias="b")])  # b's person (with a's) -> c's
    assert sorted(rows(ch, "SELECT old_person_id, person_id FROM {db}.person_overrides FINAL")) == sorted(
        [(person["a"], person["c"]), (person["b"], person["c"])]
    )


def test_person_properties_get_a_new_version_on_each_change(ch_conn, ch, world):
    ingest(ch_conn, world, [event("signup", "alice", 0, **{"$set": {"plan": "free"}})])
    ingest(ch_conn, world, [event("upgrade", "alice", 1, **{"$set": {"plan": "pro"}})])
    versions = rows(ch, "SELECT properties FROM {db}.persons ORDER BY version")
    assert [json.loads(text) for (text,) in versions] == [{"plan": "free"}, {"plan": "pro"}]
    assert rows(ch, "SELECT properties FROM {db}.persons FINAL") == [('{"plan":"pro"}',)]


def test_groups_are_copied_with_their_properties(ch_conn, ch, world):
    ingest(ch_conn, world, [
        event("$groupidentify", "alice", 0, **{"$group_type": "company", "$group_key": "acme",
                                                "$group_set": {"size": 10}}),
        event("order", "alice", 1, **{"$groups": {"company": "acme"}}),
    ])  # fmt: skip
    groups = rows(ch, "SELECT group_type_index, group_key, properties FROM {db}.groups FINAL")
    assert [(index, key, json.loads(text)) for index, key, text in groups] == [(0, "acme", {"size": 10})]
    assert rows(ch, "SELECT event, group_0 FROM {db}.events ORDER BY timestamp") == [
        ("$groupidentify", None),
        ("order", "acme"),
    ]


def test_a_failed_insert_stores_nothing_in_either(ch_conn, ch, world, monkeypatch):
    def refuse(table: str, data) -> None:
        raise RuntimeError("ClickHouse is gone")

    monkeypatch.setattr(ch, "insert_arrow", refuse)
    with pytest.raises(RuntimeError, match="gone"):
        ingest(ch_conn, world, [event("signup", "alice", 0, UUID_A)])
    monkeypatch.undo()
    assert ch_conn.execute("SELECT count(*) FROM persons").fetchone()[0] == 0
    assert rows(ch, "SELECT count() FROM {db}.events") == [(0,)]
    assert ingest(ch_conn, world, [event("signup", "alice", 0, UUID_A)]).accepted == 1


def test_two_merges_in_one_transaction_leave_one_override_per_person(ch_conn, ch, world):
    from local_backend.ingestion.writer import write_transaction

    ingest(ch_conn, world, [event("$pageview", "a", 0), event("$pageview", "b", 1), event("$pageview", "c", 2)])
    person = dict(rows(ch, "SELECT distinct_id, person_id FROM {db}.events"))
    with write_transaction(ch_conn):  # two requests stored together, as a group of capture requests is
        ingest(ch_conn, world, [event("$merge_dangerously", "b", 3, alias="a")])  # a's person -> b's
        ingest(ch_conn, world, [event("$merge_dangerously", "c", 4, alias="b")])  # b's (with a's) -> c's
    overrides = rows(ch, "SELECT old_person_id, person_id FROM {db}.person_overrides ORDER BY old_person_id")
    assert overrides == sorted([(person["a"], person["c"]), (person["b"], person["c"])])
