"""Generated keys and values read back by the SQLite dialect exactly as stored.

Every key and text value capture can store (any text without a lone surrogate, NUL included) is written as
the events table writes properties (``json.dumps``, ASCII escapes) beside a neighbour whose key starts with
it, then read with each of the dialect's readers; the expected answers are the values themselves.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from local_backend.store.engine.sqlite.dialect import SQLiteDialect, register_functions

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
AWKWARD = st.sampled_from(["\\", '"', "\n", "\t", "\x00", ".", "[", "]", "$", "*", "é", "\u2028", "'", " ", "ab"])
KEYS = st.lists(st.one_of(AWKWARD, TEXT), min_size=1, max_size=4).map("".join)
VALUES = st.one_of(TEXT, AWKWARD, st.integers(-(2**63), 2**63 - 1), st.booleans(), st.none())
DIALECT = SQLiteDialect()


def _run(reader: tuple[str, list[Any]], doc: str) -> Any:
    conn = sqlite3.connect(":memory:")
    register_functions(conn)
    sql, params = reader
    return conn.execute(f"WITH d(doc) AS (SELECT ?) SELECT {sql} FROM d", [doc, *params]).fetchone()[0]


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(key=KEYS, value=VALUES, neighbour=TEXT)
def test_every_key_and_value_reads_back(key: str, value: Any, neighbour: str) -> None:
    doc = json.dumps({key: value, key + "\x00": neighbour, key + "x": neighbour}, separators=(",", ":"))
    if isinstance(value, bool):
        extracted, text, kind = int(value), json.dumps(value), json.dumps(value)
    elif value is None:
        extracted, text, kind = None, "null", "null"
    else:
        extracted, text, kind = value, str(value), "text" if isinstance(value, str) else "integer"
    assert _run(DIALECT.extract("doc", key), doc) == extracted
    assert _run(DIALECT.text("doc", key), doc) == text
    assert _run(DIALECT.json_type("doc", key), doc) == kind
    assert _run(DIALECT.breakdown_value("doc", key), doc) == (None if value is None or value == "" else text)
    assert _run(DIALECT.json_type("doc", key + "y"), doc) is None


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(key=KEYS, value=TEXT)
def test_a_key_reads_the_same_in_a_text_without_nul(key: str, value: str) -> None:
    # the texts SQLite's own functions read (no escaped NUL anywhere): the SQL path, not the Python one
    key, value = key.replace("\x00", ""), value.replace("\x00", "")
    doc = json.dumps({key: value, key + "x": 1}, separators=(",", ":"))
    assert _run(DIALECT.text("doc", key), doc) == value
    assert _run(DIALECT.json_type("doc", key), doc) == "text"
