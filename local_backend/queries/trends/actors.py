"""Who is behind one point of a trend series: the actors its number counts.

Each point of a series links to its people (``persons_urls``, one per point in the order of ``days``; an
aggregated display's one value links through ``persons``), as PostHog's legacy ``persons/trends/`` does: the
series' filter with ``date_from``/``date_to`` pinned to the point's bounds, and ``entity_id``, ``entity_type``,
``entity_math``, ``entity_order`` naming the series (and ``breakdown_value``, ``breakdown_type``). A cumulative
display's point starts where the range starts. A compared series' points carry the previous period's dates,
so the link needs no ``compare``. A property breakdown also pins the range its values were ranked in
(``series_date_from``, ``series_date_to``) and the page of values (``breakdown_offset``), so Other means the
same values it meant on the chart.

The actors of a point (:func:`trend_actors`) are those with a matching event in the span the number was
aggregated over, the span :func:`actor_span` gives as trends makes it:

=====================================  ===================================================================
math                                   actors
=====================================  ===================================================================
total, dau, count per actor            persons (groups of ``aggregation_group_type_index``) with an event
weekly_active / monthly_active         those with an event in the 7 / 30 days ending with the point
unique_group                           the group keys of ``math_group_type_index``
unique_session                         the persons of the sessions counted
sum, avg, min, max, quantiles          those with an event whose ``math_property`` reads as a number (for
                                       ``$session_duration``: an event in a session)
=====================================  ===================================================================

A point the series does not show (a breakdown value not on the chart, a series not in the filter) is a 400
naming the field; so is a formula, whose value is no set of actors.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from ...errors import ValidationError
from ...store.engine.choice import event_store
from ...store.engine.interface import ActiveActors
from ...store.event_rows import to_micros
from ..base_filter import Entity, compiler_for, entity_condition, filter_date_range, global_condition
from ..breakdowns import MAX_OFFSET, OTHER, breakdown_expression, cohort_splits, page_of, rank_values
from ..buckets import Buckets, make_buckets
from ..dates import DateRange, add_intervals, parse_date
from ..people_links import PeopleLink, filter_params, local_text, pinned_dates, present
from ..properties import PropertyCompiler
from .filter import CUMULATIVE_DISPLAY, TrendsFilter
from .math import SESSION_DURATION, MathPlan, actor_column, plan_math
from .series import RawSeries

__all__ = [
    "TrendPoint",
    "TrendActors",
    "trend_actors",
    "actor_span",
    "point_links",
    "actors_group_type",
    "parse_series_range",
    "parse_breakdown_offset",
    "point_on_day",
]

DAY_MICROS = 86_400_000_000
ONE_MICRO = timedelta(microseconds=1)
Where = tuple[str, list[Any]]


@dataclass(frozen=True)
class TrendPoint:
    """Which series a people link names (its filter holds the point's dates): ``entity_order`` the series'
    position among the filter's entities, checked against ``entity_id``/``entity_type``/``entity_math`` when
    given; ``breakdown_value`` the value of a broken-down series, ranked over ``series_range`` (inclusive
    instants; the point's own range when None) at ``breakdown_offset``."""

    entity_order: int | None = None
    entity_id: str | None = None
    entity_type: str | None = None
    entity_math: str | None = None
    breakdown_value: str | None = None
    series_range: tuple[datetime, datetime] | None = None
    breakdown_offset: int = 0


@dataclass(frozen=True)
class TrendActors:
    """The actors of a point, sorted: person ids, or group keys when ``group_type_index`` is set."""

    actors: list[Any]
    group_type_index: int | None


def actors_group_type(entity: Entity, filter: TrendsFilter) -> int | None:
    """The group type whose keys a series counts (None: persons)."""
    if entity.math == "unique_group":
        return int(entity.math_group_type_index or 0)
    return filter.aggregation_group_type_index


def _and(*parts: Where) -> Where:
    kept = [part for part in parts if part[0] != "1"]
    if not kept:
        return "1", []
    return "(" + " AND ".join(sql for sql, _ in kept) + ")", [param for _, params in kept for param in params]


def actor_span(filter: TrendsFilter, date_range: DateRange, buckets: Buckets, plan: MathPlan) -> tuple[int, int]:
    """``[low, high)``: every event a point over ``date_range`` aggregated is in it (module docstring)."""
    lower, high = to_micros(date_range.lower), to_micros(date_range.date_to) + 1
    if not plan.active_days:
        return lower, high
    width = plan.active_days * DAY_MICROS
    if filter.is_aggregate:
        return high - width, high
    if filter.interval == "day":  # days are calendar days here, as trends slides them
        return to_micros(add_intervals(buckets.starts[0], "day", 1 - plan.active_days)), high
    first_high = min(buckets.edges[1], high)
    return min(buckets.edges[0], first_high - width), high


def _math_condition(entity: Entity, plan: MathPlan, compiler: PropertyCompiler) -> Where:
    """The events a math aggregates among those matching the series: a property math reads only numbers."""
    if entity.math == "unique_session" or plan.needs_sessions:
        return "nullif(e.session_id, '') IS NOT NULL", []
    if plan.value_sql and entity.math_property != SESSION_DURATION:
        return f"{compiler.dialect.number(plan.value_sql)} IS NOT NULL", list(plan.value_params)
    return "1", []


def _people_actor(entity: Entity, filter: TrendsFilter) -> str:
    if entity.math == "unique_session":  # the sessions' persons: a session is nobody to list
        if filter.aggregation_group_type_index is not None:
            return f"nullif(e.group_{int(filter.aggregation_group_type_index)}, '')"
        return "e.person_id"
    return actor_column(entity, filter)


def _entity_of(filter: TrendsFilter, point: TrendPoint) -> Entity:
    entities = filter.entities
    if point.entity_order is not None:
        if not 0 <= point.entity_order < len(entities):
            raise ValidationError(
                f"entity_order must name one of the filter's {len(entities)} series (0..{len(entities) - 1}).",
                attr="entity_order",
            )
        candidates = [entities[point.entity_order]]
    else:
        candidates = entities
    for entity in candidates:
        if point.entity_type not in (None, "", entity.type):
            continue
        if point.entity_id not in (None, "") and str(point.entity_id) != str(entity.id):
            continue
        if point.entity_math not in (None, "") and point.entity_math != (entity.math or "total"):
            continue
        return entity
    raise ValidationError("No series of this filter has that entity_id, entity_type and entity_math.", attr="entity_id")


def _series_bounds(point: TrendPoint, date_range: DateRange) -> tuple[int, int]:
    if point.series_range is None:
        return to_micros(date_range.lower), to_micros(date_range.date_to)
    start, end = point.series_range
    return to_micros(start), to_micros(end)


def _breakdown_where(
    conn: sqlite3.Connection,
    project_id: int,
    filter: TrendsFilter,
    compiler: PropertyCompiler,
    series_where: Where,
    point: TrendPoint,
    date_range: DateRange,
) -> tuple[Where, Where | None, str | None]:
    """(an extra condition, a group expression, the group value to keep) for the point's breakdown value."""
    value = point.breakdown_value
    if not filter.uses_breakdown:
        if value not in (None, ""):
            raise ValidationError("This series is not broken down: leave breakdown_value out.", attr="breakdown_value")
        return ("1", []), None, None
    if value in (None, ""):
        raise ValidationError("A broken-down series' point needs its breakdown_value.", attr="breakdown_value")
    if filter.breakdown_type == "cohort":
        splits = cohort_splits(conn, compiler, filter)
        for split in splits:
            if str(split.value) == str(value) or (split.value == "all" and str(value) == "0"):
                return split.condition, None, None
        shown = ", ".join(str(split.value) for split in splits)
        raise ValidationError(f"No cohort {value} in this breakdown; its values are: {shown}.", attr="breakdown_value")
    expression = breakdown_expression(filter, compiler)
    lower, upper = _series_bounds(point, date_range)
    offset = point.breakdown_offset
    ranked = rank_values(
        conn,
        project_id=project_id,
        lower=lower,
        upper=upper,
        where=series_where,
        expression=expression,
        count=offset + filter.breakdown_limit + 1,
    )
    page = page_of(ranked, expression, limit=filter.breakdown_limit, offset=offset)
    if value in page.values or (value == OTHER and page.has_more):
        return ("1", []), page.group, str(value)
    shown = [*page.values, *([OTHER] if page.has_more else [])]
    raise ValidationError(
        f"No breakdown value {value} in this series; its values are: {', '.join(shown) or 'none'}.",
        attr="breakdown_value",
    )


def trend_actors(
    conn: sqlite3.Connection, project: dict[str, Any], filter: TrendsFilter, now: datetime, point: TrendPoint
) -> TrendActors:
    """The actors counted at the point ``filter`` (its dates the point's) and ``point`` name."""
    if filter.formula:
        raise ValidationError(
            "A formula's value is not a set of people: ask for the people of one of its series.", attr="formula"
        )
    project_id = int(project["id"])
    entity = _entity_of(filter, point)
    date_range = filter_date_range(conn, project, filter, now)
    buckets = make_buckets(date_range)
    compiler = compiler_for(conn, project)
    plan = plan_math(entity, filter, compiler.dialect)
    series_where = _and(
        entity_condition(compiler, entity, f"{entity.type}__{entity.index}"),
        global_condition(compiler, filter, project),
    )
    extra, group, keep = _breakdown_where(conn, project_id, filter, compiler, series_where, point, date_range)
    where = _and(series_where, extra, _math_condition(entity, plan, compiler))
    request = ActiveActors(
        project_id=project_id,
        spans=[actor_span(filter, date_range, buckets, plan)],
        where=where,
        actor=_people_actor(entity, filter),
        group=group,
    )
    found = {who for _, value, who in event_store(conn).active_actors(request) if keep is None or value == keep}
    group_type = actors_group_type(entity, filter)
    actors = sorted(found, key=str) if group_type is not None else sorted(int(who) for who in found)
    return TrendActors(actors=actors, group_type_index=group_type)


def parse_series_range(
    start: str | None, end: str | None, tz: ZoneInfo, now: datetime
) -> tuple[datetime, datetime] | None:
    """``series_date_from``/``series_date_to`` of a people link as instants (None when absent)."""
    if start in (None, "") and end in (None, ""):
        return None
    if start in (None, "") or end in (None, ""):
        attr = "series_date_to" if start not in (None, "") else "series_date_from"
        raise ValidationError("series_date_from and series_date_to go together.", attr=attr)
    return (
        parse_date(str(start), tz=tz, now=now, attr="series_date_from"),
        parse_date(str(end), tz=tz, now=now, attr="series_date_to"),
    )


def _point_bounds(
    filter: TrendsFilter, date_range: DateRange, buckets: Buckets, index: int
) -> tuple[datetime, datetime]:
    """The inclusive instants of point ``index``: its bucket within the range (from the range's start when
    cumulative)."""
    start = buckets.starts[index]
    end = min(add_intervals(start, date_range.interval, 1) - ONE_MICRO, date_range.date_to)
    if filter.display == CUMULATIVE_DISPLAY:
        return date_range.lower, end
    return max(start, date_range.lower), end


def point_on_day(
    filter: TrendsFilter, date_range: DateRange, day: Any, tz: ZoneInfo, now: datetime
) -> tuple[datetime, datetime]:
    """The inclusive instants of the point whose bucket starts on ``day`` (as ``days`` shows it), as the series'
    link pins them; the whole range for an aggregated display. A day the series does not show is a 400."""
    buckets = make_buckets(date_range)
    if filter.is_aggregate:
        return date_range.lower, date_range.date_to
    if day in (None, ""):
        raise ValidationError("day names the point: one of the series' days.", attr="query__source__day")
    moment = parse_date(str(day), tz=tz, now=now, attr="query__source__day")
    start = moment.replace(tzinfo=None)
    for index, bucket in enumerate(buckets.starts):
        if bucket.replace(tzinfo=None) == start or buckets.days[index] == str(day):
            return _point_bounds(filter, date_range, buckets, index)
    raise ValidationError(
        f"day must be one of the series' days, {buckets.days[0]} to {buckets.days[-1]}.", attr="query__source__day"
    )


def point_links(
    filter: TrendsFilter, date_range: DateRange, link: PeopleLink, *, offset: int = 0
) -> Callable[[RawSeries], list[dict[str, Any]]]:
    """For a series of the period ``date_range``: ``[{filter, url}]``, one per point (one for an aggregated
    display, over the range)."""
    base = filter_params(filter, leave_out=("compare", "compare_to"))
    buckets = make_buckets(date_range)
    if filter.is_aggregate:
        bounds = [(date_range.lower, date_range.date_to)]
    else:
        bounds = [_point_bounds(filter, date_range, buckets, index) for index in range(len(buckets))]
    # the points' dates are the same in every series of the period: pinned once, not once per series
    points = [pinned_dates(start, end) for start, end in bounds]

    def series_links(series: RawSeries) -> list[dict[str, Any]]:
        entity = series.entity
        named: dict[str, Any] = {
            "entity_id": entity.id,
            "entity_type": entity.type,
            "entity_math": entity.math or "total",
            "entity_order": entity.index,
        }
        if filter.uses_breakdown and series.breakdown_value is not None:
            named["breakdown_value"] = series.breakdown_value
            named["breakdown_type"] = filter.breakdown_type or "event"
            if filter.breakdown_type != "cohort":
                named["series_date_from"] = local_text(date_range.lower)
                named["series_date_to"] = local_text(date_range.date_to)
                if offset:
                    named["breakdown_offset"] = offset
        # the link's parameters are the filter's, then the series' (which may override one), then the point's dates
        fixed = present({**base, **named})
        return [{"filter": {**named, **dates}, "url": link({**fixed, **dates})} for dates in points]

    return series_links


def parse_breakdown_offset(text: str | None) -> int:
    if text in (None, ""):
        return 0
    if not str(text).isdigit() or int(text) > MAX_OFFSET:
        raise ValidationError(f"breakdown_offset must be an integer from 0 to {MAX_OFFSET}.", attr="breakdown_offset")
    return int(text)
