"""Reads: the one interface through which a calculation reads events, persons and groups.

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

from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import repeat
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .dialect import Dialect
from .person_profiles import personful_condition
from .sql_run import SqlAnswer, SqlRun

__all__ = [
    "EventStore",
    "Fragment",
    "Span",
    "Measure",
    "COUNT",
    "SpanAggregate",
    "FirstSeen",
    "ActiveActors",
    "ActorColumns",
    "ActiveIntervals",
    "IntervalColumns",
    "CreatedColumns",
    "COUNT_OPERATORS",
    "TopValues",
    "FlaggedScan",
    "FlaggedRows",
    "PersonEventScan",
    "EventListing",
    "StoredEvent",
    "PropertyValues",
    "SqlRun",
    "SqlAnswer",
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
    """An aggregate of the events matching ``where`` in each span, per value of ``group`` (when given).

    ``events``: when known, every event name that can match ``where`` (an engine may skip other events)."""

    project_id: int
    spans: Sequence[Span]
    where: Fragment
    measure: Measure
    group: Fragment | None = None
    events: Sequence[str] | None = None

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
    """Who did a matching event in each span (spans are usually days), per value of ``group``.

    ``personful_only``: leave out personless events (``$process_person_profile: false``,
    :func:`.person_profiles.personless_condition`), as a lifecycle does; an engine may find them its own way.
    """

    project_id: int
    spans: Sequence[Span]
    where: Fragment
    actor: str
    group: Fragment | None = None
    personful_only: bool = False

    def events_where(self, dialect: Dialect) -> Fragment:
        """``where``, with ``personful_only`` also :func:`.person_profiles.personful_condition`: the events an
        engine reads when it has no quicker way to leave the personless out."""
        if not self.personful_only:
            return self.where
        profile_sql, profile_params = personful_condition(dialect)
        return f"({self.where[0]} AND {profile_sql})", [*self.where[1], *profile_params]


@dataclass(frozen=True)
class ActorColumns:
    """:meth:`EventStore.active_actors`' triples held as columns, as an engine that reads columns may answer them:
    iterating gives the ``(span index, group value, actor)`` triples; a caller that counts in numpy reads
    ``spans`` (int64) and ``actors`` (int64 person ids, or objects) without a Python tuple per row. ``groups``:
    each row's group value, None when the request had no group (every value None)."""

    spans: np.ndarray
    actors: np.ndarray
    groups: list[Any] | None = None

    def __len__(self) -> int:
        return len(self.spans)

    def __iter__(self) -> Iterator[tuple[int, Any, Any]]:
        groups = repeat(None) if self.groups is None else self.groups
        return zip(self.spans.tolist(), groups, self.actors.tolist(), strict=False)


COUNT_OPERATORS = ("gte", "lte", "exact")
"""How :class:`ActiveIntervals` compares a span's event count with its ``value``: at least, at most, exactly."""


@dataclass(frozen=True)
class ActiveIntervals:
    """For each (group value, actor), in how many spans its matching events number ``operator`` ``value``
    (``gte``: at least, ``lte``: at most, ``exact``: exactly; a span without any of its events never counts).

    Spans are in order and do not overlap (calendar intervals); actors whose ``actor`` is NULL are left out.
    """

    project_id: int
    spans: Sequence[Span]
    where: Fragment
    actor: str
    group: Fragment | None = None
    operator: str = "gte"
    value: int = 1


@dataclass(frozen=True)
class IntervalColumns:
    """:meth:`EventStore.active_intervals`' triples held as columns, as an engine that reads columns may answer them:
    iterating gives the ``(group value, actor, number of spans)`` triples; a caller that counts in numpy reads
    ``actors`` and ``intervals`` (int64) without a Python tuple per actor. ``groups``: each row's group value,
    None when the request had no group (every value None)."""

    actors: np.ndarray
    intervals: np.ndarray
    groups: list[Any] | None = None

    def __len__(self) -> int:
        return len(self.intervals)

    def __iter__(self) -> Iterator[tuple[Any, Any, int]]:
        groups = repeat(None) if self.groups is None else self.groups
        return zip(groups, self.actors.tolist(), self.intervals.tolist(), strict=False)


@dataclass(frozen=True)
class CreatedColumns:
    """:meth:`EventStore.actors_created_at`' pairs held as columns: iterating gives ``(actor, created_at)``; a caller
    that works in numpy reads ``actors`` and ``created`` (int64) without a Python tuple per actor."""

    actors: np.ndarray
    created: np.ndarray

    def __len__(self) -> int:
        return len(self.created)

    def __iter__(self) -> Iterator[tuple[Any, int]]:
        return zip(self.actors.tolist(), self.created.tolist(), strict=True)


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

    def active_actors(self, request: ActiveActors) -> Iterable[tuple[int, Any, Any]]:
        """Distinct ``(span index, group value, actor)`` triples (any order)."""
        ...

    def active_intervals(self, request: ActiveIntervals) -> Collection[tuple[Any, Any, int]]:
        """``(group value, actor, number of spans)`` of each pair with at least one such span (any order)."""
        ...

    def actors_created_at(
        self, project_id: int, actors: Sequence[Any], group_type_index: int | None = None
    ) -> Iterable[tuple[Any, int]]:
        """``(actor, created_at)`` of those persons (or groups of the type, by key) that exist (any order)."""
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

    def run_sql(self, request: SqlRun) -> SqlAnswer:
        """The rows of a checked HogQL query over ``request.project_id``'s events and persons only."""
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
