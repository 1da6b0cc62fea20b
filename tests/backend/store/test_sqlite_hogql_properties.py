"""HogQL property reads on SQLite: SQLite's JSON functions or a hot column, with the answers of the Python reader.

Each event holds one value under ``k`` and under ``$browser`` (a hot key: read from ``v_browser``), written as
capture stores it (raw UTF-8, ``ensure_ascii=False``). The expected texts are HogQL's (and
:func:`local_backend.json_values.json_property`'s): numbers as SQLite prints them, booleans as ``true``/
``false``, arrays and objects as Python writes JSON (escaped non-ASCII, no spaces), NULL for null or missing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from local_backend.json_values import json_property
from local_backend.queries.sql import read_hogql_node, run_hogql_query
from local_backend.store.engine.choice import open_database
from local_backend.store.migrations import migrate
from local_backend.store.projects import create_project
from tests.factories import NOW, add_events

_MISSING = object()
VALUES: list[tuple[Any, str | None]] = [
    ("Chrome", "Chrome"),
    ("ünï", "ünï"),
    ("", ""),
    (5, "5"),
    (2.5, "2.5"),
    (1e20, "1.0e+20"),
    (12345678901234567890, "1.23456789012346e+19"),  # beyond 64 bits: a real, as SQLite reads it
    (-0.0, "0.0"),
    (True, "true"),
    (False, "false"),
    ("true", "true"),
    (None, None),
    (_MISSING, None),
    (["ä", "b"], '["\\u00e4","b"]'),
    ({"a": [1, 2]}, '{"a":[1,2]}'),
    ("[not json", "[not json"),  # a text that only looks like an array
    ("x\u0000y", "x\u0000y"),  # SQLite's JSON functions would end it at the NUL
]


@pytest.fixture(scope="module")
def ask(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    path: Path = tmp_path_factory.mktemp("props") / "props.db"
    migrate(path)
    conn = open_database(path)
    project = create_project(conn, name="Props", timezone="UTC", now="2026-01-01T00:00:00Z")
    times = [f"2026-01-10T10:{minute:02d}:00Z" for minute in range(len(VALUES))]
    add_events(conn, project["id"], [("e", "a", when) for when in times])
    ids = [
        row[0]
        for row in conn.execute("SELECT id FROM events WHERE project_id = ? ORDER BY timestamp", (project["id"],))
    ]
    for (value, _), event_id in zip(VALUES, ids, strict=True):
        properties = {} if value is _MISSING else {"k": value, "$browser": value}
        text = json.dumps(properties, ensure_ascii=False)
        conn.execute("UPDATE events SET properties = ? WHERE id = ?", (text, event_id))
    conn.commit()

    def run(query: str) -> list[list[Any]]:
        return run_hogql_query(conn, project, read_hogql_node({"kind": "HogQLQuery", "query": query}), NOW)["results"]

    yield run
    conn.close()


def test_the_expected_texts_are_the_python_readers():
    for value, expected in VALUES:
        text = json.dumps({} if value is _MISSING else {"k": value}, ensure_ascii=False)
        assert json_property(text, "k") == expected


@pytest.mark.parametrize("read", ["properties.k", "properties['k']", "properties.$browser", "e.properties.$browser"])
def test_each_value_reads_as_hogql_text(ask, read):
    rows = ask(f"select {read} from events as e order by timestamp")
    assert [row[0] for row in rows] == [expected for _, expected in VALUES]


def test_a_hot_key_groups_as_its_json_reads(ask):
    rows = ask(
        "select properties.$browser as b, count() from events where b in ('5', 'true', '0.0') group by b order by b"
    )
    assert rows == [["0.0", 1], ["5", 1], ["true", 2]]
