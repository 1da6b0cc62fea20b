"""Trends from stored events: one series per entity (and breakdown value), zero-filled over the range.

Reading order: :func:`compute_trends` resolves the range (:mod:`..dates`) and its buckets (:mod:`..buckets`),
compiles each entity and the global filters (:mod:`..base_filter`, :mod:`..properties`), picks the aggregate
(:mod:`.math`) and the breakdown values (:mod:`..breakdowns`), runs one grouped query per entity
(:mod:`.sql`), and shapes the series (:mod:`.series`): cumulative sums, aggregated displays, formulas
(:mod:`.formula`) and the comparison with the previous period (:mod:`.compare`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...store.event_rows import to_micros
from ..actions import event_names
from ..base_filter import (
    Entity,
    compiler_for,
    entity_condition,
    entity_labels,
    filter_date_range,
    global_condition,
)
from ..breakdowns import (
    MAX_OFFSET,
    NULL,
    OTHER,
    BreakdownPage,
    breakdown_expression,
    cohort_splits,
    page_of,
    rank_counted,
    rank_values,
)
from ..buckets import Buckets, make_buckets
from ..dates import DateRange, add_intervals
from ..filter_parsing import parse_filter
from ..people_links import PeopleLink
from ..properties import PropertyCompiler
from .actors import point_links
from .compare import previous_range
from .filter import CUMULATIVE_DISPLAY, TrendsFilter
from .math import MathPlan, plan_math
from .series import RawSeries, SeriesLinks, shape_period
from .sql import Where, active_in_windows, aggregate_counted, aggregate_spans, first_seen

__all__ = ["TrendsResult", "compute_trends", "trends_payload", "resolve_trends_range"]

DAY_MICROS = 86_400_000_000
_DISTINCT_MATHS = ("dau", "unique_group", "unique_session")
# Past this many (bucket, value) groups, values are ranked by SQL in a pass of their own.
MAX_RANKED_GROUPS = 200_000


@dataclass(frozen=True)
class TrendsResult:
    series: list[dict[str, Any]]
    has_more: bool
    date_range: DateRange


def _and(first: Where, second: Where) -> Where:
    if first[0] == "1":
        return second
    if second[0] == "1":
        return first
    return f"({first[0]} AND {second[0]})", [*first[1], *second[1]]


def resolve_trends_range(
    conn: sqlite3.Connection, project: dict[str, Any], filter: TrendsFilter, now: datetime
) -> DateRange:
    return filter_date_range(conn, project, filter, now)


@dataclass
class _Context:
    conn: sqlite3.Connection
    project_id: int
    filter: TrendsFilter
    compiler: PropertyCompiler
    global_where: Where
    offset: int


def _spans(
    ctx: _Context, date_range: DateRange, buckets: Buckets, plan: MathPlan
) -> tuple[list[tuple[int, int]], int, int]:
    """The spans to aggregate over, and the [lower, upper] range breakdown values are ranked in."""
    lower, upper = to_micros(date_range.lower), to_micros(date_range.date_to)
    if ctx.filter.is_aggregate:
        if plan.active_days:
            return [(upper + 1 - plan.active_days * DAY_MICROS, upper + 1)], lower, upper
        return [(lower, upper + 1)], lower, upper
    spans = buckets.spans(lower, upper)
    if plan.active_days:
        width = plan.active_days * DAY_MICROS
        spans = [(min(buckets.edges[i], high - width), high) for i, (_, high) in enumerate(spans)]
    return spans, lower, upper


def _cumulative_distinct(
    ctx: _Context, where: Where, plan: MathPlan, buckets: Buckets, lower: int, upper: int, group: Where | None
) -> dict[tuple[int, Any], float]:
    """Each actor counted once, in the bucket of their first event in range."""
    counts: dict[tuple[int, Any], float] = {}
    actor = plan.distinct_actor or "e.person_id"
    for value, first in first_seen(
        ctx.conn, project_id=ctx.project_id, lower=lower, upper=upper, where=where, actor=actor, group=group
    ):
        index = buckets.index_of(first)
        if index is not None:
            counts[(index, value)] = counts.get((index, value), 0) + 1
    return counts


def _active_by_day(
    ctx: _Context, where: Where, plan: MathPlan, buckets: Buckets, upper: int, group: Where | None
) -> dict[tuple[int, Any], int]:
    """Weekly/monthly actives of a daily series: each day's actors once, windows slid in Python."""
    first = buckets.starts[0]
    before = [
        (to_micros(add_intervals(first, "day", -days)), to_micros(add_intervals(first, "day", 1 - days)))
        for days in range(plan.active_days - 1, 0, -1)
    ]
    spans = before + [(low, min(high, upper + 1)) for low, high in zip(buckets.edges, buckets.edges[1:], strict=False)]
    return active_in_windows(
        ctx.conn,
        project_id=ctx.project_id,
        day_spans=spans,
        window=plan.active_days,
        where=where,
        actor=plan.distinct_actor or "e.person_id",
        group=group,
    )


