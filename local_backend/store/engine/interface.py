"""The event store: the one interface through which a calculation reads events, persons and groups.

Calculations (:mod:`local_backend.queries`) decide what a filter means and compile it, through the store's
:attr:`EventStore.dialect`, to a WHERE fragment over the event rows ``e`` with bound parameters (a
:data:`Fragment`). They hand the store small request objects naming what they need: an aggregate per time span
and breakdown value, each actor's first event, who was active per day, the top breakdown values, events in
``(actor, timestamp)`` order with the steps they match, persons' properties. The store owns every statement's
shape (SELECT, GROUP BY, ORDER BY, indexes, how rows travel back); an engine other than SQLite implements the
same methods with the same answers. ``docs/storage.md`` ("The event store interface") states each method's
contract: what it returns, in what order, which ranges are open or closed.

Times are UTC microseconds since the epoch throughout; every calendar rule (time zones, DST, week starts,
months) is applied by the caller when it makes the spans, so an engine only compares integers.

Metadata (projects, actions, cohorts, insights) is not read through this interface: it stays in SQLite
whatever the event engine, and calculations read it through the other :mod:`local_backend.store` modules with
the connection they are given. :func:`event_store` is how a calculation gets the store for that connection
(the filter compilers write the SQL of the dialect they are handed, this store's ``dialect``; a second engine
hands its own to them, :class:`~local_backend.store.engine.sqlite.dialect.Dialect` lists what it writes)::

    store = event_store(conn)
    compiler = PropertyCompiler(conn=conn, project_id=1, dialect=store.dialect)
    where = compiler.compile(filter.properties)          # in store.dialect's SQL
    counts = store.aggregate_spans(SpanAggregate(project_id=1, spans=[(lo, hi)], where=where, measure=COUNT))
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

__all__ = [
    "EventStore",
    "Fragment",
    "Span",
    "Measure",
    "COUNT",
    "SpanAggregate",
    "FirstSeen",
    "ActiveActors",
    "TopValues",
    "FlaggedScan",
    "FlaggedRows",
    "PersonEventScan",
    "EventListing",
    "StoredEvent",
    "PropertyValues",
    "Dialect",
    "Sql",
    "HOGQL_SCALARS",
    "EVENT_ROW_COLUMNS",
    "EventRow",
    "TransactionWrites",
    "EventRewrite",
    "StoredRow",
    "Rewritten",
    "RewriteJudge",
    "EventWriter",
]

Fragment = tuple[str, list[Any]]
"""SQL text in the store's dialect over the event row ``e``, and its bound parameters in order."""

Span = tuple[int, int]
"""A half-open range ``[low, high)`` of UTC microseconds."""


@dataclass(frozen=True)
class Measure:
    """What one (span, group) cell aggregates.

    ``aggregate`` is an aggregate expression in the dialect where ``{v}`` stands for the value: ``count(*)``,
    ``count(DISTINCT e.person_id)``, ``sum(il_float({v}))``, a quantile. Without ``per`` it reads ``value``
    (a per-event expression) directly. With ``per``, the cell's events are first grouped by the ``per``
    expression (an actor or a session; rows where it is NULL are left out), each such group gives
    ``per_value`` (an aggregate over its events, e.g. ``count(*)``), and ``aggregate`` runs over those.
    ``session_durations``: ``per`` is the session id and each session's value is its whole duration in
    seconds (last event minus first event of the session, over all time, not only the span).
    """

    aggregate: str
    value: Fragment = ("", [])
    per: str | None = None
    per_value: str = ""
    session_durations: bool = False


COUNT = Measure(aggregate="count(*)")


@dataclass(frozen=True)
class SpanAggregate:
    """An aggregate of the events matching ``where`` in each span, per value of ``group`` (when given)."""

    project_id: int
    spans: Sequence[Span]
    where: Fragment
    measure: Measure
    group: Fragment | None = None

    def counted_group(self) -> Fragment:
        """The group of an ``aggregate_counted`` request, which needs one and a measure without ``per``."""
        if self.measure.per is not None or self.group is None:
            raise ValueError("aggregate_counted needs a group and a measure without a per-actor step")
        return self.group


@dataclass(frozen=True)
class FirstSeen:
    """Each (group value, actor)'s first matching event.

    ``actor`` is an expression naming who is counted (``e.person_id``, a group key); rows where it is NULL
    are left out. With ``ever`` False only events in ``[lower, upper]`` (inclusive) are considered; with
    ``ever`` True every matching event counts (the first time ever) and pairs whose first time is outside
    ``[lower, upper]`` are left out.
    """

    project_id: int
    lower: int
    upper: int
    where: Fragment
    actor: str
    group: Fragment | None = None
    ever: bool = False


