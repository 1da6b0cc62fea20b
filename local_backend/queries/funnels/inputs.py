"""What a funnel asks of the shared filter building blocks: its date range, periods, and SQL conditions.

The one seam between the funnel calculation and the date and property machinery: the calculation never
parses a date or builds a property clause itself.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from ...models.property_filters import Property, PropertyGroup
from ...store.engine.choice import event_store
from ...store.event_rows import to_micros
from ..base_filter import Entity, compiler_for, entity_condition, filter_date_range, global_condition
from ..breakdowns import CohortSplit, cohort_splits
from ..breakdowns import breakdown_expression as shared_breakdown_expression
from ..buckets import Buckets, make_buckets
from ..dates import DateRange, add_months
from ..properties import PropertyCompiler
from .filter import FunnelFilter

__all__ = [
    "FunnelRange",
    "resolve_funnel_range",
    "step_condition",
    "filter_condition",
    "window_end",
    "is_same_or_wider",
    "breakdown_expression",
    "cohort_members",
    "compiler_for",
]

_UNIT_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 7 * 86400}


@dataclass(frozen=True)
class FunnelRange:
    """The inclusive date range (project timezone) and, for funnel trends, the entrance periods."""

    dates: DateRange
    buckets: Buckets | None

    @property
    def start(self) -> datetime:
        return self.dates.date_from

    @property
    def end(self) -> datetime:
        return self.dates.date_to

    @property
    def start_micros(self) -> int:
        return to_micros(self.dates.date_from)

    @property
    def end_micros(self) -> int:
        return to_micros(self.dates.date_to)

    @property
    def period_starts(self) -> list[datetime]:
        return self.buckets.starts if self.buckets is not None else []

    def period_of(self, timestamps: np.ndarray) -> np.ndarray:
        """The index of the entrance period of each timestamp (-1 outside them all)."""
        if self.buckets is None:
            return np.full(len(timestamps), -1, dtype=np.int64)
        edges = np.array(self.buckets.edges, dtype=np.int64)
        index = np.searchsorted(edges, timestamps, side="right") - 1
        return np.where(index >= len(self.buckets), -1, index)


def resolve_funnel_range(
    conn: sqlite3.Connection, filter: FunnelFilter, project: dict[str, Any], now: datetime
) -> FunnelRange:
    """The shared date rules (``date_from`` default -7d from 00:00, ``date_to`` to the end of its day, ...)."""

    dates = filter_date_range(conn, project, filter, now)
    return FunnelRange(dates=dates, buckets=make_buckets(dates) if filter.viz_type == "trends" else None)


def window_end(amount: int, unit: str) -> Any:
    """The function from start timestamps (µs) to the last moment of the conversion window (inclusive)."""
    if unit != "month":
        span = amount * _UNIT_SECONDS[unit] * 1_000_000
        return lambda starts: starts + span

    def months_later(starts: np.ndarray) -> np.ndarray:
        epoch = datetime(1970, 1, 1)
        moved = [add_months(epoch + timedelta(microseconds=int(value)), amount) for value in starts]
        return np.array([(moment - epoch) // timedelta(microseconds=1) for moment in moved], dtype=np.int64)

    return months_later


def step_condition(compiler: PropertyCompiler, entity: Entity, attr: str) -> tuple[str, list[Any]]:
    """SQL over ``events e`` matching one step or exclusion (an event, any event, or an action)."""
    return entity_condition(compiler, entity, attr)


def filter_condition(
    compiler: PropertyCompiler, project: dict[str, Any], filter: FunnelFilter
) -> tuple[str, list[Any]]:
    """The filter's own properties (every event considered) and the test-account filters when asked for."""
    return global_condition(compiler, filter, project)


def _flat_conditions(group: PropertyGroup) -> list[Property] | None:
    """The conditions of an AND-only group, or None when an OR makes them incomparable."""
    if group.type != "AND" and len(group.values) > 1:
        return None
    flat: list[Property] = []
    for value in group.values:
        if isinstance(value, PropertyGroup):
            inner = _flat_conditions(value)
            if inner is None:
                return None
            flat.extend(inner)
        else:
            flat.append(value)
    return flat


def is_same_or_wider(later: Entity, earlier: Entity) -> bool:
    """True when every event matching ``earlier`` also matches ``later`` (same entity, fewer or equal filters).

    Such a step must happen strictly after the previous one, so that one event never completes both.
    """
    any_event = later.type == "events" and later.id is None and earlier.type == "events"
    if not any_event and (later.type != earlier.type or later.id != earlier.id):
        return False
    later_props, earlier_props = _flat_conditions(later.properties), _flat_conditions(earlier.properties)
    if later_props is None or earlier_props is None:
        return later.properties == earlier.properties
    return all(prop in earlier_props for prop in later_props)


def breakdown_expression(filter: FunnelFilter, compiler: PropertyCompiler) -> tuple[str, list[Any]]:
    """SQL text, in the compiler's dialect, of each event's breakdown value (NULL when missing), the trends
    expression per property: one text, or a JSON array of texts (missing ones ``""``) whenever the breakdown is
    given as a list, even of one property, so that every value reads back as the list the API shows."""
    if not isinstance(filter.breakdown, list):
        return shared_breakdown_expression(filter, compiler)
    parts = [
        shared_breakdown_expression(filter.model_copy(update={"breakdown": str(key)}), compiler)
        for key in filter.breakdown
    ]
    return compiler.dialect.text_array([sql for sql, _ in parts]), [param for _, params in parts for param in params]


def cohort_members(
    conn: sqlite3.Connection, compiler: PropertyCompiler, project: dict[str, Any], filter: FunnelFilter
) -> tuple[list[tuple[int, int]], list[CohortSplit]]:
    """The cohorts of a cohort breakdown (``all`` is everyone) and ``(person_id, index of the cohort)`` pairs."""
    splits = cohort_splits(conn, compiler, filter)
    store = event_store(conn)
    pairs: list[tuple[int, int]] = []
    for index, split in enumerate(splits):
        pairs.extend((person_id, index) for person_id in store.persons_matching(int(project["id"]), split.condition))
    return pairs, splits
