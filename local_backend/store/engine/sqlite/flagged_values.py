"""A flagged scan broken down by ``$browser``, read from the browser index alone.

A retention broken down by ``$browser`` reads each event's breakdown value; through the person index that is the
generated column ``v_browser``, a JSON parse of the row's ``properties`` for every event of the range. The browser
index ``(project_id, event, v_browser, timestamp, v_os, person_id)`` holds the value, the person and the time,
so when the statement needs no other column (:func:`.covering.covered_by_browser_index`) and the value is made
from ``v_browser`` alone, it is read from that index once, grouped by event name and browser in the index's
own order (no sort in SQLite), each group's packed person and flags, timestamps and row ids coming back as
``group_concat`` texts parsed in numpy.

The rows are then put in the person index's order, ties included: by person, time, event name (SQLite compares
names by their UTF-8 bytes, as Python compares code points) and row id, so each person's first event of a
period is the one the person-index scan would give.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import numpy as np

from ...integer_text import integers
from ..interface import FlaggedRows, FlaggedScan
from .covering import BROWSER_INDEX, columns_named, covered_by_browser_index

__all__ = ["browser_flagged_rows"]


def _cursor(conn: sqlite3.Connection) -> sqlite3.Cursor:
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor


def browser_flagged_rows(
    conn: sqlite3.Connection, request: FlaggedScan, flags: tuple[str, list[Any]], bits: int
) -> FlaggedRows | None:
    """The rows of a by-person :class:`FlaggedScan` with a ``v_browser`` value, in person-index order; None when
    the browser index cannot answer it alone (or an id is not an integer), for the caller's usual scan.

    ``flags`` is the bits' SQL; person ids times ``2 ** bits`` plus the flags must fit 63 bits (the caller
    checks)."""
    if request.value is None or request.group_type_index is not None:
        return None
    value_sql, value_params = request.value
    where_sql, where_params = request.where
    flags_sql, flags_params = flags
    flag_sqls = [sql for sql, _ in request.flags]
    if columns_named(value_sql) != {"v_browser"} or not covered_by_browser_index(
        value_sql, where_sql, flags_sql, *flag_sqls
    ):
        return None
    conditions = ["e.project_id = ?", "e.timestamp >= ?", "e.timestamp <= ?", where_sql]
    params: list[Any] = [request.project_id, request.lower, request.upper, *where_params]
    if request.only_flagged:
        if request.events is not None:
            conditions.append(f"e.event IN ({','.join('?' for _ in request.events) or 'NULL'})")
            params += list(request.events)
        conditions.append("(" + " OR ".join(f"({sql})" for sql in flag_sqls) + ")")
        params += [param for _, part_params in request.flags for param in part_params]
    sql = (
        f"SELECT e.event, {value_sql}, group_concat(e.person_id * {1 << bits} + {flags_sql}),"
        f" group_concat(e.timestamp), group_concat(e.rowid) FROM events e INDEXED BY {BROWSER_INDEX}"
        f" WHERE {' AND '.join(conditions)} GROUP BY e.event, e.v_browser"
    )
    groups = _cursor(conn).execute(sql, [*value_params, *flags_params, *params]).fetchall()
    return _in_person_order(groups, bits)


def _in_person_order(groups: list[tuple[Any, ...]], bits: int) -> FlaggedRows | None:
    names = sorted({str(group[0]) for group in groups})
    rank = {name: index for index, name in enumerate(names)}
    packed, stamps, rowids, events, codes = [], [], [], [], []
    values: list[Any] = []
    for event, value, packed_text, ts_text, rowid_text in groups:
        found = [integers(text) for text in (packed_text, ts_text, rowid_text)]
        if any(numbers is None for numbers in found):
            return None
        numbers, ts, ids = (np.asarray(numbers) for numbers in found)
        if not len(numbers) == len(ts) == len(ids):
            return None
        packed.append(numbers)
        stamps.append(ts)
        rowids.append(ids)
        events.append(np.full(len(numbers), rank[str(event)], dtype=np.int64))
        codes.append(np.full(len(numbers), len(values), dtype=np.int64))
        values.append(value)
    if not packed:
        empty = np.zeros(0, dtype=np.int64)
        return FlaggedRows(empty, empty.copy(), empty.copy(), values=[])
    every = np.concatenate(packed)
    actors, ts = every >> bits, np.concatenate(stamps)
    order = np.lexsort((np.concatenate(rowids), np.concatenate(events), ts, actors))
    chosen = np.concatenate(codes)[order]
    return FlaggedRows(
        actors[order], ts[order], every[order] & ((1 << bits) - 1), values=[values[code] for code in chosen.tolist()]
    )