def _entity_series(ctx: _Context, entity: Entity, date_range: DateRange, buckets: Buckets) -> list[RawSeries]:
    filter = ctx.filter
    where = _and(entity_condition(ctx.compiler, entity, f"{entity.type}__{entity.index}"), ctx.global_where)
    plan = plan_math(entity, filter, ctx.compiler.dialect)
    spans, lower, upper = _spans(ctx, date_range, buckets, plan)
    width = 1 if filter.is_aggregate else len(buckets)
    cumulative_distinct = (
        filter.display == CUMULATIVE_DISPLAY and (entity.math or "total") in _DISTINCT_MATHS and not filter.is_aggregate
    )

    daily_active = plan.active_days and filter.interval == "day" and not filter.is_aggregate

    def run(condition: Where, group: Where | None) -> dict[tuple[int, Any], float]:
        if daily_active:
            return _active_by_day(ctx, condition, plan, buckets, upper, group)  # type: ignore[return-value]
        if cumulative_distinct:
            return _cumulative_distinct(ctx, condition, plan, buckets, lower, upper, group)
        return aggregate_spans(
            ctx.conn, project_id=ctx.project_id, spans=spans, where=condition, plan=plan, group=group
        )

    def vector(values: dict[tuple[int, Any], float], key: Any) -> list[float]:
        return [values.get((index, key)) or 0 for index in range(width)]

    if not filter.uses_breakdown:
        return [RawSeries(entity=entity, data=vector(run(where, None), None), numeric=plan.numeric)]
    if filter.breakdown_type == "cohort":
        series = []
        for split in cohort_splits(ctx.conn, ctx.compiler, filter):
            values = run(_and(where, split.condition), None)
            series.append(
                RawSeries(
                    entity=entity,
                    data=vector(values, None),
                    numeric=plan.numeric,
                    breakdown_value=split.value,
                    breakdown_label=split.label,
                )
            )
        return series
    expression = breakdown_expression(filter, ctx.compiler)
    single_pass = plan.per is None and not plan.active_days and not cumulative_distinct
    if single_pass:
        shaped = _breakdown_in_one_pass(ctx, entity, plan, spans, where, expression, width)
        if shaped is not None:
            return shaped
    ranked = rank_values(
        ctx.conn,
        project_id=ctx.project_id,
        lower=lower,
        upper=upper,
        where=where,
        expression=expression,
        count=ctx.offset + filter.breakdown_limit + 1,
    )
    page = page_of(ranked, expression, limit=filter.breakdown_limit, offset=ctx.offset)
    values = run(where, page.group)
    return _broken_down(entity, plan, page, lambda key: vector(values, key))


def _broken_down(
    entity: Entity, plan: MathPlan, page: BreakdownPage, vector: Callable[[Any], list[float]]
) -> list[RawSeries]:
    keys = [*page.values, *([OTHER] if page.has_more else [])]
    return [
        RawSeries(entity=entity, data=vector(key), numeric=plan.numeric, breakdown_value=key, has_more=page.has_more)
        for key in keys
    ]


def _breakdown_in_one_pass(
    ctx: _Context,
    entity: Entity,
    plan: MathPlan,
    spans: list[tuple[int, int]],
    where: Where,
    expression: Where,
    width: int,
) -> list[RawSeries] | None:
    """One grouped query by (bucket, value) that also counts events, so the values are ranked without a
    second pass; Other is summed in Python for counts and queried for other maths. None when there are too
    many distinct values to rank here."""
    value_sql, value_params = expression
    found = aggregate_counted(
        ctx.conn,
        project_id=ctx.project_id,
        spans=spans,
        where=where,
        plan=plan,
        group=(f"coalesce({value_sql}, ?)", [*value_params, NULL]),
        max_rows=MAX_RANKED_GROUPS,
        events=event_names(ctx.conn, ctx.project_id, [(entity.type, entity.id)]),
    )
    if found is None:
        return None
    counts: dict[str, int] = {}
    for (_, key), (_, events) in found.items():
        counts[key] = counts.get(key, 0) + events
    limit = ctx.filter.breakdown_limit
    page = page_of(rank_counted(counts), expression, limit=limit, offset=ctx.offset)
    shown = set(page.values) | set(page.earlier)
    others: dict[tuple[int, Any], float] = {}
    if page.has_more and plan.outer == "count(*)":
        for (index, key), (value, _) in found.items():
            if key not in shown:
                others[(index, OTHER)] = others.get((index, OTHER), 0) + (value or 0)
    elif page.has_more:
        others = {
            key: value
            for key, value in aggregate_spans(
                ctx.conn, project_id=ctx.project_id, spans=spans, where=where, plan=plan, group=page.group
            ).items()
            if key[1] == OTHER
        }

    def vector(key: Any) -> list[float]:
        if key == OTHER:
            return [others.get((index, OTHER)) or 0 for index in range(width)]
        return [(found.get((index, key)) or (0, 0))[0] or 0 for index in range(width)]

    return _broken_down(entity, plan, page, vector)


