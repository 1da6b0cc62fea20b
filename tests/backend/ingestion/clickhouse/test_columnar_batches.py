"""A chdb bulk load in batches: it remembers what its earlier batches wrote, and forgets it when another
connection writes, so persons and groups come out as if every batch had read SQLite; group types are numbered in
the order the events name them, across batches."""

from __future__ import annotations

import json
import sqlite3
from contextlib import contextmanager
from datetime import UTC, datetime

import pytest

import local_backend.loading.columnar as columnar
import local_backend.store.run_memory as run_memory
from local_backend.loading import load_file
from local_backend.store.engine.choice import open_database

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
T0 = int(datetime(2026, 1, 10, 10, tzinfo=UTC).timestamp()) * 1_000_000
MINUTE = 60_000_000


def event(name: str, distinct_id: str, minute: int, **properties) -> dict:
    stamp = datetime.fromtimestamp((T0 + minute * MINUTE) / 1e6, UTC).isoformat().replace("+00:00", "Z")
    return {"event": name, "distinct_id": distinct_id, "timestamp": stamp, "properties": properties}


def write(tmp_path, events: list[dict]):
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in events))
    return path


def load_in_batches_of_2(monkeypatch, ch_conn, world, path) -> int:
    monkeypatch.setattr(columnar, "COLUMNAR_BATCH", 2)
    return load_file(ch_conn, world.project_id, path, now=NOW, batch_size=2).loaded


def persons_after(ch_conn, ch) -> tuple[dict[str, int], int, list[tuple[str, int]]]:
    """Distinct id -> person in SQLite, the count of persons, and each event's distinct id and person in
    ClickHouse in time order."""
    person_of = dict(ch_conn.execute("SELECT distinct_id, person_id FROM person_distinct_ids"))
    (count,) = ch_conn.execute("SELECT count(*) FROM persons").fetchone()
    stored = ch.query_rows(f"SELECT distinct_id, person_id FROM `{ch.database}`.events ORDER BY timestamp")
    return person_of, count, [tuple(row) for row in stored]


def test_a_group_identified_in_three_batches_keeps_its_first_time_and_every_later_value(
    monkeypatch, ch_conn, ch, tmp_path, world
):
    """Batches of 2 rows; acme is identified in each: {a: 1}, then {b: 2}, then {a: 3}."""
    path = write(tmp_path, [
        event("$groupidentify", "u1", 0, **{"$group_type": "company", "$group_key": "acme", "$group_set": {"a": 1}}),
        event("$pageview", "u1", 1),
        event("$groupidentify", "u1", 2, **{"$group_type": "company", "$group_key": "acme", "$group_set": {"b": 2}}),
        event("$pageview", "u2", 3),
        event("$groupidentify", "u2", 4, **{"$group_type": "company", "$group_key": "acme", "$group_set": {"a": 3}}),
    ])  # fmt: skip
    assert load_in_batches_of_2(monkeypatch, ch_conn, world, path) == 5
    stored = ch_conn.execute("SELECT group_key, properties, created_at FROM groups").fetchall()
    assert [(key, json.loads(properties), created) for key, properties, created in stored] == [
        ("acme", {"a": 3, "b": 2}, T0)
    ]
    copy = ch.query_rows(f"SELECT argMax(properties, version) FROM `{ch.database}`.groups FINAL GROUP BY group_key")
    assert [json.loads(row[0]) for row in copy] == [{"a": 3, "b": 2}]


def another_connection_stores_person_50(monkeypatch, ch_conn, world, distinct_id: str, before: int = 2) -> None:
    """Just before the load's transaction number ``before`` (one per batch) begins, another connection stores
    person 50 with ``distinct_id``."""
    (database,) = [row[2] for row in ch_conn.execute("PRAGMA database_list") if row[1] == "main"]
    real_transaction, entered = columnar.write_transaction, []

    @contextmanager
    def transaction(conn):
        entered.append(True)
        if len(entered) == before:
            other = open_database(database)
            with other:
                other.execute(
                    "INSERT INTO persons (id, project_id, uuid, properties, is_identified, created_at)"
                    " VALUES (50, ?, '00000000-0000-5000-8000-000000000050', '{}', 0, 0)",
                    (world.project_id,),
                )
                other.execute(
                    "INSERT INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES (?, ?, 50)",
                    (world.project_id, distinct_id),
                )
            other.close()
        with real_transaction(conn) as inside:
            yield inside

    monkeypatch.setattr(columnar, "write_transaction", transaction)


