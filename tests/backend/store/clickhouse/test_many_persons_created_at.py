"""Many persons' creation times on ClickHouse (a lifecycle's every active person) are read by the range of their ids
and answered as columns; the answer is the one a few persons get by their bound ids, and SQLite's.

The persons are those of ``test_event_store_parity.py`` (ids 1, 2, 3 with their creation times); the ids asked for
come unsorted, with a repeat and an id no person has.
"""

from __future__ import annotations

import numpy as np
import pytest

from local_backend.store.engine.clickhouse import event_store as clickhouse_event_store
from local_backend.store.engine.interface import CreatedColumns
from tests.backend.store.clickhouse.test_event_store_parity import people, project_id, stores  # noqa: F401

ASKED = [3, 1, 99_999, 2, 1]


def test_many_persons_read_by_their_id_range_answer_as_a_few_do(stores, project_id, monkeypatch):  # noqa: F811
    sqlite_store, clickhouse_store = stores
    expected = sorted(sqlite_store.actors_created_at(project_id, ASKED))
    assert [person for person, _ in expected] == [1, 2, 3]
    assert sorted(clickhouse_store.actors_created_at(project_id, ASKED)) == expected
    monkeypatch.setattr(clickhouse_event_store, "_FEW_ACTORS", 0)
    found = clickhouse_store.actors_created_at(project_id, ASKED)
    assert isinstance(found, CreatedColumns)
    assert found.actors.dtype == np.int64 and found.created.dtype == np.int64
    assert sorted(found) == expected
    assert all(type(person) is int and type(created) is int for person, created in found)


@pytest.mark.parametrize("asked", [[99_998, 99_999], [1]])
def test_a_range_holding_none_of_them_or_one_answers_exactly_those(stores, project_id, monkeypatch, asked):  # noqa: F811
    sqlite_store, clickhouse_store = stores
    monkeypatch.setattr(clickhouse_event_store, "_FEW_ACTORS", 0)
    assert sorted(clickhouse_store.actors_created_at(project_id, asked)) == sorted(
        sqlite_store.actors_created_at(project_id, asked)
    )


def test_a_person_stored_twice_before_a_merge_answers_its_earliest_creation(stores, project_id, monkeypatch):  # noqa: F811
    # ReplacingMergeTree keeps a person's rows apart until a merge: here 2 has a newer row created an hour earlier
    # (a merge of an older person into it) and 3 a newer row created later; each answers its earliest creation
    _, clickhouse_store = stores
    monkeypatch.setattr(clickhouse_event_store, "_FEW_ACTORS", 0)
    before = dict(clickhouse_store.actors_created_at(project_id, ASKED))
    persons = clickhouse_store.dialect.table("persons")
    hour = 3_600_000_000
    clickhouse_store.client.command(
        f"INSERT INTO {persons} (project_id, id, uuid, properties, created_at, version) VALUES"
        f" ({project_id}, 2, 'u2', '{{}}', {before[2] - hour}, 99),"
        f" ({project_id}, 3, 'u3', '{{}}', {before[3] + hour}, 99)"
    )
    assert dict(clickhouse_store.actors_created_at(project_id, ASKED)) == {
        1: before[1],
        2: before[2] - hour,
        3: before[3],
    }