@dataclass(frozen=True)
class ActiveActors:
    """Who did a matching event in each span (spans are usually days), per value of ``group``."""

    project_id: int
    spans: Sequence[Span]
    where: Fragment
    actor: str
    group: Fragment | None = None


@dataclass(frozen=True)
class TopValues:
    """The most frequent values of ``value`` among the events matching ``where`` in ``[lower, upper]``.

    Events whose value is NULL count under ``null_label``.
    """

    project_id: int
    lower: int
    upper: int
    where: Fragment
    value: Fragment
    null_label: str
    count: int


@dataclass(frozen=True)
class FlaggedScan:
    """Events of ``[lower, upper]`` (inclusive) matching ``where``, in (actor, timestamp) order, each with
    bit ``i`` set when it matches ``flags[i]``.

    The actor is the person, or the group key of ``group_type_index`` (events without one are left out).
    ``only_flagged``: keep only events matching at least one flag (else every event matching ``where``).
    ``flag_events``: when every flag means exactly "the event is named X", those names (one per flag), so an
    engine may compute the bits from the name alone. ``events``: when known, every event name that can match
    any flag (an engine may skip other events; only used with ``only_flagged``). ``value``: an expression
    read for each row (a breakdown value).
    """

    project_id: int
    lower: int
    upper: int
    where: Fragment
    flags: Sequence[Fragment]
    only_flagged: bool = True
    flag_events: Sequence[str] | None = None
    events: Sequence[str] | None = None
    group_type_index: int | None = None
    value: Fragment | None = None


@dataclass
class FlaggedRows:
    """The rows of a :class:`FlaggedScan` as columns.

    ``actors``: the person id, or for groups a code into ``keys`` (codes in order of first appearance);
    ``timestamps`` and ``flags`` as int64; ``values`` the ``value`` of each row (None when not asked for).
    """

    actors: np.ndarray
    timestamps: np.ndarray
    flags: np.ndarray
    values: list[Any] | None = None
    keys: list[Any] | None = None

    def __len__(self) -> int:
        return len(self.timestamps)


@dataclass(frozen=True)
class PersonEventScan:
    """Events of ``[lower, upper]`` (inclusive) matching ``where``, in (person, timestamp) order, each as
    ``(person_id, timestamp, event, *values of properties)``; a missing property is None."""

    project_id: int
    lower: int
    upper: int
    where: Fragment
    properties: Sequence[str] = ()


@dataclass(frozen=True)
class EventListing:
    """Up to ``limit`` of the project's events matching every ``where`` condition, newest first: by timestamp,
    then by the store's row key (:attr:`StoredEvent.key`), both descending.

    ``before``: only events earlier than this time; with ``before_key`` also the events at exactly ``before``
    whose row key is below it (the cursor of the next page, so events sharing a timestamp are not skipped).
    """

    project_id: int
    where: Sequence[Fragment]
    limit: int
    before: int | None = None
    before_key: int | None = None


@dataclass(frozen=True)
class StoredEvent:
    """One stored event as the events list shows it. ``key``: a non-negative integer, unique among the
    project's events, that orders events sharing a timestamp (SQLite's row id, ClickHouse's uuid hash);
    ``properties`` the JSON text as stored; ``person_id`` the person now, after merges."""

    key: int
    uuid: str
    event: str
    distinct_id: str
    person_id: int
    timestamp: int
    properties: str
    elements_chain: str


@dataclass(frozen=True)
class PropertyValues:
    """The distinct values of event property ``key`` among the project's newest ``sample`` events (of
    ``event_names`` when given), as text the way filters compare it (numbers as text, ``true``/``false``),
    missing, null and empty values left out, containing ``search`` (case-insensitive) when given: the ``limit``
    most frequent, ties by value ascending."""

    project_id: int
    key: str
    limit: int
    sample: int
    event_names: Sequence[str] = ()
    search: str | None = None