ROWS_A_TO_Z = [
    event("$pageview", "a", 0), event("$pageview", "b", 1),
    event("$pageview", "c", 2), event("$pageview", "d", 3),
    event("$pageview", "z", 4), event("$pageview", "a", 5),
]  # fmt: skip


def test_a_distinct_id_another_connection_stores_between_batches_keeps_its_person(
    monkeypatch, ch_conn, ch, tmp_path, world
):
    """Batches of 2 rows in a project with no persons. Between the first batch's commit and the second's, another
    connection stores person 50 for ``z``; ``z`` first appears in the third batch, decided after that commit: its
    event goes to person 50, and ``a`` (from the first batch) keeps its person. (The second batch, decided before
    the commit, is decided again: c and d are numbered after person 50.)"""
    another_connection_stores_person_50(monkeypatch, ch_conn, world, "z")
    assert load_in_batches_of_2(monkeypatch, ch_conn, world, write(tmp_path, ROWS_A_TO_Z)) == 6
    assert persons_after(ch_conn, ch) == (
        {"a": 1, "b": 2, "c": 51, "d": 52, "z": 50},
        5,
        [("a", 1), ("b", 2), ("c", 51), ("d", 52), ("z", 50), ("a", 1)],
    )


def test_a_batch_decided_before_another_connection_commits_is_decided_again(monkeypatch, ch_conn, ch, tmp_path, world):
    """The second batch (c, d) is decided while the first is written; then, before the second's transaction
    begins, another connection stores person 50 for ``c``. The second batch is decided again: ``c`` keeps person
    50 (not a new person that takes its distinct id away), and ``d`` is numbered after the highest person."""
    another_connection_stores_person_50(monkeypatch, ch_conn, world, "c")
    assert load_in_batches_of_2(monkeypatch, ch_conn, world, write(tmp_path, ROWS_A_TO_Z)) == 6
    assert persons_after(ch_conn, ch) == (
        {"a": 1, "b": 2, "c": 50, "d": 51, "z": 52},
        5,
        [("a", 1), ("b", 2), ("c", 50), ("d", 51), ("z", 52), ("a", 1)],
    )


def test_the_first_batch_is_decided_again_when_another_connection_commits_before_it_is_written(
    monkeypatch, ch_conn, ch, tmp_path, world
):
    """The first batch is decided before any transaction; another connection stores person 50 for ``a`` before
    the first transaction begins: ``a`` keeps person 50 in both of its batches."""
    another_connection_stores_person_50(monkeypatch, ch_conn, world, "a", before=1)
    assert load_in_batches_of_2(monkeypatch, ch_conn, world, write(tmp_path, ROWS_A_TO_Z)) == 6
    assert persons_after(ch_conn, ch) == (
        {"a": 50, "b": 51, "c": 52, "d": 53, "z": 54},
        5,
        [("a", 50), ("b", 51), ("c", 52), ("d", 53), ("z", 54), ("a", 50)],
    )


def test_group_types_take_their_indexes_in_the_order_the_events_name_them(monkeypatch, ch_conn, ch, tmp_path, world):
    """company is named first by a $groupidentify, team then only in $groups (an event the person rules never
    see), a $group_type that is not text names nothing, nor does a $groupidentify or a $groups entry whose key
    names no group (empty, null, an object, an array), and project comes in a later batch."""
    path = write(tmp_path, [
        event("$groupidentify", "u1", 0, **{"$group_type": "company", "$group_key": "acme"}),
        event("$pageview", "u1", 1, **{"$groups": {"team": "core"}}),
        event("$groupidentify", "u1", 2, **{"$group_type": 7, "$group_key": "x"}),
        *(event("$groupidentify", "u1", 3 + n, **{"$group_type": "org", "$group_key": key})
          for n, key in enumerate(["", None, {"id": 1}, [1]])),
        event("$pageview", "u1", 7, **{"$groups": {"squad": "", "guild": None}}),
        event("$groupidentify", "u1", 8, **{"$group_type": "project", "$group_key": "p1"}),
    ])  # fmt: skip
    assert load_in_batches_of_2(monkeypatch, ch_conn, world, path) == 9
    mappings = ch_conn.execute(
        "SELECT group_type, group_type_index FROM group_type_mappings WHERE project_id = ? ORDER BY 2",
        (world.project_id,),
    ).fetchall()
    assert [tuple(row) for row in mappings] == [("company", 0), ("team", 1), ("project", 2)]
    stored = ch.query_rows(
        f"SELECT timestamp, group_1 FROM `{ch.database}`.events WHERE event = '$pageview' ORDER BY timestamp"
    )
    assert [row[1] for row in stored] == ["core", None]


