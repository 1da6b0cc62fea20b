"""``?`` marks become ClickHouse server-side parameters; values are bound, never pasted into the SQL."""

from __future__ import annotations

import pytest

from local_backend.store.engine.clickhouse.params import bind, clickhouse_type


def test_marks_become_typed_named_parameters_in_order():
    sql, params = bind("a = ? AND b > ? AND c < ? AND d = ?", ["x", 5, 1.5, True])
    assert sql == "a = {p0:String} AND b > {p1:Int64} AND c < {p2:Float64} AND d = {p3:Bool}"
    assert params == {"p0": "x", "p1": 5, "p2": 1.5, "p3": True}


def test_a_mark_inside_a_quoted_literal_or_identifier_is_text():
    sql, params = bind("match(x, '^a?b') AND `we?ird` = ? AND y = 'it''s ?' AND z = 'a\\'?'", ["v"])
    assert sql == "match(x, '^a?b') AND `we?ird` = {p0:String} AND y = 'it''s ?' AND z = 'a\\'?'"
    assert params == {"p0": "v"}


def test_a_value_that_looks_like_sql_stays_a_parameter():
    sql, params = bind("e.event = ?", ["x' OR 1 = 1 --"])
    assert sql == "e.event = {p0:String}"
    assert params == {"p0": "x' OR 1 = 1 --"}


def test_none_is_the_null_keyword_and_lists_are_arrays():
    sql, params = bind("a = ? AND has(?, b) AND has(?, c)", [None, [1, 2], ["x", None]])
    assert sql == "a = NULL AND has({p0:Array(Int64)}, b) AND has({p1:Array(Nullable(String))}, c)"
    assert params == {"p0": [1, 2], "p1": ["x", None]}


def test_a_static_cohort_binds_its_members():
    sql, params = bind("has(il_cohort_members(?), e.person_id) AND e.event = ?", [7, "x"], {7: [3, 1]}.__getitem__)
    assert sql == "has({p0:Array(Int64)}, e.person_id) AND e.event = {p1:String}"
    assert params == {"p0": [3, 1], "p1": "x"}


def test_marks_and_parameters_must_agree():
    with pytest.raises(ValueError, match="more"):
        bind("a = ? AND b = ?", [1])
    with pytest.raises(ValueError, match="fewer"):
        bind("a = ?", [1, 2])
    with pytest.raises(TypeError):
        clickhouse_type(object())
