"""Each span's person ids as one ``group_concat`` text per span, parsed and counted in numpy.

Daily actives, a lifecycle's active intervals and a stickiness histogram all need, per span, the persons with a
matching event (and for a stickiness criterion their number of events there). Read as rows, that is a Python
tuple per (span, person) and a temporary b-tree for ``DISTINCT`` or ``GROUP BY``; read as one text per span,
each span's range of the ``(project_id, event, timestamp, person_id)`` index is walked once, in order, without
reading a row or sorting anything in SQLite, and numpy sorts the ids of one span at a time.

Leaving out personless events (a lifecycle's ``personful_only``) would mean reading every event's properties.
Instead the events that may be personless, those whose text names ``"$process_person_profile"`` or holds an
escaped NUL (which only Python's reading sees through), are in a partial index of their own (migration 0033,
:data:`PERSONLESS_INDEX`); the personless among them are counted per span and person, and a person whose
events in a span are all personless is dropped from it. The other events cannot be personless: without the
key's text the property is missing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence

import numpy as np

from ...integer_text import integers
from ..interface import COUNT_OPERATORS, ActiveActors, Fragment, Span, personless_condition
from .dialect import DIALECT
from .flagged_scan import has_index

__all__ = [
    "PERSONLESS_INDEX",
    "MAY_BE_PERSONLESS",
    "spans_table",
    "person_ids_by_span",
    "distinct_persons_by_span",
    "active_persons_by_span",
    "person_interval_counts",
]

_PERSON = "e.person_id"
PERSONLESS_INDEX = "idx_events_person_profile"
# the WHERE of PERSONLESS_INDEX as migration 0033 wrote it: a statement holding this very term may read the index
MAY_BE_PERSONLESS = "(instr(e.properties, '\"$process_person_profile\"') > 0 OR instr(e.properties, '\\u0000') > 0)"


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
    conn: sqlite3.Connection, project_id: int, spans: Sequence[Span], where: Fragment, source: str = "events e"
) -> Iterator[np.ndarray | None]:
    """Each span's person ids, one per matching event of ``source``, sorted (None for a span whose ids are not
    all integers, which SQL must then handle)."""
    where_sql, where_params = where
    sql = (
        f"WITH {spans_table(spans)} SELECT (SELECT group_concat({_PERSON}) FROM {source} WHERE"
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


def _personful_persons_by_span(
    conn: sqlite3.Connection, project_id: int, spans: Sequence[Span], where: Fragment
) -> list[np.ndarray] | None:
    """:func:`distinct_persons_by_span` of the events matching ``where`` that are not personless (module
    docstring)."""
    every = list(person_ids_by_span(conn, project_id, spans, where))
    less_sql, less_params = personless_condition(DIALECT)
    personless = (f"{MAY_BE_PERSONLESS} AND {where[0]} AND {less_sql}", [*where[1], *less_params])
    source = f"events e INDEXED BY {PERSONLESS_INDEX}"
    persons = []
    for ids, dropped in zip(every, person_ids_by_span(conn, project_id, spans, personless, source), strict=True):
        if ids is None or dropped is None:
            return None
        present, events = _runs(ids)
        if dropped.size:
            gone, gone_events = _runs(dropped)
            at = np.searchsorted(present, gone)
            keep = np.ones(present.size, dtype=bool)
            keep[at[events[at] == gone_events]] = False
            present = present[keep]
        persons.append(present)
    return persons


def active_persons_by_span(conn: sqlite3.Connection, request: ActiveActors) -> list[np.ndarray] | None:
    """Each span's distinct persons of an ungrouped :class:`ActiveActors` of persons, or None if a span's ids are
    not all integers."""
    if not request.personful_only:
        return distinct_persons_by_span(conn, request.project_id, request.spans, request.where)
    if has_index(conn, PERSONLESS_INDEX):
        return _personful_persons_by_span(conn, request.project_id, request.spans, request.where)
    # a bulk load is building the index (local_backend/loading/deferred.py): every event's properties are read
    return distinct_persons_by_span(conn, request.project_id, request.spans, request.events_where(DIALECT))


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