def test_past_the_most_distinct_ids_it_remembers_a_load_looks_the_others_up(monkeypatch, ch_conn, ch, tmp_path, world):
    """Batches of 2 rows, at most 3 distinct ids remembered: a and b are; c and d, stored by the second batch,
    are not, so the third batch finds d (and the fourth c) in SQLite rather than taking them for new ids."""
    path = write(tmp_path, [
        event("$pageview", "a", 0), event("$pageview", "b", 1),
        event("$pageview", "c", 2), event("$pageview", "d", 3),
        event("$pageview", "a", 4), event("$pageview", "d", 5),
        event("$pageview", "e", 6), event("$pageview", "c", 7),
    ])  # fmt: skip
    monkeypatch.setattr(run_memory, "MAX_REMEMBERED_IDS", 3)
    assert load_in_batches_of_2(monkeypatch, ch_conn, world, path) == 8
    assert persons_after(ch_conn, ch) == (
        {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5},
        5,
        [("a", 1), ("b", 2), ("c", 3), ("d", 4), ("a", 1), ("d", 4), ("e", 5), ("c", 3)],
    )


def test_a_groupidentify_names_its_own_group_type_before_those_of_its_groups(ch_conn, ch, tmp_path, world):
    """As capture meets them: the group identified first, then the event's $groups (in their order)."""
    path = write(tmp_path, [
        event("$groupidentify", "u1", 0, **{"$group_type": "team", "$group_key": "core",
                                            "$groups": {"project": "p1", "company": "acme"}}),
    ])  # fmt: skip
    assert load_file(ch_conn, world.project_id, path, now=NOW).loaded == 1
    mappings = ch_conn.execute(
        "SELECT group_type, group_type_index FROM group_type_mappings WHERE project_id = ? ORDER BY 2",
        (world.project_id,),
    ).fetchall()
    assert [tuple(row) for row in mappings] == [("team", 0), ("project", 1), ("company", 2)]


def test_a_file_larger_than_the_batches_allow_is_stored_in_fewer_larger_batches(
    monkeypatch, ch_conn, ch, tmp_path, world
):
    """At least 2 rows a batch and at most 4 batches: 30 rows go in 4 batches of 8, 8, 8 and 6 rows (each one
    commit), and every event keeps its distinct id's person."""
    path = write(tmp_path, [event("$pageview", f"u{i % 10}", i) for i in range(30)])
    monkeypatch.setattr(columnar, "COLUMNAR_BATCHES", 4)
    copied: list[tuple[int, int]] = []
    real = columnar.Stage.copy

    def spy(self, groups, first, last, created_at):
        copied.append((first, last))
        return real(self, groups, first, last, created_at)

    monkeypatch.setattr(columnar.Stage, "copy", spy)
    assert load_in_batches_of_2(monkeypatch, ch_conn, world, path) == 30
    assert copied == [(1, 8), (9, 16), (17, 24), (25, 30)]
    _, count, stored = persons_after(ch_conn, ch)
    assert count == 10
    assert stored == [(f"u{i % 10}", i % 10 + 1) for i in range(30)]


def test_a_load_without_foreign_key_checks_leaves_every_distinct_id_on_a_stored_person(
    monkeypatch, ch_conn, ch, tmp_path, world
):
    """The load turns SQLite's foreign key checks off while it writes: batches of 2 rows, u2 identifies as the
    anonymous u1 in the second batch (u1's person, 1, merged into u2's, 2), u3 arrives in the third. Every distinct
    id names a stored person, and the checks are on again once the load is done."""
    path = write(tmp_path, [
        event("$pageview", "u1", 0),
        event("$pageview", "u2", 1),
        event("$identify", "u2", 2, **{"$anon_distinct_id": "u1"}),
        event("$pageview", "u1", 3),
        event("$pageview", "u3", 4),
    ])  # fmt: skip
    assert load_in_batches_of_2(monkeypatch, ch_conn, world, path) == 5
    person_of, count, _ = persons_after(ch_conn, ch)
    assert person_of == {"u1": 2, "u2": 2, "u3": 3}
    assert count == 2
    assert ch_conn.execute("PRAGMA foreign_key_check").fetchall() == []
    assert ch_conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        ch_conn.execute(
            "INSERT INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES (?, 'u9', 999)",
            (world.project_id,),
        )
