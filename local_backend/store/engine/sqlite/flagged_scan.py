"""The SQLite event store's flagged scan: each event of a range with the bits of the conditions it matches, in
actor and time order, for the funnel engine.

It returns as few integer columns as it can: for persons without a value the flags are packed beside the person
id, so each row is two integers (every column less is a Python object less per row, which is most of the cost
of reading rows), and where the person index is there, each range of persons comes back as two
``group_concat`` texts parsed in numpy. A scan with a ``$browser`` value is read from the browser index when it
can be (:mod:`.flagged_values`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np

from ...integer_text import integers
from ..interface import FlaggedRows, FlaggedScan, Fragment
from .covering import BROWSER_INDEX
from .flagged_values import browser_flagged_rows

__all__ = ["events_in_person_order", "has_index", "max_person_id", "sqlite_flagged_rows"]

_TEXT_CHUNK_PERSONS = 50_000  # persons per group_concat text of a flagged scan: a few MB of text each
_MIN_ID, _MAX_ID = -(1 << 63), (1 << 63) - 1


def _cursor(conn: sqlite3.Connection) -> sqlite3.Cursor:
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor


def has_index(conn: sqlite3.Connection, name: str) -> bool:
    """Whether index ``name`` is there (a bulk load drops some while it runs, local_backend/loading/deferred.py)."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", (name,)).fetchone() is not None


def events_in_person_order(conn: sqlite3.Connection) -> str:
    """The events table read in person order: through the person index, unless a bulk load is building it
    (local_backend/loading/deferred.py), when SQLite sorts instead."""
    return "events e INDEXED BY idx_events_person_ts" if has_index(conn, "idx_events_person_ts") else "events e"


def _by_event_and_time(conn: sqlite3.Connection, request: FlaggedScan, persons: int) -> bool:
    """Whether a packed scan reads the ``(event, timestamp)`` index instead of the person index.

    The person index hands the rows in order but is read whole, every event of every time; with the event names
    known, the event index reads only the range's events of those names (a 30-day funnel over 90 days of page
    views: 40% of the entries), and sorting them in numpy costs less than the entries skipped. Only while one
    range of persons holds them all: a scan of several ranges would read the event index again for each.
    """
    return (
        request.only_flagged
        and request.events is not None
        and persons < _TEXT_CHUNK_PERSONS
        and has_index(conn, "idx_events_event_ts")
    )


def max_person_id(conn: sqlite3.Connection) -> int:
    """The largest person id of the file (0 without persons): whether a person id and the flags fit one integer."""
    row = conn.execute("SELECT max(id) FROM persons").fetchone()
    return int(row[0] or 0)


def _flags(parts: Sequence[Fragment]) -> Fragment:
    """One integer per event: bit ``i`` set when it matches ``parts[i]``."""
    if not parts:
        return "0", []
    sql = " + ".join(f"(CASE WHEN {cond} THEN {1 << bit} ELSE 0 END)" for bit, (cond, _) in enumerate(parts))
    return sql, [param for _, params in parts for param in params]


def _named_flags(names: Sequence[str]) -> Fragment:
    """The same integer from the event name alone (one lookup per row)."""
    bits: dict[str, int] = {}
    for bit, name in enumerate(names):
        bits[name] = bits.get(name, 0) | (1 << bit)
    cases = " ".join("WHEN ? THEN ?" for _ in bits)
    return f"(CASE e.event {cases} ELSE 0 END)", [value for item in bits.items() for value in item]