def _series_together(
    ctx: _Context, entity: Entity, ranges: list[DateRange], buckets: list[Buckets]
) -> list[list[RawSeries]] | None:
    """The series of ``entity`` in each of ``ranges`` from one statement over the spans of them all, when it is
    a plain aggregate per span (no breakdown, active-users windows by day nor first-seen counting); None
    otherwise. A compared trend so pays once for what a statement does before reading its events, such as
    finding the persons a test-account filter keeps (most of the time of the demo's compared trend)."""
    filter = ctx.filter
    plan = plan_math(entity, filter, ctx.compiler.dialect)
    daily_active = plan.active_days and filter.interval == "day" and not filter.is_aggregate
    cumulative_distinct = (
        filter.display == CUMULATIVE_DISPLAY and (entity.math or "total") in _DISTINCT_MATHS and not filter.is_aggregate
    )
    if filter.uses_breakdown or daily_active or cumulative_distinct:
        return None
    where = _and(entity_condition(ctx.compiler, entity, f"{entity.type}__{entity.index}"), ctx.global_where)
    spans_of = [_spans(ctx, date_range, period, plan)[0] for date_range, period in zip(ranges, buckets, strict=True)]
    # the earlier period's spans first: spans in time order are the ones a store reads fastest
    first: dict[int, int] = {}
    every: list[tuple[int, int]] = []
    for number in sorted(range(len(ranges)), key=lambda number: spans_of[number][:1]):
        first[number] = len(every)
        every.extend(spans_of[number])
    values = aggregate_spans(ctx.conn, project_id=ctx.project_id, spans=every, where=where, plan=plan)
    together = []
    for number, period in enumerate(buckets):
        width = 1 if filter.is_aggregate else len(period)
        data = [values.get((first[number] + index, None)) or 0 for index in range(width)]
        together.append([RawSeries(entity=entity, data=data, numeric=plan.numeric)])
    return together


def _periods(ctx: _Context, entities: list[Entity], ranges: list[DateRange]) -> list[tuple[list[RawSeries], Buckets]]:
    """Each of ``ranges``' series (entity by entity) and buckets; an entity `_series_together` can count is asked
    once for them all."""
    buckets = [make_buckets(date_range) for date_range in ranges]
    raws: list[list[RawSeries]] = [[] for _ in ranges]
    for entity in entities:
        together = _series_together(ctx, entity, ranges, buckets) if len(ranges) > 1 else None
        if together is None:
            together = [
                _entity_series(ctx, entity, date_range, period)
                for date_range, period in zip(ranges, buckets, strict=True)
            ]
        for raw, series in zip(raws, together, strict=True):
            raw.extend(series)
    return list(zip(raws, buckets, strict=True))


def compute_trends(
    conn: sqlite3.Connection,
    project: dict[str, Any],
    filter: TrendsFilter,
    now: datetime,
    *,
    offset: int = 0,
    people_link: PeopleLink | None = None,
) -> TrendsResult:
    """The series of a trend (``result``), whether more breakdown values follow, and the resolved range; with
    ``people_link``, each series' points link to their people (:mod:`.actors`)."""
    project_id = int(project["id"])
    offset = max(0, min(int(offset), MAX_OFFSET))
    date_range = resolve_trends_range(conn, project, filter, now)
    compiler = compiler_for(conn, project)
    entities = filter.entities
    labels = entity_labels(conn, project_id, entities)
    if labels is None:
        # PostHog answers a trend over a deleted or unknown action with no series at all
        return TrendsResult(series=[], has_more=False, date_range=date_range)
    ctx = _Context(
        conn=conn,
        project_id=project_id,
        filter=filter,
        compiler=compiler,
        global_where=global_condition(compiler, filter, project),
        offset=offset,
    )
    ranges = [date_range, previous_range(filter, date_range)] if filter.compare else [date_range]
    computed = _periods(ctx, entities, ranges)
    raw, buckets = computed[0]
    has_more = any(series.has_more for series in raw)

    def links(period: DateRange) -> SeriesLinks | None:
        return None if people_link is None else point_links(filter, period, people_link, offset=offset)

    if not filter.compare:
        series = shape_period(filter, raw, buckets, labels, compare_label=None, links=links(date_range))
        return TrendsResult(series=series, has_more=has_more, date_range=date_range)
    previous = ranges[1]
    previous_raw, previous_buckets = computed[1]
    series = shape_period(filter, raw, buckets, labels, compare_label="current", links=links(date_range))
    series += shape_period(
        filter, previous_raw, previous_buckets, labels, compare_label="previous", links=links(previous)
    )
    return TrendsResult(series=series, has_more=has_more, date_range=date_range)


def trends_payload(
    conn: sqlite3.Connection,
    project: dict[str, Any],
    data: dict[str, Any],
    now: datetime,
    people_link: PeopleLink | None = None,
) -> dict[str, Any]:
    """``{"result", "timezone"}`` for a legacy trends filter given as a dict (a saved insight's ``filters``)."""
    filter = parse_filter(TrendsFilter, data)
    result = compute_trends(conn, project, filter, now, people_link=people_link)
    return {"result": result.series, "timezone": project.get("timezone") or "UTC"}