@runtime_checkable
class EventStore(Protocol):
    """Reads of events, persons and groups for calculations. Contracts: ``docs/storage.md``."""

    @property
    def dialect(self) -> Dialect:
        """The SQL dialect filters must be compiled with to run on this store."""
        ...

    def earliest_event(self, project_id: int) -> datetime | None:
        """The first event's time on or after 2015-01-01 UTC (earlier stamps are broken clocks), or None."""
        ...

    def aggregate_spans(self, request: SpanAggregate) -> dict[tuple[int, Any], float]:
        """``{(span index, group value): aggregate}`` for every cell that has matching events."""
        ...

    def aggregate_counted(
        self, request: SpanAggregate, *, max_groups: int
    ) -> dict[tuple[int, Any], tuple[float, int]] | None:
        """``{(span index, group value): (aggregate, events)}``, or None past ``max_groups`` cells."""
        ...

    def first_seen(self, request: FirstSeen) -> list[tuple[Any, Any, int]]:
        """``(group value, actor, first timestamp)`` of each pair (any order)."""
        ...

    def active_actors(self, request: ActiveActors) -> Iterator[tuple[int, Any, Any]]:
        """Distinct ``(span index, group value, actor)`` triples (any order)."""
        ...

    def top_values(self, request: TopValues) -> list[Any]:
        """Up to ``count`` values by event count, then by value, both descending."""
        ...

    def flagged_rows(self, request: FlaggedScan) -> FlaggedRows:
        """The scan's rows as columns, ordered by actor then timestamp (ties in any order)."""
        ...

    def person_events(self, request: PersonEventScan) -> Iterator[tuple[Any, ...]]:
        """The scan's rows, ordered by person, timestamp, then event name."""
        ...

    def list_events(self, request: EventListing) -> list[StoredEvent]:
        """The listing's events, newest first (timestamp, then row key, both descending)."""
        ...

    def get_event(self, project_id: int, event_uuid: str) -> StoredEvent | None:
        """The project's event with that uuid, or None."""
        ...

    def property_values(self, request: PropertyValues) -> list[str]:
        """Up to ``limit`` values, most frequent first, ties by value ascending."""
        ...

    def has_events(self, project_id: int) -> bool:
        """Whether the project has any stored event."""
        ...

    def property_keys(self, project_id: int, event_name: str, sample: int) -> set[str]:
        """The property keys of the project's newest ``sample`` events named ``event_name``."""
        ...

    def persons_matching(self, project_id: int, where: Fragment) -> list[int]:
        """Ids of the project's persons for which ``where`` holds over ``e.person_id``, ascending."""
        ...

    def person_properties(self, project_id: int, person_ids: Sequence[int]) -> Iterator[tuple[int, dict[str, Any]]]:
        """``(person id, current properties)`` of those ids that exist in the project (any order)."""
        ...

    def group_properties(
        self, project_id: int, group_type_index: int, group_keys: Sequence[str]
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(group key, properties)`` of those groups of the type that exist in the project (any order)."""
        ...


Sql = tuple[str, list[Any]]
"""SQL text a dialect writes and the parameters its ``?`` marks take, in order."""

HOGQL_SCALARS = ("lower", "upper", "length", "trim", "coalesce", "ifnull", "round", "abs")
"""The HogQL functions :meth:`Dialect.scalar` writes (lower-case names, as the HogQL compiler passes them)."""


class Dialect(Protocol):
    """What a dialect writes. Values are in PostHog's semantics: a property "text" is ``''`` when missing,
    ``'true'``/``'false'``/``'null'`` for those JSON values, numbers as written; a "condition" is 1/0/NULL
    (true/false/unknown), so callers wrap it in ``coalesce(..., 0)`` where NULL must be false. ``column`` is SQL
    yielding a JSON properties object (``e.properties``, :meth:`person_properties`, :meth:`group_properties`),
    without parameters (a reader may write it more than once);
    ``e`` is the event row (``project_id``, ``event``, ``person_id``, ``session_id``, ``group_0`` to
    ``group_4``, ``timestamp`` in UTC microseconds, ``elements_chain``)."""

    # -- properties of a JSON column
    def extract(self, column: str, key: str) -> Sql:
        """The JSON value of ``key`` as the engine's scalar (text or number; booleans 1/0); NULL for null or
        missing."""
        ...

    def json_type(self, column: str, key: str) -> Sql:
        """The JSON type name of ``key``: ``'null'``, ``'true'``, ``'false'``, ``'text'``, ``'integer'``,
        ``'real'``, ``'object'``, ``'array'``; NULL when missing (only null/true/false/NULL are compared)."""
        ...

    def text(self, column: str, key: str) -> Sql:
        """The property text (see above): never NULL."""
        ...

    def breakdown_value(self, column: str, key: str, hot: str | None = None) -> Sql:
        """The breakdown text: ``'true'``/``'false'`` for booleans, other values as text, NULL for missing, null
        or ``''``; ``hot`` is a column holding the value already (read alone when given)."""
        ...

    # -- value conversions and tests (arguments are SQL expressions)
    def to_text(self, value_sql: str) -> str:
        """``value_sql`` as text (numbers as written, integers without ``.0``); NULL stays NULL."""
        ...

    def number(self, value_sql: str) -> str:
        """``value_sql`` as a float when its text reads as a number (spaces ignored), else NULL."""
        ...

    def integer(self, value_sql: str) -> str:
        """:meth:`number` truncated toward zero to a 64-bit integer; NULL when not a number."""
        ...

    def date(self, value_sql: str) -> str:
        """``value_sql`` read as a date-time (ISO text, date alone as midnight, naive as UTC): UTC microseconds
        (integer), else NULL."""
        ...

    def divide(self, left: str, right: str) -> str:
        """``left / right`` as a float division; NULL when ``right`` is 0 or NULL."""
        ...

    def regex(self, text_sql: str) -> str:
        """Condition, binds one ``?`` (an RE2 pattern): 1 when the pattern occurs anywhere in ``text_sql``."""
        ...

    def contains(self, text_sql: str) -> str:
        """Condition, binds one ``?``: ``text_sql`` (NULL read as ``''``) contains it, ASCII case-blind, with
        ``%`` and ``_`` in it matching any text / any one character (PostHog's ``ilike '%value%'``)."""
        ...

    def find(self, text_sql: str) -> str:
        """Condition, binds one ``?``: ``text_sql`` contains it literally, case-blind (lower-cased both)."""
        ...

    def like(self, text_sql: str, pattern_sql: str) -> str:
        """Condition: HogQL ``like``, case-sensitive, ``%`` any text and ``_`` any one character, nothing else
        special (``pattern_sql`` is an expression, usually a bound ``?``)."""
        ...

    def ilike(self, text_sql: str, pattern_sql: str) -> str:
        """Condition: HogQL ``ilike``, :meth:`like` after lower-casing both sides."""
        ...

    def concat(self, parts: Sequence[str]) -> str:
        """HogQL ``concat``: the parts as text (NULL as ``''``) joined; never NULL."""
        ...

    def scalar(self, name: str, args: Sequence[str]) -> str:
        """A HogQL function of :data:`HOGQL_SCALARS` (arity checked by the caller), SQL semantics: ``length``
        counts characters, ``round(x[, digits])`` half away from zero, ``ifnull(a, b)``."""
        ...

    def text_array(self, parts: Sequence[str]) -> str:
        """JSON text of an array of the parts as strings (NULL as ``""``), compact (``["a",""]``), as
        :func:`json.dumps` with ``separators=(",", ":")`` and ``ensure_ascii=False`` writes it."""
        ...

    def quantile(self, value_sql: str, level: float) -> str:
        """Aggregate: the linearly interpolated ``level`` (0..1) quantile of :meth:`number` of the non-NULL
        values; NULL for none (``{v}`` may stand for the value, filled in later)."""
        ...

    # -- where an event row ``e`` reaches its person, groups, session and cohorts
    def person_properties(self) -> str:
        """The current properties (JSON) of ``e.person_id``."""
        ...

    def person_column(self, column: str) -> str:
        """The person's materialized property column ``column`` (:mod:`local_backend.store.materialized`),
        holding ``'true'``/``'false'`` for booleans and the extracted value otherwise, for ``e.person_id``."""
        ...

    def group_properties(self, index: int) -> str:
        """The properties (JSON) of the event's group of type ``index`` (0..4, checked by the caller)."""
        ...

    def session_seconds(self) -> str:
        """The whole duration of the event's session in whole seconds (last minus first event, rounded half
        away from zero), integer."""
        ...

    def session_duration(self) -> str:
        """The aggregate :meth:`session_having`'s test is written over: a session's duration in seconds (float)
        from ``max``/``min`` of its events' ``s.timestamp``."""
        ...

    def session_having(self, test: str) -> str:
        """Condition: the event's session passes ``test`` (a condition over :meth:`session_duration`); NULL for
        an event without a session."""
        ...

    def static_cohort_member(self) -> str:
        """Condition, binds one ``?`` (the cohort id): ``e.person_id`` is in that static cohort."""
        ...

    def persons_as_events(self) -> str:
        """A row source, binds one ``?`` (the project id): the project's persons as event rows ``e`` with
        ``id``, ``person_id`` (the person), ``uuid``, ``properties``, ``is_identified``, ``created_at``."""
        ...


# -- writes -------------------------------------------------------------------------------------------------

EVENT_ROW_COLUMNS = ("uuid", "project_id", "event", "distinct_id", "person_id", "timestamp", "properties",
                     "group_0", "group_1", "group_2", "group_3", "group_4", "created_at")  # fmt: skip
"""The fields of an :data:`EventRow`, in order."""

EventRow = tuple[Any, ...]
"""An event as ingestion writes it: the values of :data:`EVENT_ROW_COLUMNS` (times in UTC microseconds, the
properties as JSON text, the person the event's person now, after the transaction's merges)."""


class TransactionWrites(Protocol):
    """The event writes of one ingestion write transaction (a group of capture requests, a bulk-load batch).

    They are made inside the SQLite write transaction, whose ``COMMIT`` is the commit point of every store: an
    engine that keeps events elsewhere writes them before it and takes them back if it never happens
    (``docs/ingestion.md``, "A write that spans ClickHouse and SQLite"). Persons, distinct ids, groups and
    definitions are written to SQLite by ingestion itself; an engine that keeps copies of persons, groups and
    merges is handed them with the events.
    """

    def stored_uuids(self, project_id: int, uuids: Sequence[str]) -> set[str]:
        """Those of ``uuids`` already stored in the project, this transaction's own events included."""
        ...

    def add_events(
        self,
        project_id: int,
        rows: Sequence[EventRow],
        *,
        persons: Sequence[tuple[int, str, str, int]] = (),
        merges: Sequence[tuple[int, int]] = (),
        groups: Sequence[tuple[int, str, str, int]] = (),
    ) -> None:
        """Store ``rows``; ``persons`` ``(id, uuid, properties, created_at)`` created or changed, ``merges``
        ``(surviving person, person merged away)`` and ``groups`` ``(type index, key, properties, created_at)``
        are what the transaction wrote to SQLite, for an engine that keeps copies of them."""
        ...

    def mark(self) -> Any:
        """A point to come back to when one request of a group fails (its SQLite savepoint is rolled back)."""
        ...

    def rollback_to(self, mark: Any) -> None:
        """Forget what was added after ``mark``."""
        ...

    def before_commit(self) -> bool:
        """Write what is still held, just before SQLite commits; True when the commit makes a write final (the
        crash points of a write, ``local_backend/crash_points.py``, are passed only then)."""
        ...

    def after_commit(self) -> None:
        """SQLite committed: forget how to take the write back."""
        ...


@dataclass(frozen=True)
class EventRewrite:
    """A project's stored events of ``[lower, upper]`` (inclusive), rewritten all or none.

    ``batch_size``: events read at once by a store that reads them in storage order; ``day_batch_size``: events
    read at once by a store that reads whole days (about that many, in time order).
    """

    project_id: int
    lower: int
    upper: int
    batch_size: int
    day_batch_size: int


@dataclass(frozen=True)
class StoredRow:
    """One stored event as a rewrite hands it to its judge; ``properties`` the stored JSON text."""

    project_id: int
    uuid: str
    event: str
    distinct_id: str
    properties: str
    timestamp: int


@dataclass(frozen=True)
class Rewritten:
    """What one stored event becomes: ``event`` and ``properties`` (JSON text) are its new values when changed;
    ``unchanged`` and ``failed`` leave it as stored."""

    kind: Literal["changed", "dropped", "unchanged", "failed"]
    event: str = ""
    properties: str = ""


class RewriteJudge(Protocol):
    """Decides each stored event of a rewrite (a plugin job), whatever the engine."""

    def judge(self, row: StoredRow) -> Rewritten:
        """The event's outcome."""
        ...

    def note_renamed(self, project_id: int, name: str, timestamp: int) -> None:
        """An event was renamed to ``name`` at ``timestamp`` (also by an earlier rewrite finished now)."""
        ...


class EventWriter(Protocol):
    """Writes of events. Contracts: ``docs/storage.md`` ("The event store interface", writes)."""

    def transaction_writes(self) -> AbstractContextManager[TransactionWrites]:
        """The writes of the SQLite write transaction open on the connection (its write lock held); if the
        block raises, what it wrote is taken back."""
        ...

    def rewrite_events(self, request: EventRewrite, judge: RewriteJudge) -> None:
        """Run every event of the range through ``judge`` and store the outcome: all of it or, on a failure
        before anything is applied, none of it."""
        ...

    def add_property_column(self, column: str, key: str) -> None:
        """A materialized event property ``key`` as the stored column ``column`` (filled for stored events)."""
        ...

    def drop_property_column(self, column: str) -> None:
        """The stored column of a materialized property goes (no error when absent)."""
        ...
