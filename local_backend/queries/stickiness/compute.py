"""Stickiness from stored events: for each series, how many actors were active in 1, 2, ... N intervals.

Reading order: :func:`compute_stickiness` resolves the range and its calendar intervals as trends do
(:mod:`..dates`, :mod:`..buckets`: hour, day, week from the project's week start, month, in the project
timezone; N is the number of intervals the range touches), compiles each series and the global filters
(:mod:`..base_filter`), asks the event store in how many intervals each actor counted
(:meth:`~local_backend.store.engine.interface.EventStore.active_intervals`, with the stickiness criterion), and
buckets those numbers (:mod:`.engine`). A breakdown splits each series as a trend's does (:mod:`..breakdowns`:
values ranked by event count, the top ``breakdown_limit`` with the null bucket, the rest as Other); an actor
counts in a value's series with the intervals in which it did that value's events. ``compare`` adds each
series' previous period (:func:`..trends.compare.previous_range`) right after it, as PostHog does.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from ...store.engine.choice import event_store
from ...store.engine.interface import ActiveIntervals, IntervalColumns
from ...store.event_rows import to_micros
from ..base_filter import Entity, compiler_for, entity_condition, entity_labels, filter_date_range, global_condition
from ..breakdowns import MAX_OFFSET, OTHER, breakdown_expression, cohort_splits, page_of, rank_values
from ..buckets import make_buckets
from ..dates import DateRange
from ..filter_parsing import parse_filter
from ..people_links import PeopleLink
from ..properties import PropertyCompiler
from ..trends.compare import previous_range
from ..trends.math import actor_column
from .filter import StickinessFilter
from .links import bucket_links
from .series import shape_series

__all__ = ["StickinessResult", "ActorIntervals", "compute_stickiness", "stickiness_actors", "stickiness_payload"]

Where = tuple[str, list[Any]]


@dataclass(frozen=True)
class StickinessResult:
    series: list[dict[str, Any]]
    has_more: bool
    date_range: DateRange


@dataclass
class ActorIntervals:
    """One series' actors and their numbers of active intervals (of ``total``), for one breakdown value."""

    entity: Entity
    total: int
    actors: list[Any] = field(default_factory=list)
    intervals: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    breakdown_value: Any = None
    breakdown_label: str | None = None
    has_more: bool = False

    @property
    def pairs(self) -> list[tuple[Any, int]]:
        """``(actor, number of active intervals)`` of each actor."""
        return list(zip(self.actors, self.intervals.tolist(), strict=True))


def _and(first: Where, second: Where) -> Where:
    if first[0] == "1":
        return second
    if second[0] == "1":
        return first
    return f"({first[0]} AND {second[0]})", [*first[1], *second[1]]


@dataclass
class _Context:
    conn: sqlite3.Connection
    project_id: int
    filter: StickinessFilter
    compiler: PropertyCompiler
    global_where: Where
    offset: int


def _group_type(entity: Entity, filter: StickinessFilter) -> int | None:
    """The group type whose keys are the actors (None: persons)."""
    if entity.math == "unique_group":
        return int(entity.math_group_type_index or 0)
    return filter.aggregation_group_type_index


