"""The chdb client binds every parameter exactly and inserts Arrow columns by name (the writer relies on both)."""

from __future__ import annotations

import pyarrow as pa
import pytest


@pytest.mark.parametrize(
    "value", ["plain", "it's", 'a "quote"', "back\\slash", "new\nline", "tab\there", "\\N", "é ☃", ""]
)
def test_a_string_parameter_arrives_exactly(ch, value):
    assert ch.query_rows("SELECT {v:String}", {"v": value}) == [(value,)]


def test_null_numbers_and_arrays_arrive_exactly(ch):
    texts = ["a'b", "c\\d", "e\nf", "[x]"]
    assert ch.query_rows(
        "SELECT {n:Nullable(String)}, {i:Int64}, {a:Array(String)}, {b:Array(Int64)}",
        {"n": None, "i": -5, "a": texts, "b": [1, 2]},
    ) == [(None, -5, texts, [1, 2])]


def test_insert_arrow_matches_columns_by_name(ch):
    ch.command(f"CREATE TABLE `{ch.database}`.pairs (a Int64, b String) ENGINE = MergeTree ORDER BY a")
    ch.insert_arrow(f"`{ch.database}`.pairs", pa.table({"b": ["x", "y"], "a": pa.array([2, 1], pa.int64())}))
    assert ch.query_rows(f"SELECT a, b FROM `{ch.database}`.pairs ORDER BY a") == [(1, "y"), (2, "x")]
