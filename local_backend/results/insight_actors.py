"""The answer to ``/query/``'s ``ActorsQuery`` over an ``InsightActorsQuery``: the people behind one number of a
trend, stickiness, lifecycle, paths or retention query.

The same people the legacy lists give (``persons/trends/``, ``persons/stickiness/``, ``persons/lifecycle/``,
``persons/paths/``, ``persons/retention/``), the point named as PostHog's ``InsightActorsQuery`` names it:
``day`` (a trend's or lifecycle's interval start as ``days`` shows it, a stickiness bucket's number), ``series``
(the series' position), ``breakdown``, ``compare`` (current or previous), ``status`` (lifecycle), for paths
``pathsFilter``'s ``pathStartKey``, ``pathEndKey``, ``pathDropoffKey``, and for retention ``interval`` (the
cohort's row, from 0) with ``breakdown`` (the value, or a list of one value, as PostHog sends it). One page of
them as rows of one ``actor`` column, in the ``ActorsQueryResponse`` shape.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from ..errors import ValidationError
from ..queries.base_filter import filter_date_range
from ..queries.filter_parsing import parse_filter
from ..queries.lifecycle import LifecycleFilter, lifecycle_people
from ..queries.paths import PathFilter, path_people
from ..queries.people_links import pinned_dates
from ..queries.retention import RetentionFilter, compute_retention_people
from ..queries.stickiness import StickinessFilter, StickinessPoint, stickiness_people
from ..queries.trends import TrendPoint, TrendsFilter, point_on_day, trend_actors
from ..queries.trends.compare import previous_range
from ..queries.unsupported_fields import refuse_unsupported_fields
from .actor_nodes import InsightActorsNode
from .actor_rows import actors_query_page

__all__ = ["insight_actors_response"]


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _trend(
    conn: sqlite3.Connection, project: dict[str, Any], node: InsightActorsNode, now: datetime
) -> tuple[list[Any], int | None]:
    filter = parse_filter(TrendsFilter, node.legacy)
    period = filter_date_range(conn, project, filter, now)
    if node.compare == "previous":
        if not filter.compare:
            raise ValidationError("compare previous needs a compared query.", attr="query__source__compare")
        period = previous_range(filter, period)
    tz = ZoneInfo(project.get("timezone") or "UTC")
    start, end = point_on_day(filter, period, node.day, tz, now)
    legacy = {key: value for key, value in node.legacy.items() if key not in ("compare", "compare_to")}
    point_filter = parse_filter(TrendsFilter, {**legacy, **pinned_dates(start, end)})
    point = TrendPoint(
        entity_order=node.series, breakdown_value=_text(node.breakdown), series_range=(period.lower, period.date_to)
    )
    found = trend_actors(conn, project, point_filter, now, point)
    return found.actors, found.group_type_index


def _stickiness(
    conn: sqlite3.Connection, project: dict[str, Any], node: InsightActorsNode, now: datetime
) -> tuple[list[Any], int | None]:
    filter = parse_filter(StickinessFilter, node.legacy)
    if isinstance(node.day, bool) or not isinstance(node.day, int):
        raise ValidationError("day names the bucket: an integer from 1.", attr="query__source__day")
    point = StickinessPoint(
        stickiness_days=node.day, entity_order=node.series, breakdown_value=_text(node.breakdown), compare=node.compare
    )
    found = stickiness_people(conn, project, filter, now, point)
    return found.actors, found.group_type_index


def _lifecycle(
    conn: sqlite3.Connection, project: dict[str, Any], node: InsightActorsNode, now: datetime
) -> tuple[list[Any], int | None]:
    filter = parse_filter(LifecycleFilter, node.legacy)
    if node.day in (None, "") or node.status in (None, ""):
        raise ValidationError("A lifecycle's people need day and status.", attr="query__source__status")
    actors = lifecycle_people(conn, project, filter, now, target_date=str(node.day), lifecycle_type=str(node.status))
    return actors, filter.aggregation_group_type_index


def _paths(
    conn: sqlite3.Connection, project: dict[str, Any], node: InsightActorsNode, now: datetime
) -> tuple[list[Any], int | None]:
    filter = parse_filter(PathFilter, node.legacy)
    keys = {name: (_text(value) or None) for name, value in node.path_keys.items()}
    return path_people(conn, project, filter, now, **keys), None


def _retention(
    conn: sqlite3.Connection, project: dict[str, Any], node: InsightActorsNode, now: datetime
) -> tuple[list[Any], int | None]:
    filter = parse_filter(RetentionFilter, node.legacy)
    cohort = int(node.interval or 0)
    if cohort >= filter.total_intervals:
        raise ValidationError(
            f"interval is at most {filter.total_intervals - 1}: the query has {filter.total_intervals} cohorts.",
            attr="query__source__interval",
        )
    breakdown = node.breakdown
    if isinstance(breakdown, list):
        if len(breakdown) != 1:
            raise ValidationError(
                "breakdown names one value of a one-property breakdown.", attr="query__source__breakdown"
            )
        breakdown = breakdown[0]
    people = compute_retention_people(conn, project, filter, now, cohort, None, _text(breakdown))
    return [person_id for person_id, _ in people], None


_KINDS = {
    "TRENDS": _trend,
    "STICKINESS": _stickiness,
    "LIFECYCLE": _lifecycle,
    "PATHS": _paths,
    "RETENTION": _retention,
}


def insight_actors_response(
    conn: sqlite3.Connection, project: dict[str, Any], node: InsightActorsNode, now: datetime
) -> dict[str, Any]:
    """One page of the persons (or groups) behind ``node``'s number, with whether more follow."""
    refuse_unsupported_fields(node.kind, node.legacy)
    actors, group_type = _KINDS[node.kind](conn, project, node, now)
    return actors_query_page(
        conn, project, actors, group_type, limit=node.limit, offset=node.offset, columns=node.columns
    )
