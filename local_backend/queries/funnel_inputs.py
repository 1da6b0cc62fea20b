"""What a funnel asks of the shared filter building blocks: its date range, periods, and SQL conditions.

The one seam between the funnel calculation and the date and property machinery: the calculation never
parses a date or builds a property clause itself.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

from ..errors import ValidationError
from ..models.funnels import FunnelFilter
from ..store.events import from_micros, to_micros
from .buckets import Buckets, make_buckets
from .dates import DateRange, add_months, resolve_date_range
from .dialect import DIALECT
from .filters import Entity, compiler_for, entity_condition, global_condition
from .hogql import compile_expression
from .properties import EVENT_PROPERTIES, PERSON_PROPERTIES, PropertyCompiler, group_properties_column
from .property_model import Property, PropertyGroup

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

    def earliest_event() -> datetime | None:
        row = conn.execute("SELECT min(timestamp) FROM events WHERE project_id = ?", (project["id"],)).fetchone()
        return from_micros(row[0]) if row and row[0] is not None else None

    dates = resolve_date_range(
        date_from=filter.date_from,
        date_to=filter.date_to,
        interval=filter.interval,
        explicit_date=filter.explicit_date,
        tz=ZoneInfo(project.get("timezone") or "UTC"),
        now=now,
        week_start_day=1 if project.get("week_start_day") == 1 else 0,
        earliest_event=earliest_event,
    )
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


_SESSION_DURATION = (
    "(SELECT CAST((max(s.timestamp) - min(s.timestamp)) / 1000000 AS TEXT) FROM events s"
    " WHERE s.project_id = e.project_id AND s.session_id = e.session_id)"
)


def _value_sql(filter: FunnelFilter, key: str) -> tuple[str, list[Any]]:
    kind = filter.breakdown_type or "event"
    if kind == "event":
        return DIALECT.breakdown_value(EVENT_PROPERTIES, key)
    if kind == "person":
        return DIALECT.breakdown_value(PERSON_PROPERTIES, key)
    if kind == "group":
        return DIALECT.breakdown_value(group_properties_column(filter.breakdown_group_type_index or 0), key)
    if kind == "session":
        if key != "$session_duration":
            raise ValidationError("Session breakdowns support $session_duration.", attr="breakdown")
        return _SESSION_DURATION, []
    sql, params = compile_expression(key, attr="breakdown")
    return f"nullif(CAST(({sql}) AS TEXT), '')", params


def breakdown_expression(filter: FunnelFilter) -> tuple[str, list[Any]]:
    """SQL text of each event's breakdown value (NULL when missing): one text, or a JSON array of texts."""
    keys = filter.breakdown if isinstance(filter.breakdown, list) else [filter.breakdown]
    parts = [_value_sql(filter, str(key)) for key in keys]
    if len(parts) == 1:
        return parts[0]
    return "json_array(" + ", ".join(f"coalesce({sql}, '')" for sql, _ in parts) + ")", [
        param for _, params in parts for param in params
    ]


def cohort_members(compiler: PropertyCompiler, project: dict[str, Any], cohort_ids: list[int]) -> list[tuple[int, int]]:
    """``(person_id, cohort_id)`` for every member of the cohorts, static or defined by person properties."""
    pairs: list[tuple[int, int]] = []
    for cohort_id in cohort_ids:
        exists = compiler.conn.execute(
            "SELECT 1 FROM cohorts WHERE id = ? AND project_id = ? AND deleted = 0", (cohort_id, project["id"])
        ).fetchone()
        if exists is None:
            raise ValidationError(f"Cohort {cohort_id} does not exist.", attr="breakdown", code="does_not_exist")
        sql, params = compiler.compile(
            PropertyGroup(values=(Property(key="id", value=cohort_id, type="cohort", operator="in"),)), "breakdown"
        )
        rows = compiler.conn.execute(
            f"SELECT e.person_id FROM (SELECT id AS person_id FROM persons WHERE project_id = ?) e WHERE {sql}",
            [project["id"], *params],
        )
        pairs.extend((person_id, cohort_id) for (person_id,) in rows)
    return pairs
