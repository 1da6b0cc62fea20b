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