def sqlite_flagged_rows(conn: sqlite3.Connection, request: FlaggedScan) -> FlaggedRows:
    """``EventStore.flagged_rows`` on SQLite: the request's rows, ordered by actor and time."""
    if request.flag_events is not None:
        flags_sql, flags_params = _named_flags(request.flag_events)
    else:
        flags_sql, flags_params = _flags(request.flags)
    bits = len(request.flags)
    by_person = request.group_type_index is None
    target = "e.person_id" if by_person else f"e.group_{int(request.group_type_index or 0)}"
    with_values = request.value is not None
    persons = max_person_id(conn) if by_person else 0
    packed = by_person and not with_values and persons < 1 << (62 - bits)
    by_event = packed and _by_event_and_time(conn, request, persons)
    packed_sql = f"e.person_id * {1 << bits} + {flags_sql}"
    if by_person and with_values and persons < 1 << (62 - bits) and has_index(conn, BROWSER_INDEX):
        found = browser_flagged_rows(conn, request, (flags_sql, flags_params), bits)
        if found is not None:
            return found
    if packed:
        columns, params = f"{packed_sql}, e.timestamp", [*flags_params]
    else:
        columns, params = f"{target}, e.timestamp, {flags_sql}", [*flags_params]
    if request.value is not None:
        columns += f", {request.value[0]}"
        params += request.value[1]
    # the unary + keeps SQLite from reading the (event, timestamp) index when the person index gives the order
    prefix = "+" if by_person and not by_event else ""
    where_sql, where_params = request.where
    conditions = ["e.project_id = ?", f"{prefix}e.timestamp >= ?", f"{prefix}e.timestamp <= ?", where_sql]
    params += [request.project_id, request.lower, request.upper, *where_params]
    if not by_person:
        conditions.append(f"{target} IS NOT NULL")
    if request.only_flagged:
        if request.events is not None:
            conditions.append(f"{prefix}e.event IN ({','.join('?' for _ in request.events) or 'NULL'})")
            params += list(request.events)
        if request.events is None or request.flag_events is None:
            conditions.append("(" + " OR ".join(f"({sql})" for sql, _ in request.flags) + ")")
            params += [param for _, part_params in request.flags for param in part_params]
    if by_event:
        source = "events e INDEXED BY idx_events_event_ts"
    else:
        source = events_in_person_order(conn) if by_person else "events e"
    if packed and source != "events e":  # the person index is there: each person range is read in order
        found = _packed_as_text(conn, packed_sql, source, " AND ".join(conditions), params, bits)
        if found is not None:
            return found
    sql = f"SELECT {columns} FROM {source} WHERE {' AND '.join(conditions)} ORDER BY {target}, e.timestamp"
    cursor = _cursor(conn)
    cursor.execute(sql, params)
    if packed:
        table = np.fromiter(chain.from_iterable(cursor), dtype=np.int64).reshape(-1, 2)
        actors, ts, flags = table[:, 0] >> bits, table[:, 1].copy(), table[:, 0] & ((1 << bits) - 1)
        return FlaggedRows(actors, ts, flags)
    fetched = cursor.fetchall()
    targets = [row[0] for row in fetched]
    keys: list[Any] | None = None
    if not by_person:
        codes: dict[Any, int] = {}
        targets = [codes.setdefault(key, len(codes)) for key in targets]
        keys = list(codes)
    return FlaggedRows(
        actors=np.array(targets, dtype=np.int64),
        timestamps=np.fromiter((row[1] for row in fetched), dtype=np.int64, count=len(fetched)),
        flags=np.fromiter((row[2] for row in fetched), dtype=np.int64, count=len(fetched)),
        values=[row[3] for row in fetched] if with_values else None,
        keys=keys,
    )


def _packed_as_text(
    conn: sqlite3.Connection, packed: str, source: str, where: str, params: list[Any], bits: int
) -> FlaggedRows | None:
    """A packed flagged scan as two ``group_concat`` texts (the packed person and flags, the timestamp) per
    range of person ids, parsed in numpy: half the cost of a Python row per event. None if a value is not
    an integer. ``params`` are the packed column's, then ``where``'s. The rows are aggregated in the person
    index's order; should SQLite ever take another, they are sorted here."""
    sql = (
        f"SELECT group_concat({packed}), group_concat(e.timestamp) FROM {source} WHERE {where}"
        " AND e.person_id >= ? AND e.person_id <= ?"
    )
    edges = list(range(_TEXT_CHUNK_PERSONS, max_person_id(conn) + 1, _TEXT_CHUNK_PERSONS))
    ranges = zip([_MIN_ID, *edges], [edge - 1 for edge in edges] + [_MAX_ID], strict=True)
    parts: list[tuple[np.ndarray, np.ndarray]] = []
    for low, high in ranges:
        packed_text, ts_text = _cursor(conn).execute(sql, [*params, low, high]).fetchone()
        if packed_text is None:
            continue
        values, ts = integers(packed_text), integers(ts_text)
        if values is None or ts is None or len(values) != len(ts):
            return None
        parts.append((values, ts))
    values = np.concatenate([part[0] for part in parts]) if parts else np.zeros(0, dtype=np.int64)
    ts = np.concatenate([part[1] for part in parts]) if parts else np.zeros(0, dtype=np.int64)
    actors = values >> bits
    in_order = (actors[1:] > actors[:-1]) | ((actors[1:] == actors[:-1]) & (ts[1:] >= ts[:-1]))
    if not in_order.all():
        order = np.lexsort((ts, actors))
        values, ts, actors = values[order], ts[order], actors[order]
    return FlaggedRows(actors, ts, values & ((1 << bits) - 1))
