"""The event store over the SQLite file's ``events``, ``persons`` and ``groups`` tables.

Statement shapes are chosen for SQLite's planner and for the cost of moving rows into Python:

* Spans are joined as a small inlined ``VALUES`` table (integers made by the caller, never user text, so a long
  range cannot run out of parameters), and SQLite walks the ``(project_id, event, timestamp, person_id)`` index
  once per span. Ungrouped counts use one correlated aggregate per span (each span's index range is read in
  order, nothing sorted; a join grouped by span sorts every matching row, 4x slower for a 30-day total).
* Ordered scans by person read the ``(project_id, person_id, timestamp, event)`` index in order (no sort); the
  unary ``+`` keeps SQLite from choosing another index for the timestamp or event terms and sorting afterwards.
* Persons per span (DAU, the days weekly/monthly actives slide over, lifecycles, stickiness) read each span's
  person ids as one ``group_concat`` text, counted in numpy (:mod:`.person_spans`): ``count(DISTINCT)``, ``SELECT
  DISTINCT`` and ``GROUP BY`` put every row into a temporary b-tree, and a row per person costs a Python tuple;
  the text costs neither.
* A flagged scan returns as few integer columns as it can (:mod:`.flagged_scan`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterable, Iterator, Sequence
from datetime import datetime
from itertools import chain, repeat
from typing import Any

import numpy as np

from ...event_rows import earliest_event_time
from ...integer_text import integers
from ..interface import (
    COUNT_OPERATORS,
    ActiveActors,
    ActiveIntervals,
    EventListing,
    FirstSeen,
    FlaggedRows,
    FlaggedScan,
    Fragment,
    IntervalColumns,
    Measure,
    PersonEventScan,
    PropertyValues,
    SpanAggregate,
    SqlAnswer,
    SqlRun,
    StoredEvent,
    TopValues,
)
from .browser_ranges import browser_ranges, counted_per_browser
from .covering import BROWSER_INDEX, columns_named, covered_by_browser_index, span_index
from .dialect import DIALECT, SQLiteDialect, register_functions
from .flagged_scan import events_in_person_order, has_index, sqlite_flagged_rows
from .hogql_print import print_sqlite
from .listing import (
    get_sqlite_event,
    list_sqlite_events,
    sqlite_has_events,
    sqlite_property_keys,
    sqlite_property_values,
)
from .person_spans import active_persons_by_span, distinct_persons_by_span, person_interval_counts, spans_table

__all__ = ["SQLiteEventStore"]

_SESSIONS = (
    "sd(session_id, duration) AS MATERIALIZED (SELECT session_id, (max(timestamp) - min(timestamp)) / 1000000.0"
    " FROM events WHERE project_id = ? AND session_id IS NOT NULL AND session_id != '' GROUP BY session_id)"
)
_SESSION_DURATION = "max(sd.duration)"
_PERSON_CHUNK = 500
_PERSON = "e.person_id"
_DISTINCT_PERSONS = f"count(DISTINCT {_PERSON})"
_COMPARISONS = dict(zip(COUNT_OPERATORS, (">=", "<=", "="), strict=True))


def _id_array(actors: Sequence[Any]) -> str:
    return json.dumps([int(actor) for actor in actors])


def _apply(measure: Measure, column: str) -> str:
    return measure.aggregate.replace("{v}", column)


class SQLiteEventStore:
    """:class:`~local_backend.store.engine.interface.EventStore` on one SQLite connection.

    Every statement runs on ``conn``, so a :class:`~local_backend.guard.CalculationGuard` watching
    the connection stops them all.
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        register_functions(conn)

    @property
    def dialect(self) -> SQLiteDialect:
        return DIALECT

    def _cursor(self) -> sqlite3.Cursor:
        cursor = self.conn.cursor()
        cursor.row_factory = None
        return cursor

    def earliest_event(self, project_id: int) -> datetime | None:
        return earliest_event_time(self.conn, project_id)

    def aggregate_spans(self, request: SpanAggregate) -> dict[tuple[int, Any], float]:
        if not request.spans:
            return {}
        measure = request.measure
        if measure.aggregate == _DISTINCT_PERSONS and measure.per is None and request.group is None:
            persons = distinct_persons_by_span(self.conn, request.project_id, request.spans, request.where)
            if persons is not None:
                return {(index, None): len(ids) for index, ids in enumerate(persons)}
        sql, params = _aggregate_sql(request)
        return {(row[0], row[1]): row[2] for row in self._cursor().execute(sql, params)}

    def aggregate_counted(
        self, request: SpanAggregate, *, max_groups: int
    ) -> dict[tuple[int, Any], tuple[float, int]] | None:
        measure = request.measure
        group_sql, group_params = request.counted_group()
        if not request.spans:
            return {}
        where_sql, where_params = request.where
        value_sql, value_params = measure.value
        aggregate = _apply(measure, value_sql)
        index = span_index(request.spans)
        # a bulk load drops the browser index while it runs (:mod:`local_backend.loading.deferred`)
        if index is not None and covered_by_browser_index(group_sql, where_sql, aggregate):
            if has_index(self.conn, BROWSER_INDEX):
                return self._counted_in_one_pass(request, index, max_groups)
        # per span, the values and their aggregates as one JSON object: each span's rows are grouped on their
        # own (small sorts) instead of one sort of every matching row
        sql = (
            f"WITH {spans_table(request.spans)} SELECT b.i, (SELECT json_group_object(g, json_array(a, n)) FROM"
            f" (SELECT {group_sql} AS g, {aggregate} AS a, count(*) AS n FROM events e"
            f" WHERE e.project_id = ? AND e.timestamp >= b.lo AND e.timestamp < b.hi AND {where_sql} GROUP BY 1))"
            " FROM b"
        )
        params = [*group_params, *value_params, request.project_id, *where_params]
        found: dict[tuple[int, Any], tuple[float, int]] = {}
        for index, packed in self._cursor().execute(sql, params):
            if not packed:
                continue
            for value, (aggregate, events) in json.loads(packed).items():
                found[(index, value)] = (aggregate, events)
            if len(found) > max_groups:
                return None
        return found

    def _counted_in_one_pass(
        self, request: SpanAggregate, index: str, max_groups: int
    ) -> dict[tuple[int, Any], tuple[float, int]] | None:
        """:meth:`aggregate_counted` read from the browser index once over the whole range (:mod:`.covering`).

        The value is cast to text as ``json_group_object`` makes its keys, so both shapes answer alike."""
        group_sql, group_params = request.counted_group()
        where_sql, where_params = request.where
        value_sql, value_params = request.measure.value
        if request.events is not None and columns_named(group_sql) == {"v_browser"}:
            cursor = self._cursor()
            ranges = browser_ranges(cursor, request.project_id, request.events)
            if ranges is not None:
                aggregate = _apply(request.measure, value_sql)
                return counted_per_browser(cursor, request, ranges, index, aggregate, max_groups)
        sql = (
            f"SELECT {index}, CAST({group_sql} AS TEXT), {_apply(request.measure, value_sql)}, count(*)"
            f" FROM events e INDEXED BY {BROWSER_INDEX} WHERE e.project_id = ? AND e.timestamp >= ?"
            f" AND e.timestamp < ? AND {where_sql} GROUP BY 1, 2"
        )
        low, high = request.spans[0][0], request.spans[-1][1]
        params = [*group_params, *value_params, request.project_id, low, high, *where_params]
        found: dict[tuple[int, Any], tuple[float, int]] = {}
        for span, value, aggregate, events in self._cursor().execute(sql, params):
            found[(span, value)] = (aggregate, events)
            if len(found) > max_groups:
                return None
        return found

    def first_seen(self, request: FirstSeen) -> list[tuple[Any, Any, int]]:
        where_sql, where_params = request.where
        group_sql, group_params = request.group if request.group is not None else ("NULL", [])
        actor = request.actor
        # grouping by a constant NULL as well would keep SQLite from grouping in the person index's order
        keys = "1, 2" if request.group is not None else "2"
        if request.ever:
            sql = (
                f"SELECT {group_sql}, {actor}, min(e.timestamp) FROM events e WHERE e.project_id = ? AND {where_sql}"
                f" AND {actor} IS NOT NULL GROUP BY {keys} HAVING min(e.timestamp) >= ? AND min(e.timestamp) <= ?"
            )
            params = [*group_params, request.project_id, *where_params, request.lower, request.upper]
        else:
            sql = (
                f"SELECT {group_sql}, {actor}, min(e.timestamp) FROM events e WHERE e.project_id = ?"
                f" AND e.timestamp >= ? AND e.timestamp <= ? AND {where_sql} AND {actor} IS NOT NULL GROUP BY {keys}"
            )
            params = [*group_params, request.project_id, request.lower, request.upper, *where_params]
        return [(row[0], row[1], row[2]) for row in self._cursor().execute(sql, params)]

    def active_actors(self, request: ActiveActors) -> Iterable[tuple[int, Any, Any]]:
        if not request.spans:
            return iter(())
        if request.actor == _PERSON and request.group is None:
            persons = active_persons_by_span(self.conn, request)
            if persons is not None:
                return chain.from_iterable(
                    zip(repeat(index), repeat(None), ids.tolist()) for index, ids in enumerate(persons)
                )
        where_sql, where_params = request.events_where(self.dialect)
        group_sql, group_params = request.group if request.group is not None else ("NULL", [])
        sql = (
            f"WITH {spans_table(request.spans)} SELECT DISTINCT b.i, {group_sql}, {request.actor} FROM b"
            f" JOIN events e ON e.project_id = ? AND e.timestamp >= b.lo AND e.timestamp < b.hi WHERE {where_sql}"
            f" AND {request.actor} IS NOT NULL"
        )
        return iter(self._cursor().execute(sql, [*group_params, request.project_id, *where_params]))

    def active_intervals(self, request: ActiveIntervals) -> Collection[tuple[Any, Any, int]]:
        if not request.spans:
            return []
        if request.actor == _PERSON and request.group is None:
            counted = person_interval_counts(
                self.conn, request.project_id, request.spans, request.where, request.operator, int(request.value)
            )
            if counted is not None:
                persons, intervals = counted
                return IntervalColumns(actors=persons, intervals=np.asarray(intervals, dtype=np.int64))
        where_sql, where_params = request.where
        group_sql, group_params = request.group if request.group is not None else ("NULL", [])
        comparison = _COMPARISONS[request.operator]
        inner = (
            f"SELECT b.i AS i, {group_sql} AS g, {request.actor} AS a FROM b JOIN events e ON e.project_id = ?"
            f" AND e.timestamp >= b.lo AND e.timestamp < b.hi WHERE {where_sql} AND {request.actor} IS NOT NULL"
            f" GROUP BY 1, 2, 3 HAVING count(*) {comparison} ?"
        )
        sql = f"WITH {spans_table(request.spans)} SELECT g, a, count(*) FROM ({inner}) GROUP BY 1, 2"
        params = [*group_params, request.project_id, *where_params, int(request.value)]
        return [(row[0], row[1], int(row[2])) for row in self._cursor().execute(sql, params)]

    def actors_created_at(
        self, project_id: int, actors: Sequence[Any], group_type_index: int | None = None
    ) -> Iterator[tuple[Any, int]]:
        if group_type_index is None:
            # one statement over the ids as a JSON array, looked up by the primary key: with ``project_id``
            # indexed SQLite would walk every person of the project for each chunk of ids instead; the answer
            # comes back as two integer texts (both columns are INTEGER NOT NULL), not a Python row per person
            sql = (
                "SELECT group_concat(id), group_concat(created_at) FROM persons WHERE +project_id = ?"
                " AND id IN (SELECT value FROM json_each(?))"
            )
            ids_text, created_text = self._cursor().execute(sql, [project_id, _id_array(actors)]).fetchone()
            if ids_text is None:
                return
            ids, created = integers(ids_text), integers(created_text)
            if ids is None or created is None or len(ids) != len(created):
                raise ValueError("persons.id and persons.created_at must hold integers")
            yield from zip(ids.tolist(), created.tolist(), strict=True)
            return
        sql = (
            "SELECT group_key, created_at FROM groups WHERE project_id = ? AND group_type_index = ?"
            " AND group_key IN ({marks})"
        )
        head = [project_id, int(group_type_index)]
        for start in range(0, len(actors), _PERSON_CHUNK):
            chunk = list(actors[start : start + _PERSON_CHUNK])
            rows = self._cursor().execute(sql.format(marks=",".join("?" for _ in chunk)), [*head, *chunk])
            for actor, created in rows.fetchall():
                yield actor, int(created)

    def top_values(self, request: TopValues) -> list[Any]:
        value_sql, value_params = request.value
        where_sql, where_params = request.where
        rows = self._cursor().execute(
            f"SELECT coalesce({value_sql}, ?) AS v, count(*) AS r FROM events e WHERE e.project_id = ?"
            f" AND e.timestamp >= ? AND e.timestamp <= ? AND {where_sql} GROUP BY 1 ORDER BY 2 DESC, 1 DESC LIMIT ?",
            [*value_params, request.null_label, request.project_id, request.lower, request.upper, *where_params,
             request.count],
        )  # fmt: skip
        return [row[0] for row in rows]

    def flagged_rows(self, request: FlaggedScan) -> FlaggedRows:
        return sqlite_flagged_rows(self.conn, request)

    def person_events(self, request: PersonEventScan) -> Iterator[tuple[Any, ...]]:
        where_sql, where_params = request.where
        columns = ["e.person_id", "e.timestamp", "e.event"]
        params: list[Any] = []
        for key in request.properties:
            sql, key_params = self.dialect.extract("e.properties", key)
            columns.append(sql)
            params += key_params
        sql = (
            f"SELECT {', '.join(columns)} FROM {events_in_person_order(self.conn)} WHERE e.project_id = ?"
            f" AND e.timestamp >= ? AND e.timestamp <= ? AND {where_sql} ORDER BY e.person_id, e.timestamp, e.event"
        )
        params += [request.project_id, request.lower, request.upper, *where_params]
        return iter(self._cursor().execute(sql, params))

    def run_sql(self, request: SqlRun) -> SqlAnswer:
        index = BROWSER_INDEX if has_index(self.conn, BROWSER_INDEX) else None
        sql = print_sqlite(
            request.tree, set(request.ctes), timezone=request.timezone, now_us=request.now_us, browser_index=index
        )
        params = {
            **request.params,
            "hogql_project": request.project_id,
            "hogql_tz": request.timezone,
            "hogql_now": request.now_us,
        }
        cursor = self._cursor()
        try:
            rows = cursor.execute(sql, params).fetchmany(request.max_rows)
        except sqlite3.OperationalError as error:
            if "interrupt" in str(error):
                raise
            raise ValueError(f"The query could not run: {error}") from None
        return SqlAnswer(engine_key="sqlite", sql=sql, rows=rows)

    def list_events(self, request: EventListing) -> list[StoredEvent]:
        return list_sqlite_events(self.conn, request)

    def get_event(self, project_id: int, event_uuid: str) -> StoredEvent | None:
        return get_sqlite_event(self.conn, project_id, event_uuid)

    def property_values(self, request: PropertyValues) -> list[str]:
        return sqlite_property_values(self.conn, request)

    def has_events(self, project_id: int) -> bool:
        return sqlite_has_events(self.conn, project_id)

    def property_keys(self, project_id: int, event_name: str, sample: int) -> set[str]:
        return sqlite_property_keys(self.conn, project_id, event_name, sample)

    def persons_matching(self, project_id: int, where: Fragment) -> list[int]:
        sql, params = where
        rows = self._cursor().execute(
            f"SELECT e.person_id FROM (SELECT id AS person_id FROM persons WHERE project_id = ?) e WHERE {sql}"
            " ORDER BY 1",
            [project_id, *params],
        )
        return [int(person_id) for (person_id,) in rows]

    def person_properties(self, project_id: int, person_ids: Sequence[int]) -> Iterator[tuple[int, dict[str, Any]]]:
        for start in range(0, len(person_ids), _PERSON_CHUNK):
            ids = list(person_ids[start : start + _PERSON_CHUNK])
            marks = ",".join("?" for _ in ids)
            rows = self._cursor().execute(
                f"SELECT id, properties FROM persons WHERE +project_id = ? AND id IN ({marks})", [project_id, *ids]
            )
            for person_id, text in rows.fetchall():
                yield int(person_id), json.loads(text or "{}")

    def group_properties(
        self, project_id: int, group_type_index: int, group_keys: Sequence[str]
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        for start in range(0, len(group_keys), _PERSON_CHUNK):
            keys = list(group_keys[start : start + _PERSON_CHUNK])
            marks = ",".join("?" for _ in keys)
            rows = self._cursor().execute(
                "SELECT group_key, properties FROM groups WHERE project_id = ? AND group_type_index = ?"
                f" AND group_key IN ({marks})",
                [project_id, group_type_index, *keys],
            )
            for key, text in rows.fetchall():
                yield str(key), json.loads(text or "{}")


def _aggregate_sql(request: SpanAggregate) -> Fragment:
    measure = request.measure
    where_sql, where_params = request.where
    group_sql, group_params = request.group if request.group is not None else ("NULL", [])
    value_sql, value_params = measure.value
    ctes = [spans_table(request.spans)]
    params: list[Any] = []
    joins = ""
    if measure.session_durations:
        ctes.append(_SESSIONS)
        params.append(request.project_id)
        joins = " JOIN sd ON sd.session_id = e.session_id"
    source = (
        f" FROM b JOIN events e ON e.project_id = ? AND e.timestamp >= b.lo AND e.timestamp < b.hi{joins}"
        f" WHERE {where_sql}"
    )
    if measure.per is None and request.group is None:
        select = (
            f"SELECT b.i, NULL, (SELECT {_apply(measure, value_sql)} FROM events e{joins}"
            f" WHERE e.project_id = ? AND e.timestamp >= b.lo AND e.timestamp < b.hi AND {where_sql}) FROM b"
        )
        params += [*value_params, request.project_id, *where_params]
    elif measure.per is None:
        select = f"SELECT b.i, {group_sql}, {_apply(measure, value_sql)}{source} GROUP BY 1, 2"
        params += [*group_params, *value_params, request.project_id, *where_params]
    else:
        per_value = _SESSION_DURATION if measure.session_durations else measure.per_value
        inner = (
            f"SELECT b.i AS i, {group_sql} AS g, {measure.per} AS per, {per_value} AS v{source}"
            f" AND {measure.per} IS NOT NULL GROUP BY 1, 2, 3"
        )
        select = f"SELECT i, g, {_apply(measure, 'v')} FROM ({inner}) GROUP BY 1, 2"
        params += [*group_params, request.project_id, *where_params]
    return "WITH " + ", ".join(ctes) + " " + select, params
