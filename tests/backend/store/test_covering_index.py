"""Which statements SQLite reads from ``idx_events_browser`` alone, and the span of an event computed in SQL."""

from __future__ import annotations

import sqlite3

import pytest

from local_backend.store.engine.sqlite.covering import covered_by_browser_index, span_index

GROUP = "coalesce(nullif(CAST(e.v_browser AS TEXT), ''), ?)"


@pytest.mark.parametrize(
    ("group", "fragments", "covered"),
    [
        (GROUP, ("e.event = ?", "count(*)"), True),
        ("e.v_os", ("(e.event = ? AND e.v_browser = ?)", "count(*)"), True),
        # grouped by nothing the index holds: the (event, timestamp) index serves it better
        ("e.event", ("e.event = ?", "count(*)"), False),
        (GROUP, ("e.event = ? AND json_extract(e.properties, ?) = ?", "count(*)"), False),
        # the index holds the person (migration 0032): unique persons, and a person-property condition as the
        # SQLite dialect writes it, whose persons are other tables' columns through their own alias
        (GROUP, ("e.event = ?", "count(DISTINCT e.person_id)"), True),
        (
            GROUP,
            (
                "e.event = ? AND (CASE WHEN e.person_id IN (SELECT p.id FROM persons p WHERE +p.project_id = ?"
                " AND json_extract(p.properties, ?) = ?) THEN 1 ELSE 0 END)",
                "count(*)",
            ),
            True,
        ),
        (GROUP, ("e.event = ?", "count(DISTINCT e.distinct_id)"), False),
        (GROUP, ("e.event = ? AND e.mat_plan = ?", "count(*)"), False),
        # a column named without the alias, in a subquery: maybe this table's, so not provably covered
        (GROUP, ("e.event IN (SELECT event FROM events WHERE distinct_id = ?)", "count(*)"), False),
        # another table's columns through its own alias do not read events
        (GROUP, ("e.event = ? AND EXISTS (SELECT 1 FROM cohorts c WHERE c.id = ?)", "count(*)"), True),
    ],
)
def test_covered_statements(group, fragments, covered):
    assert covered_by_browser_index(group, *fragments) is covered


@pytest.mark.parametrize(
    ("spans", "moments"),
    [
        ([(0, 10), (10, 20), (20, 30)], {0: 0, 9: 0, 10: 1, 29: 2}),  # one width: an integer division
        ([(0, 5), (5, 15), (15, 16), (16, 40)], {0: 0, 4: 0, 5: 1, 14: 1, 15: 2, 16: 3, 39: 3}),  # widths differ
        ([(7, 8)], {7: 0}),
    ],
)
def test_span_index_finds_the_span_of_each_moment(spans, moments):
    expression = span_index(spans, column="t")
    conn = sqlite3.connect(":memory:")
    for moment, index in moments.items():
        assert conn.execute(f"SELECT {expression} FROM (SELECT ? AS t)", (moment,)).fetchone()[0] == index


@pytest.mark.parametrize("spans", [[], [(0, 10), (11, 20)], [(0, 10), (5, 20)], [(5, 5)]])
def test_span_index_refuses_spans_with_gaps_or_overlaps(spans):
    assert span_index(spans) is None
