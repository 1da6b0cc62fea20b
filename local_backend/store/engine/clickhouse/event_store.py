"""The event store over ClickHouse: the same methods as SQLite's, with the same answers.

Statement shapes are ClickHouse's own:

* Spans travel as bound ``Array(Int64)`` parameters; each event is given the indexes of the spans containing
  it (:mod:`.spans`), so overlapping spans count an event in each, and only the range from the first span's
  start to the last span's end is read.
* Fragments arrive as ``(sql, params)`` with ``?`` marks and are bound as server-side parameters
  (:func:`.params.bind`). The rows ``e`` they read are built per statement (:mod:`.rows`): the person after
  merges, the hot columns, and the person, group and session columns a statement names.
* A flagged scan comes back as Arrow columns turned into numpy arrays without a loop per row.
* Distinct counts are exact: ``count(DISTINCT ...)`` is ``uniqExact`` (ClickHouse's default implementation).

Metadata stays in SQLite: ``conn`` is read for static cohorts' members and materialized columns' keys. The
calculation guard watches the SQLite connection and cannot interrupt a ClickHouse statement: each statement
starts only while the run has time left and is not cancelled (:func:`~local_backend.guard.check_deadline`),
and ClickHouse is given the time left (:func:`~local_backend.guard.seconds_left`) as the statement's own
limit, so a calculation answers :class:`~local_backend.errors.QueryTimeout` at its limit however many statements
it runs and however long one of them would take.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any, TypeVar

import numpy as np

from ....errors import APIError
from ....guard import check_deadline, raise_timeout, seconds_left
from ...event_rows import EARLIEST_PLAUSIBLE_MICROS, from_micros
from ..interface import (
    COUNT_OPERATORS,
    ActiveActors,
    ActiveIntervals,
    ActorColumns,
    CreatedColumns,
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
from .client import ClickHouseClient
from .dialect import ClickHouseDialect
from .hogql_print import IDENTIFIED, print_clickhouse, reads_identified
from .listing import (
    clickhouse_has_events,
    clickhouse_property_keys,
    clickhouse_property_values,
    get_clickhouse_event,
    list_clickhouse_events,
)
from .params import bind
from .rows import SESSION_DURATION, event_rows, materialized_names, person_rows, reads_person
from .spans import SPAN, span_join
from .stored_columns import HOT_COLUMNS, PERSONLESS_COLUMN, stored_columns, stored_hot_columns

__all__ = ["ClickHouseEventStore"]

T = TypeVar("T")
# how ClickHouse names a statement it stopped at its max_execution_time (code 159)
TIMEOUT_EXCEEDED = "TIMEOUT_EXCEEDED"
_COMPARISONS = dict(zip(COUNT_OPERATORS, (">=", "<=", "="), strict=True))
# up to this many persons are looked up by a bound list of ids; more, by the range of their ids
_FEW_ACTORS = 1000


def _apply(measure: Measure, column: str) -> str:
    return measure.aggregate.replace("{v}", column)


def _flags(parts: Sequence[Fragment]) -> Fragment:
    """One unsigned integer per event, as narrow as the bits need (read back as int64): bit ``i`` set when it
    matches ``parts[i]`` (a NULL condition does not match)."""
    width = next(bits for bits in (8, 16, 32, 64) if len(parts) <= bits)
    if not parts:
        return "toUInt8(0)", []
    sql = " + ".join(
        f"if(({cond}), toUInt{width}({1 << bit}), toUInt{width}(0))" for bit, (cond, _) in enumerate(parts)
    )
    return sql, [param for _, params in parts for param in params]


class ClickHouseEventStore:
    """:class:`~local_backend.store.engine.interface.EventStore` on a ClickHouse database; ``conn`` is the SQLite
    file holding the metadata (static cohorts' members)."""

    def __init__(self, conn: sqlite3.Connection, client: ClickHouseClient) -> None:
        self.conn = conn
        self.client = client
        self._dialect = ClickHouseDialect(client.database)
        # projects known to have override rows: an instance lives for one calculation, and a merge written after
        # it is seen by the next calculation's instance
        self._merges: dict[int, bool] = {}
        self._stored: frozenset[str] | None = None

    @property
    def dialect(self) -> ClickHouseDialect:
        return self._dialect

    # -- running statements

    def _members(self, cohort_id: int) -> list[int]:
        rows = self.conn.execute("SELECT person_id FROM cohort_people WHERE cohort_id = ?", (cohort_id,))
        return [int(person_id) for (person_id,) in rows]

    def _arrow(self, sql: str, params: Sequence[Any]) -> Any:
        text, named = bind(sql, params, self._members)
        return _timed(lambda timeout: self.client.query_arrow(text, named, timeout=timeout))

    def _rows(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        text, named = bind(sql, params, self._members)
        return _timed(lambda timeout: self.client.query_rows(text, named, timeout=timeout))

    def _events(self, project_id: int, statement: str) -> Fragment:
        """The ``e`` rows for ``statement`` (whose text says which joined and materialized columns it reads)."""
        event_columns, person_columns = materialized_names(statement)
        names = sorted(event_columns | person_columns)
        keys: dict[str, str] = {}
        if names:
            marks = ",".join("?" for _ in names)
            rows = self.conn.execute(
                f"SELECT column_name, key FROM materialized_columns WHERE column_name IN ({marks})", names
            )
            keys = {str(name): str(key) for name, key in rows}
        reads_stored = any(f"e.{name}" in statement for name in (*HOT_COLUMNS, PERSONLESS_COLUMN))
        stored = self._stored_columns() if keys or reads_stored else None
        merges = reads_person(statement) and self._has_merges(project_id)
        source, params = event_rows(self._dialect, project_id, statement, keys, stored or frozenset(), merges=merges)
        return f"{source} AS e", params

    def _stored_columns(self) -> frozenset[str]:
        """The events table's stored columns, asked once per instance (one calculation) rather than per statement."""
        if self._stored is None:
            self._stored = stored_columns(self.client)
        return self._stored

    def _has_merges(self, project_id: int) -> bool:
        """Whether the project has any override row (a person merged into another): without one the person
        written at ingestion is the person now, and statements skip the join through ``person_overrides``."""
        if project_id not in self._merges:
            rows = self._rows(
                f"SELECT 1 FROM {self._dialect.table('person_overrides')} WHERE project_id = ? LIMIT 1", [project_id]
            )
            self._merges[project_id] = bool(rows)
        return self._merges[project_id]

    # -- the interface

    @property
    def _table(self) -> str:
        return self._dialect.table("events")

    def earliest_event(self, project_id: int) -> datetime | None:
        rows = self._rows(
            f"SELECT minOrNull(timestamp) FROM {self._table} WHERE project_id = ? AND timestamp >= ?",
            [project_id, EARLIEST_PLAUSIBLE_MICROS],
        )
        return from_micros(rows[0][0]) if rows and rows[0][0] is not None else None

    def aggregate_spans(self, request: SpanAggregate) -> dict[tuple[int, Any], float]:
        if not request.spans:
            return {}
        measure = request.measure
        where_sql, where_params = request.where
        group_column, group_key, group_params = _group_parts(request.group)
        spans_sql, spans_params = span_join(self.client, request.spans)
        if measure.per is None:
            value_sql, value_params = measure.value
            head = f"SELECT {SPAN} - 1, {group_column}{_apply(measure, value_sql)} FROM "
            tail = f" AND ({where_sql}) GROUP BY {group_key}{SPAN}"
            head_params = [*group_params, *value_params]
        else:
            per_value = f"any({SESSION_DURATION})" if measure.session_durations else measure.per_value
            head = (
                f"SELECT __i, {group_key}{_apply(measure, '__v')} FROM (SELECT {SPAN} - 1 AS __i, {group_column}"
                f" {measure.per} AS __per, {per_value} AS __v FROM "
            )
            tail = f" AND ({where_sql}) AND ({measure.per}) IS NOT NULL"
            if measure.session_durations:
                tail += f" AND {SESSION_DURATION} IS NOT NULL"
            tail += f" GROUP BY __i, {group_key}__per) GROUP BY {group_key}__i"
            head_params = [*group_params]
        statement = head + tail
        source, source_params = self._events(request.project_id, statement)
        sql = head + source + spans_sql + tail
        rows = self._rows(sql, [*head_params, *source_params, *spans_params, *where_params])
        if request.group is None:
            return {(int(index), None): value for index, value in rows}
        return {(int(index), group): value for index, group, value in rows}

    def aggregate_counted(
        self, request: SpanAggregate, *, max_groups: int
    ) -> dict[tuple[int, Any], tuple[float, int]] | None:
        measure = request.measure
        group_sql, group_params = request.counted_group()
        if not request.spans:
            return {}
        where_sql, where_params = request.where
        value_sql, value_params = measure.value
        spans_sql, spans_params = span_join(self.client, request.spans)
        head = f"SELECT {SPAN} - 1, {group_sql} AS __g, {_apply(measure, value_sql)}, count(*) FROM "
        tail = f" AND ({where_sql}) GROUP BY {SPAN}, __g LIMIT ?"
        source, source_params = self._events(request.project_id, head + tail)
        rows = self._rows(
            head + source + spans_sql + tail,
            [*group_params, *value_params, *source_params, *spans_params, *where_params, max_groups + 1],
        )
        if len(rows) > max_groups:
            return None
        return {(int(index), group): (value, int(events)) for index, group, value, events in rows}

    def first_seen(self, request: FirstSeen) -> list[tuple[Any, Any, int]]:
        where_sql, where_params = request.where
        group_column, group_key, group_params = _group_parts(request.group)
        actor = request.actor
        head = f"SELECT {group_column}{actor} AS __a, min(e.timestamp) AS __first FROM "
        if request.ever:
            tail = (
                f" WHERE ({where_sql}) AND __a IS NOT NULL GROUP BY {group_key}__a HAVING __first >= ? AND __first <= ?"
            )
            tail_params = [*where_params, request.lower, request.upper]
        else:
            tail = (
                f" WHERE e.timestamp >= ? AND e.timestamp <= ? AND ({where_sql}) AND __a IS NOT NULL"
                f" GROUP BY {group_key}__a"
            )
            tail_params = [request.lower, request.upper, *where_params]
        source, source_params = self._events(request.project_id, head + tail)
        rows = self._rows(head + source + tail, [*group_params, *source_params, *tail_params])
        if request.group is None:
            return [(None, actor_value, int(first)) for actor_value, first in rows]
        return [(group, actor_value, int(first)) for group, actor_value, first in rows]

    def active_actors(self, request: ActiveActors) -> Iterable[tuple[int, Any, Any]]:
        if not request.spans:
            return iter(())
        where_sql, where_params = request.where
        if request.personful_only:  # the stored byte, not a parse of every event's properties
            where_sql = f"({where_sql} AND e.{PERSONLESS_COLUMN} = 0)"
        group_column, _, group_params = _group_parts(request.group)
        spans_sql, spans_params = span_join(self.client, request.spans)
        head = f"SELECT DISTINCT toInt64({SPAN} - 1) AS __i, {group_column}{request.actor} AS __a FROM "
        tail = f" AND ({where_sql}) AND __a IS NOT NULL"
        source, source_params = self._events(request.project_id, head + tail)
        table = self._arrow(
            head + source + spans_sql + tail, [*group_params, *source_params, *spans_params, *where_params]
        )
        if table.num_rows == 0:
            return iter(())
        # columns, not a Python object per cell through Arrow's rows
        return ActorColumns(
            spans=table.column("__i").to_numpy().astype(np.int64, copy=False),
            actors=table.column("__a").to_numpy(zero_copy_only=False),
            groups=None if request.group is None else table.column("__g").to_pylist(),
        )

    def active_intervals(self, request: ActiveIntervals) -> Collection[tuple[Any, Any, int]]:
        if not request.spans:
            return []
        where_sql, where_params = request.where
        group_column, group_key, group_params = _group_parts(request.group)
        spans_sql, spans_params = span_join(self.client, request.spans)
        if request.operator == "gte" and int(request.value) <= 1:
            # every span holding one of its events counts: the distinct (span, actor) pairs, counted per actor
            # (measured at 1M events: 0.06 s of CPU, against 0.08 s for uniqExact per actor and 0.25 s for
            # counting each span's events first)
            head = (
                f"SELECT {group_key}__a, toInt64(count()) AS __n FROM"
                f" (SELECT DISTINCT {SPAN} AS __s, {group_column}{request.actor} AS __a FROM "
            )
            tail = f" AND ({where_sql}) AND __a IS NOT NULL) GROUP BY {group_key}__a"
            tail_params: list[Any] = []
        else:
            comparison = _COMPARISONS[request.operator]
            head = (
                f"SELECT {group_key}__a, toInt64(count()) AS __n FROM"
                f" (SELECT {SPAN} AS __s, {group_column}{request.actor} AS __a FROM "
            )
            tail = (
                f" AND ({where_sql}) AND __a IS NOT NULL GROUP BY __s, {group_key}__a HAVING count() {comparison} ?)"
                f" GROUP BY {group_key}__a"
            )
            tail_params = [int(request.value)]
        source, source_params = self._events(request.project_id, head + tail)
        table = self._arrow(
            head + source + spans_sql + tail,
            [*group_params, *source_params, *spans_params, *where_params, *tail_params],
        )
        if table.num_rows == 0:
            return []
        return IntervalColumns(
            actors=table.column("__a").to_numpy(zero_copy_only=False),
            intervals=table.column("__n").to_numpy().astype(np.int64, copy=False),
            groups=None if request.group is None else table.column("__g").to_pylist(),
        )

    def actors_created_at(
        self, project_id: int, actors: Sequence[Any], group_type_index: int | None = None
    ) -> Iterable[tuple[Any, int]]:
        if not actors:
            return iter(())
        if group_type_index is None:
            return self._persons_created_at(project_id, actors)
        rows = self._rows(
            f"SELECT group_key, min(created_at) FROM {self._dialect.table('groups')}"
            " WHERE project_id = ? AND group_type_index = ? AND has(?, group_key) GROUP BY group_key",
            [project_id, int(group_type_index), [str(actor) for actor in actors]],
        )
        return iter([(actor, int(created)) for actor, created in rows])

    def _persons_created_at(self, project_id: int, ids: Sequence[Any]) -> Iterable[tuple[int, int]]:
        """Persons' creation times, a few by their ids; many (a lifecycle's every active person) by the range
        of their ids on the sorted key, kept in numpy: a bound list of tens of thousands of ids costs more to
        write and parse than the persons it picks. The range is read in the key's order, each person's rows
        (versions not merged yet) side by side, and each one's earliest time taken in numpy: on 140,000 persons
        a third of the time of ClickHouse's GROUP BY id, and the look-up of sorted ids a fifth of unsorted."""
        persons = self._dialect.table("persons")
        if len(ids) <= _FEW_ACTORS:
            rows = self._rows(
                f"SELECT id, min(created_at) FROM {persons} WHERE project_id = ? AND has(?, id) GROUP BY id",
                [project_id, [int(actor) for actor in ids]],
            )
            return iter([(int(actor), int(created)) for actor, created in rows])
        wanted = np.asarray(ids, dtype=np.int64)
        if not bool(np.all(wanted[1:] > wanted[:-1])):  # a lifecycle's come ascending already
            wanted = np.unique(wanted)
        table = self._arrow(
            f"SELECT id, toInt64(created_at) AS created FROM {persons}"
            " WHERE project_id = ? AND id >= ? AND id <= ? ORDER BY project_id, id",
            [project_id, int(wanted[0]), int(wanted[-1])],
        )
        if table.num_rows == 0:
            return iter(())
        rows = table.column("id").to_numpy().astype(np.int64, copy=False)
        firsts = np.flatnonzero(np.concatenate(([True], rows[1:] != rows[:-1])))
        found = rows[firsts]
        created = np.minimum.reduceat(table.column("created").to_numpy().astype(np.int64, copy=False), firsts)
        at = np.minimum(np.searchsorted(wanted, found), wanted.size - 1)
        kept = wanted[at] == found
        return CreatedColumns(actors=found[kept], created=created[kept])

    def top_values(self, request: TopValues) -> list[Any]:
        value_sql, value_params = request.value
        where_sql, where_params = request.where
        head = f"SELECT coalesce({value_sql}, ?) AS __v, count(*) AS __r FROM "
        tail = (
            f" WHERE e.timestamp >= ? AND e.timestamp <= ? AND ({where_sql})"
            " GROUP BY __v ORDER BY __r DESC, __v DESC LIMIT ?"
        )
        source, source_params = self._events(request.project_id, head + tail)
        rows = self._rows(
            head + source + tail,
            [*value_params, request.null_label, *source_params, request.lower, request.upper, *where_params,
             request.count],
        )  # fmt: skip
        return [row[0] for row in rows]

    def flagged_rows(self, request: FlaggedScan) -> FlaggedRows:
        flags_sql, flags_params = _flags(request.flags)
        by_person = request.group_type_index is None
        target = "e.person_id" if by_person else f"e.group_{int(request.group_type_index or 0)}"
        head = f"SELECT {target} AS __actor, e.timestamp AS __ts, {flags_sql} AS __flags"
        head_params = [*flags_params]
        if request.value is not None:
            head += f", {request.value[0]} AS __value"
            head_params += request.value[1]
        where_sql, where_params = request.where
        tail = f" WHERE e.timestamp >= ? AND e.timestamp <= ? AND ({where_sql})"
        tail_params = [request.lower, request.upper, *where_params]
        if not by_person:
            tail += " AND __actor IS NOT NULL"
        if request.only_flagged:
            if request.events is not None:
                tail += f" AND e.event IN ({','.join('?' for _ in request.events) or 'NULL'})"
                tail_params += list(request.events)
            tail += " AND __flags != 0"
        tail += " ORDER BY __actor, __ts"
        source, source_params = self._events(request.project_id, head + tail)
        table = self._arrow(f"{head} FROM {source}{tail}", [*head_params, *source_params, *tail_params])
        if table.num_columns == 0:
            empty = np.zeros(0, dtype=np.int64)
            return FlaggedRows(empty, empty.copy(), empty.copy(), [] if request.value is not None else None,
                               None if by_person else [])  # fmt: skip
        keys: list[Any] | None = None
        actors_column = table.column("__actor")
        if by_person:
            actors = actors_column.to_numpy().astype(np.int64, copy=False)
        else:
            # codes in order of first appearance in the sorted rows: they ascend with the keys
            encoded = actors_column.combine_chunks().dictionary_encode()
            actors = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
            keys = encoded.dictionary.to_pylist()
        return FlaggedRows(
            actors=actors,
            timestamps=table.column("__ts").to_numpy().astype(np.int64, copy=False),
            flags=table.column("__flags").to_numpy().astype(np.int64),
            values=table.column("__value").to_pylist() if request.value is not None else None,
            keys=keys,
        )

    def person_events(self, request: PersonEventScan) -> Iterator[tuple[Any, ...]]:
        where_sql, where_params = request.where
        columns = ["e.person_id", "e.timestamp", "e.event"]
        params: list[Any] = []
        for key in request.properties:
            # the JSON type beside the raw text, so each value is read back as SQLite's json_extract gives it
            columns.append("if(JSONHas(e.properties, ?), JSONType(e.properties, ?), NULL)")
            columns.append("JSONExtractRaw(e.properties, ?)")
            params += [key, key, key]
        head = f"SELECT {', '.join(columns)} FROM "
        tail = (
            f" WHERE e.timestamp >= ? AND e.timestamp <= ? AND ({where_sql}) ORDER BY e.person_id, e.timestamp, e.event"
        )
        source, source_params = self._events(request.project_id, head + tail)
        rows = self._rows(head + source + tail, [*params, *source_params, request.lower, request.upper, *where_params])
        count = len(request.properties)
        return iter(
            (row[0], row[1], row[2], *(_json_value(row[3 + 2 * i], row[4 + 2 * i]) for i in range(count)))
            for row in rows
        )

    def run_sql(self, request: SqlRun) -> SqlAnswer:
        params: dict[str, Any] = {**request.params, "hogql_project": request.project_id, "hogql_now": request.now_us}
        if reads_identified(request.tree):
            rows = self.conn.execute(
                "SELECT id FROM persons WHERE project_id = ? AND is_identified = 1", (request.project_id,)
            )
            params[IDENTIFIED] = [int(person_id) for (person_id,) in rows]
        stored = stored_hot_columns(self.client)
        sql = print_clickhouse(
            request.tree,
            set(request.ctes),
            self._dialect,
            request.timezone,
            params,
            stored,
            lambda: self._has_merges(request.project_id),
        )
        bound = {name: value for name, value in params.items() if value is not None}
        try:
            rows = _timed(lambda timeout: self.client.query_rows(sql, bound, timeout=timeout))
        except APIError:
            raise
        except Exception as error:  # ClickHouse refused the statement: the query's fault, said as ClickHouse says it
            raise ValueError(f"The query could not run: {str(error).splitlines()[0][:300]}") from None
        return SqlAnswer(engine_key="clickhouse", sql=sql, rows=rows[: request.max_rows])

    def list_events(self, request: EventListing) -> list[StoredEvent]:
        return list_clickhouse_events(self, request)

    def get_event(self, project_id: int, event_uuid: str) -> StoredEvent | None:
        return get_clickhouse_event(self, project_id, event_uuid)

    def property_values(self, request: PropertyValues) -> list[str]:
        return clickhouse_property_values(self, request)

    def has_events(self, project_id: int) -> bool:
        return clickhouse_has_events(self, project_id)

    def property_keys(self, project_id: int, event_name: str, sample: int) -> set[str]:
        return clickhouse_property_keys(self, project_id, event_name, sample)

    def persons_matching(self, project_id: int, where: Fragment) -> list[int]:
        sql, params = where
        source, source_params = person_rows(self._dialect, project_id)
        rows = self._rows(f"SELECT e.person_id FROM {source} AS e WHERE {sql} ORDER BY 1", [*source_params, *params])
        return [int(person_id) for (person_id,) in rows]

    def person_properties(self, project_id: int, person_ids: Sequence[int]) -> Iterator[tuple[int, dict[str, Any]]]:
        if not person_ids:
            return iter(())
        source, source_params = person_rows(self._dialect, project_id)
        rows = self._rows(
            f"SELECT e.id, e.properties FROM {source} AS e WHERE has(?, e.id)",
            [*source_params, [int(person_id) for person_id in person_ids]],
        )
        return iter([(int(person_id), json.loads(text or "{}")) for person_id, text in rows])

    def group_properties(
        self, project_id: int, group_type_index: int, group_keys: Sequence[str]
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        if not group_keys:
            return iter(())
        rows = self._rows(
            f"SELECT group_key, argMax(properties, version) FROM {self._dialect.table('groups')}"
            " WHERE project_id = ? AND group_type_index = ? AND has(?, group_key) GROUP BY group_key",
            [project_id, group_type_index, [str(key) for key in group_keys]],
        )
        return iter([(str(key), json.loads(text or "{}")) for key, text in rows])


def _group_parts(group: Fragment | None) -> tuple[str, str, list[Any]]:
    """A request's group as a selected column (``__g``) and a key to group by, both followed by a comma, with its
    parameters; nothing without a group: a constant NULL among the keys makes ClickHouse hash them as nullable
    values (measured at 1M events: a third more CPU for a stickiness)."""
    if group is None:
        return "", "", []
    return f"{group[0]} AS __g, ", "__g, ", list(group[1])


def _timed(run: Callable[[float | None], T]) -> T:
    """``run(timeout)`` with the calculation's time left as the statement's limit; a statement ClickHouse stopped
    at that limit is the calculation's :class:`~local_backend.errors.QueryTimeout`."""
    check_deadline()  # a run out of time or cancelled starts no statement
    try:
        return run(seconds_left())
    except Exception as error:
        check_deadline()  # stopped because the time was up: say so (any other failure is raised as it is)
        if TIMEOUT_EXCEEDED in str(error):
            raise_timeout()
        raise


def _json_value(kind: str | None, raw: str | None) -> Any:
    """A JSON value as SQLite's ``json_extract`` returns it: text, a number, 1/0 for booleans, minified JSON for
    arrays and objects, None for null or missing."""
    if kind is None or kind == "Null" or raw is None:
        return None
    if kind == "Bool":
        return 1 if raw == "true" else 0
    if kind in ("Array", "Object"):
        return raw
    value = json.loads(raw)
    if kind == "Double":
        return float(value)
    return value