def _entity_intervals(ctx: _Context, entity: Entity, date_range: DateRange) -> list[ActorIntervals]:
    filter = ctx.filter
    buckets = make_buckets(date_range)
    lower, upper = to_micros(date_range.lower), to_micros(date_range.date_to)
    spans = buckets.spans(lower, upper)
    where = _and(entity_condition(ctx.compiler, entity, f"{entity.type}__{entity.index}"), ctx.global_where)
    criteria = filter.stickiness_criteria
    store = event_store(ctx.conn)

    def run(condition: Where, group: Where | None) -> dict[Any, tuple[list[Any], np.ndarray]]:
        """Each group value's actors and their numbers of intervals."""
        request = ActiveIntervals(
            project_id=ctx.project_id,
            spans=spans,
            where=condition,
            actor=actor_column(entity, filter),
            group=group,
            operator=criteria.operator if criteria else "gte",
            value=criteria.value if criteria else 1,
        )
        triples = store.active_intervals(request)
        if not triples:
            return {}
        if isinstance(triples, IntervalColumns) and triples.groups is None:  # one series, as columns already
            return {None: (triples.actors.tolist(), triples.intervals)}
        found: dict[Any, tuple[list[Any], list[int]]] = {}
        for value, actor, intervals in triples:
            actors, counts = found.setdefault(value, ([], []))
            actors.append(actor)
            counts.append(intervals)
        return {value: (actors, np.array(counts, dtype=np.int64)) for value, (actors, counts) in found.items()}

    def one(
        values: dict[Any, tuple[list[Any], np.ndarray]], key: Any, *, breakdown_value: Any = None, **extra: Any
    ) -> ActorIntervals:
        """The series of group value ``key`` (shown as ``breakdown_value`` when given, else ``key``)."""
        label = extra.pop("label", None)
        actors, intervals = values.get(key, ([], np.zeros(0, dtype=np.int64)))
        return ActorIntervals(
            entity=entity,
            total=len(buckets),
            actors=actors,
            intervals=intervals,
            breakdown_value=key if breakdown_value is None else breakdown_value,
            breakdown_label=label,
            **extra,
        )

    if filter.breakdown is None:
        return [one(run(where, None), None)]
    if filter.breakdown_type == "cohort":
        return [
            one(run(_and(where, split.condition), None), None, breakdown_value=split.value, label=split.label)
            for split in cohort_splits(ctx.conn, ctx.compiler, filter)
        ]
    expression = breakdown_expression(filter, ctx.compiler)
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
    found = run(where, page.group)
    keys = [*page.values, *([OTHER] if page.has_more else [])]
    return [one(found, key, has_more=page.has_more) for key in keys]


def _period(ctx: _Context, date_range: DateRange) -> dict[int, list[ActorIntervals]]:
    return {entity.index: _entity_intervals(ctx, entity, date_range) for entity in ctx.filter.entities}


def stickiness_actors(
    conn: sqlite3.Connection, project: dict[str, Any], filter: StickinessFilter, now: datetime, *, offset: int = 0
) -> tuple[dict[str, dict[int, list[ActorIntervals]]], dict[int, str] | None, DateRange]:
    """Each period's (``current``, and ``previous`` when compared) actors and intervals per entity index, the
    entities' labels (None when an action does not exist), and the current range."""
    project_id = int(project["id"])
    date_range = filter_date_range(conn, project, filter, now)
    compiler = compiler_for(conn, project)
    labels = entity_labels(conn, project_id, filter.entities)
    if labels is None:
        return {}, None, date_range
    ctx = _Context(
        conn=conn,
        project_id=project_id,
        filter=filter,
        compiler=compiler,
        global_where=global_condition(compiler, filter, project),
        offset=max(0, min(int(offset), MAX_OFFSET)),
    )
    periods = {"current": _period(ctx, date_range)}
    if filter.compare:
        periods["previous"] = _period(ctx, previous_range(filter, date_range))
    return periods, labels, date_range


def compute_stickiness(
    conn: sqlite3.Connection,
    project: dict[str, Any],
    filter: StickinessFilter,
    now: datetime,
    *,
    offset: int = 0,
    people_link: PeopleLink | None = None,
) -> StickinessResult:
    """The series of a stickiness insight (``result``), whether more breakdown values follow, and the range;
    with ``people_link``, each bucket links to its people (:mod:`.people`)."""
    periods, labels, date_range = stickiness_actors(conn, project, filter, now, offset=offset)
    if labels is None:
        # as trends: a series over a deleted or unknown action answers no series at all
        return StickinessResult(series=[], has_more=False, date_range=date_range)
    ranges = {"current": date_range}
    if filter.compare:
        ranges["previous"] = previous_range(filter, date_range)
    shaped: list[dict[str, Any]] = []
    has_more = False
    for entity in filter.entities:
        for period, by_entity in periods.items():
            raw = by_entity[entity.index]
            has_more = has_more or any(item.has_more for item in raw)
            compare_label = period if filter.compare else None
            links = None if people_link is None else bucket_links(filter, ranges[period], people_link, offset=offset)
            shaped.extend(shape_series(filter, raw, labels, compare_label=compare_label, links=links))
    return StickinessResult(series=shaped, has_more=has_more, date_range=date_range)


def stickiness_payload(
    conn: sqlite3.Connection,
    project: dict[str, Any],
    data: dict[str, Any],
    now: datetime,
    people_link: PeopleLink | None = None,
) -> dict[str, Any]:
    """``{"result", "timezone"}`` for a legacy stickiness filter given as a dict (a saved insight's ``filters``)."""
    filter = parse_filter(StickinessFilter, data)
    result = compute_stickiness(conn, project, filter, now, people_link=people_link)
    return {"result": result.series, "timezone": project.get("timezone") or "UTC"}
