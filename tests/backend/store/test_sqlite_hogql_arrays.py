"""HogQL's array functions on SQLite, where an array is JSON text: read as ClickHouse reads arrays, written as
SQLite writes JSON (so an array made here equals the same array made by ``json_array``)."""

from __future__ import annotations

import sqlite3

import pytest

from local_backend.store.engine.sqlite.hogql_arrays import (
    array_element,
    array_index,
    array_join,
    array_sort,
    register_array_functions,
    split_by_char,
)


@pytest.mark.parametrize(
    ("array", "value", "position"),
    [
        ('["a","b","a"]', "a", 1),
        ('["a","b"]', "b", 2),
        ('["a"]', "c", 0),
        ("[1,2.5]", 2.5, 2),
        ("[1,2]", 2.0, 2),  # numbers compare as numbers
        ('["1"]', 1, 0),  # text is no number
        ("[1,null]", None, 2),  # NULL finds NULL, as ClickHouse's indexOf
        ("[0]", None, 0),
        ("[]", 1, 0),
        (None, 1, None),
    ],
)
def test_array_index_is_one_based_and_zero_when_absent(array, value, position):
    assert array_index(array, value) == position


@pytest.mark.parametrize(
    ("index", "element"),
    [(1, 10), (3, 30), (-1, 30), (-3, 10), (4, "d"), (0, "d"), (-4, "d"), (None, "d")],
)
def test_array_element_counts_from_one_and_from_the_end(index, element):
    assert array_element("[10,20,30]", index, "d") == element


def test_split_join_and_sort_read_and_write_json():
    assert split_by_char(",", "a,,b") == '["a","","b"]'
    assert split_by_char(",", "") == '[""]'
    assert split_by_char(",", None) == "[]"
    assert array_join('["a",null,"b"]', "-") == "a-b"
    assert array_join('["a","b"]', None) == "ab"
    assert array_sort("[3,null,1,2.5]") == "[1,2.5,3,null]"
    assert array_sort('["b","ä","Z","a"]') == '["Z","a","b","ä"]'  # by code point, as ClickHouse by UTF-8 byte


def test_arrays_made_here_are_the_texts_sqlite_makes():
    conn = sqlite3.connect(":memory:")
    register_array_functions(conn)
    made = conn.execute(
        "SELECT json_array('ä', 'b c', '\"'), il_split_by_char(',', 'ä,b c,\"'),"
        " json_array(2.5, 1), il_array_sort(json_array(2.5, 1)), il_array_element(json_array('x'), 2, NULL)"
    ).fetchone()
    assert made[0] == made[1]
    assert made[2] == "[2.5,1]" and made[3] == "[1,2.5]"
    assert made[4] is None
