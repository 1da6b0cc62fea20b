"""The one SQL shape every trend number comes from: an aggregate per (time span, breakdown value).

Spans are ``[low, high)`` ranges of stored microseconds (the zero-filled buckets, widened backwards for
weekly/monthly active users, or one span for the aggregated displays). They are joined to the events as a
small ``VALUES`` table, so SQLite walks the ``(project_id, event, timestamp, person_id)`` index once per span
and every calendar rule (time zones, DST, week starts, months) stays in Python where the spans are made.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from .math import MathPlan

__all__ = ["aggregate_spans", "aggregate_counted", "active_in_windows", "first_seen", "Where"]

Where = tuple[str, list[Any]]
_SESSIONS = (
    "sd(session_id, duration) AS MATERIALIZED (SELECT session_id, (max(timestamp) - min(timestamp)) / 1000000.0"
    " FROM events WHERE project_id = ? AND session_id IS NOT NULL AND session_id != '' GROUP BY session_id)"
)


def _spans_table(spans: Sequence[tuple[int, int]]) -> str:
    # integers made here, never user text: inlined so that a long range does not run out of parameters
    rows = ", ".join(f"({index}, {int(low)}, {int(high)})" for index, (low, high) in enumerate(spans))
    return f"b(i, lo, hi) AS (VALUES {rows})"


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
    if not spans:
        return {}
    sql, params = _aggregate_sql(project_id=project_id, spans=spans, where=where, plan=plan, group=group)
    return {(row[0], row[1]): row[2] for row in conn.execute(sql, params)}


def aggregate_counted(
    conn: sqlite3.Connection,
    *,
    project_id: int,
    spans: Sequence[tuple[int, int]],
    where: Where,
    plan: MathPlan,
    group: Where,
    max_rows: int,
) -> dict[tuple[int, Any], tuple[float, int]] | None:
    """``{(span, group value): (aggregate, events)}``, or None past ``max_rows`` groups (too many values to
    rank in Python). Only for plans without a per-actor or per-session step."""
    assert plan.per is None
    # per span, the values and their aggregates as one JSON object: each span's rows are grouped on their
    # own (small sorts) instead of one sort of every matching row
    where_sql, where_params = where
    group_sql, group_params = group
    sql = (
        f"WITH {_spans_table(spans)} SELECT b.i, (SELECT json_group_object(g, json_array(a, n)) FROM"
        f" (SELECT {group_sql} AS g, {plan.aggregate(plan.value_sql)} AS a, count(*) AS n FROM events e"
        f" WHERE e.project_id = ? AND e.timestamp >= b.lo AND e.timestamp < b.hi AND {where_sql} GROUP BY 1))"
        " FROM b"
    )
    params = [*group_params, *plan.value_params, project_id, *where_params]
    found: dict[tuple[int, Any], tuple[float, int]] = {}
    for index, packed in conn.execute(sql, params):
        if not packed:
            continue
        for value, (aggregate, events) in json.loads(packed).items():
            found[(index, value)] = (aggregate, events)
        if len(found) > max_rows:
            return None
    return found


def _aggregate_sql(
    *,
    project_id: int,
    spans: Sequence[tuple[int, int]],
    where: Where,
    plan: MathPlan,
    group: Where | None,
) -> tuple[str, list[Any]]:
    where_sql, where_params = where
    group_sql, group_params = group if group is not None else ("NULL", [])
    ctes = [_spans_table(spans)]
    params: list[Any] = []
    joins = ""
    if plan.needs_sessions:
        ctes.append(_SESSIONS)
        params.append(project_id)
        joins = " JOIN sd ON sd.session_id = e.session_id"
    source = (
        f" FROM b JOIN events e ON e.project_id = ? AND e.timestamp >= b.lo AND e.timestamp < b.hi{joins}"
        f" WHERE {where_sql}"
    )
    if plan.per is None and group is None:
        # one correlated aggregate per span: each span's index range is read in order and nothing is sorted,
        # where a join grouped by span sorts every matching row (4x slower for a 30-day total)
        select = (
            f"SELECT b.i, NULL, (SELECT {plan.aggregate(plan.value_sql)} FROM events e{joins}"
            f" WHERE e.project_id = ? AND e.timestamp >= b.lo AND e.timestamp < b.hi AND {where_sql}) FROM b"
        )
        params += [*plan.value_params, project_id, *where_params]
    elif plan.per is None:
        select = f"SELECT b.i, {group_sql}, {plan.aggregate(plan.value_sql)}{source} GROUP BY 1, 2"
        params += [*group_params, *plan.value_params, project_id, *where_params]
    else:
        inner = (
            f"SELECT b.i AS i, {group_sql} AS g, {plan.per} AS per, {plan.inner_sql} AS v{source}"
            f" AND {plan.per} IS NOT NULL GROUP BY 1, 2, 3"
        )
        select = f"SELECT i, g, {plan.aggregate('v')} FROM ({inner}) GROUP BY 1, 2"
        params += [*group_params, project_id, *where_params]
    return "WITH " + ", ".join(ctes) + " " + select, params


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
    where_sql, where_params = where
    group_sql, group_params = group if group is not None else ("NULL", [])
    sql = (
        f"SELECT {group_sql}, {actor}, min(e.timestamp) FROM events e WHERE e.project_id = ?"
        f" AND e.timestamp >= ? AND e.timestamp <= ? AND {where_sql} AND {actor} IS NOT NULL GROUP BY 1, 2"
    )
    rows = conn.execute(sql, [*group_params, project_id, lower, upper, *where_params])
    return [(row[0], row[2]) for row in rows]


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

    One pass collects who was active in each day (``SELECT DISTINCT`` span, group, actor); the windows slide
    over those sets in Python, so a 30-day monthly-active series reads each event once instead of 30 times.
    Result keys are ``(index - window + 1, group value)``.
    """
    where_sql, where_params = where
    group_sql, group_params = group if group is not None else ("NULL", [])
    sql = (
        f"WITH {_spans_table(day_spans)} SELECT DISTINCT b.i, {group_sql}, {actor} FROM b JOIN events e"
        f" ON e.project_id = ? AND e.timestamp >= b.lo AND e.timestamp < b.hi WHERE {where_sql}"
        f" AND {actor} IS NOT NULL"
    )
    days: dict[Any, list[list[Any]]] = {}
    for index, value, who in conn.execute(sql, [*group_params, project_id, *where_params]):
        days.setdefault(value, [[] for _ in day_spans])[index].append(who)
    counts: dict[tuple[int, Any], int] = {}
    for value, actors_by_day in days.items():
        seen: dict[Any, int] = {}
        for index, actors in enumerate(actors_by_day):
            for who in actors:
                seen[who] = seen.get(who, 0) + 1
            leaving = index - window
            if leaving >= 0:
                for who in actors_by_day[leaving]:
                    seen[who] -= 1
                    if not seen[who]:
                        del seen[who]
            if index >= window - 1 and seen:
                counts[(index - window + 1, value)] = len(seen)
    return counts
