"""The trend numbers, asked of the event store: an aggregate per (time span, breakdown value).

Spans are ``[low, high)`` ranges of stored microseconds (the zero-filled buckets, widened backwards for
weekly/monthly active users, or one span for the aggregated displays), so every calendar rule (time zones,
DST, week starts, months) stays in Python where the spans are made. The statements themselves belong to the
store (:mod:`local_backend.store.engine.sqlite.event_store`); this module turns a :class:`~.math.MathPlan`
into the store's :class:`~local_backend.store.engine.interface.Measure` and slides the active-users windows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...store.engine.choice import event_store
from ...store.engine.interface import ActiveActors, FirstSeen, Measure, SpanAggregate
from .math import MathPlan
from .windows import active_counts

__all__ = ["aggregate_spans", "aggregate_counted", "active_in_windows", "first_seen", "measure_of", "Where"]

Where = tuple[str, list[Any]]


def measure_of(plan: MathPlan) -> Measure:
    """What the store aggregates for ``plan``."""
    return Measure(
        aggregate=plan.outer,
        value=(plan.value_sql, list(plan.value_params)),
        per=plan.per,
        per_value=plan.inner_sql,
        session_durations=plan.needs_sessions,
    )


def aggregate_spans(
    conn: sqlite3.Connection,
    *,
    project_id: int,
    spans: Sequence[tuple[int, int]],
    where: Where,
    plan: MathPlan,
    group: Where | None = None,
) -> dict[tuple[int, Any], float]:
    """``{(span index, group value): aggregate}`` for the events matching ``where`` in each span."""
    request = SpanAggregate(project_id=project_id, spans=spans, where=where, measure=measure_of(plan), group=group)
    return event_store(conn).aggregate_spans(request)


def aggregate_counted(
    conn: sqlite3.Connection,
    *,
    project_id: int,
    spans: Sequence[tuple[int, int]],
    where: Where,
    plan: MathPlan,
    group: Where,
    max_rows: int,
    events: Sequence[str] | None = None,
) -> dict[tuple[int, Any], tuple[float, int]] | None:
    """``{(span, group value): (aggregate, events)}``, or None past ``max_rows`` groups (too many values to
    rank in Python). Only for plans without a per-actor or per-session step. ``events``: when known, every event
    name ``where`` can match."""
    assert plan.per is None
    measure = measure_of(plan)
    request = SpanAggregate(
        project_id=project_id, spans=spans, where=where, measure=measure, group=group, events=events
    )
    return event_store(conn).aggregate_counted(request, max_groups=max_rows)


def first_seen(
    conn: sqlite3.Connection,
    *,
    project_id: int,
    lower: int,
    upper: int,
    where: Where,
    actor: str,
    group: Where | None = None,
) -> list[tuple[Any, int]]:
    """``(group value, first timestamp)`` of each actor's first matching event in [lower, upper]."""
    request = FirstSeen(project_id=project_id, lower=lower, upper=upper, where=where, actor=actor, group=group)
    return [(value, first) for value, _, first in event_store(conn).first_seen(request)]


def active_in_windows(
    conn: sqlite3.Connection,
    *,
    project_id: int,
    day_spans: Sequence[tuple[int, int]],
    window: int,
    where: Where,
    actor: str,
    group: Where | None = None,
) -> dict[tuple[int, Any], int]:
    """Distinct actors over ``window`` consecutive spans ending with each span from the ``window``-th on.

    One pass collects who was active in each day (the store's distinct (span, group, actor) triples); the
    windows slide over those sets in numpy (:func:`.windows.active_counts`), so a 30-day monthly-active series
    reads each event once instead of 30 times. Result keys are ``(index - window + 1, group value)``.
    """
    request = ActiveActors(project_id=project_id, spans=day_spans, where=where, actor=actor, group=group)
    found: dict[Any, tuple[list[int], list[Any]]] = {}
    for index, value, who in event_store(conn).active_actors(request):
        pairs = found.get(value)
        if pairs is None:
            pairs = found[value] = ([], [])
        pairs[0].append(index)
        pairs[1].append(who)
    counts: dict[tuple[int, Any], int] = {}
    for value, (days, actors) in found.items():
        codes: dict[Any, int] = {}
        coded = np.fromiter((codes.setdefault(who, len(codes)) for who in actors), dtype=np.int64, count=len(actors))
        active = active_counts(np.array(days, dtype=np.int64), coded, len(day_spans), window)
        for index, count in enumerate(active.tolist()):
            if index >= window - 1 and count:
                counts[(index - window + 1, value)] = count
    return counts
