"""Each span's person ids as one ``group_concat`` text per span, parsed and counted in numpy.

Daily actives, a lifecycle's active intervals and a stickiness histogram all need, per span, the persons with a
matching event (and for a stickiness criterion their number of events there). Read as rows, that is a Python
tuple per (span, person) and a temporary b-tree for ``DISTINCT`` or ``GROUP BY``; read as one text per span,
each span's range of the ``(project_id, event, timestamp, person_id)`` index is walked once, in order, without
reading a row or sorting anything in SQLite, and numpy sorts the ids of one span at a time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence

import numpy as np

from ...integer_text import integers
from ..interface import COUNT_OPERATORS, Fragment, Span

__all__ = ["spans_table", "person_ids_by_span", "distinct_persons_by_span", "person_interval_counts"]

_PERSON = "e.person_id"


def spans_table(spans: Sequence[Span]) -> str:
    """The spans as an inlined ``b(i, lo, hi)`` table: integers made by the caller, never user text, so a long
    range cannot run out of parameters."""
    rows = ", ".join(f"({index}, {int(low)}, {int(high)})" for index, (low, high) in enumerate(spans))
    return f"b(i, lo, hi) AS (VALUES {rows})"


def _cursor(conn: sqlite3.Connection) -> sqlite3.Cursor:
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor


def person_ids_by_span(
    conn: sqlite3.Connection, project_id: int, spans: Sequence[Span], where: Fragment
) -> Iterator[np.ndarray | None]:
    """Each span's person ids, one per matching event, sorted (None for a span whose ids are not all
    integers, which SQL must then handle)."""
    where_sql, where_params = where
    sql = (
        f"WITH {spans_table(spans)} SELECT (SELECT group_concat({_PERSON}) FROM events e WHERE"
        f" e.project_id = ? AND e.timestamp >= b.lo AND e.timestamp < b.hi AND {where_sql}) FROM b"
    )
    for (text,) in _cursor(conn).execute(sql, [project_id, *where_params]):
        if not text:
            yield np.zeros(0, dtype=np.int64)
            continue
        ids = integers(text)
        if ids is not None:
            ids.sort()  # several times faster than np.unique's hash table here
        yield ids


def _runs(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of sorted ``ids`` and how often each occurs."""
    if ids.size == 0:
        return ids, np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate(([True], ids[1:] != ids[:-1])))
    return ids[starts], np.diff(np.append(starts, ids.size))


def distinct_persons_by_span(
    conn: sqlite3.Connection, project_id: int, spans: Sequence[Span], where: Fragment
) -> list[np.ndarray] | None:
    """Each span's distinct person ids (ascending), or None if a span's ids are not all integers."""
    persons = []
    for ids in person_ids_by_span(conn, project_id, spans, where):
        if ids is None:
            return None
        persons.append(_runs(ids)[0])
    return persons


def _meets(counts: np.ndarray, operator: str, value: int) -> np.ndarray:
    if operator == COUNT_OPERATORS[0]:
        return counts >= value
    if operator == COUNT_OPERATORS[1]:
        return counts <= value
    return counts == value


def person_interval_counts(
    conn: sqlite3.Connection, project_id: int, spans: Sequence[Span], where: Fragment, operator: str, value: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """The persons (ascending) with a span whose matching events number ``operator`` ``value``, and how many
    such spans each has; None if a span's ids are not all integers."""
    counted = []
    for ids in person_ids_by_span(conn, project_id, spans, where):
        if ids is None:
            return None
        persons, events = _runs(ids)
        counted.append(persons[_meets(events, operator, value)])
    if not counted:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    persons, intervals = _runs(np.sort(np.concatenate(counted)))
    return persons, intervals
