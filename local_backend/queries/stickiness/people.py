"""Who is behind one bucket of a stickiness series: the actors active in exactly k intervals (k or more when
cumulative).

Each series carries ``persons_urls`` (:mod:`.links`); :func:`stickiness_people` answers one from the very
pairs the histogram is made of (:func:`.compute.stickiness_actors`, :func:`.engine.actors_in_bucket`); a
bucket, series or breakdown value the chart does not show is a 400 naming the field.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...errors import ValidationError
from .compute import ActorIntervals, stickiness_actors
from .engine import actors_in_bucket
from .filter import StickinessFilter

__all__ = ["StickinessPoint", "StickinessActors", "stickiness_people"]


@dataclass(frozen=True)
class StickinessPoint:
    """One bucket of one series: ``stickiness_days`` k, the series by ``entity_order`` (checked against
    ``entity_id`` when given), its ``breakdown_value`` when broken down, the breakdown page ``breakdown_offset``;
    ``compare`` the period of a compared filter (``current``, the default, or ``previous``)."""

    stickiness_days: int
    entity_order: int | None = None
    entity_id: str | None = None
    breakdown_value: str | None = None
    breakdown_offset: int = 0
    compare: str | None = None


@dataclass(frozen=True)
class StickinessActors:
    actors: list[Any]
    group_type_index: int | None


def _series_of(
    filter: StickinessFilter, found: dict[int, list[ActorIntervals]], point: StickinessPoint
) -> ActorIntervals:
    entities = filter.entities
    order = point.entity_order if point.entity_order is not None else 0
    if not 0 <= order < len(entities):
        raise ValidationError(
            f"entity_order must name one of the filter's {len(entities)} series (0..{len(entities) - 1}).",
            attr="entity_order",
        )
    entity = entities[order]
    if point.entity_id not in (None, "") and str(point.entity_id) != str(entity.id):
        raise ValidationError(f"Series {order} is not {point.entity_id}.", attr="entity_id")
    items = found.get(entity.index, [])
    if filter.breakdown is None:
        if point.breakdown_value not in (None, ""):
            raise ValidationError("This series is not broken down: leave breakdown_value out.", attr="breakdown_value")
        return items[0]
    for item in items:
        if str(item.breakdown_value) == str(point.breakdown_value):
            return item
    shown = ", ".join(str(item.breakdown_value) for item in items) or "none"
    raise ValidationError(
        f"No breakdown value {point.breakdown_value} in this series; its values are: {shown}.", attr="breakdown_value"
    )


def stickiness_people(
    conn: sqlite3.Connection, project: dict[str, Any], filter: StickinessFilter, now: datetime, point: StickinessPoint
) -> StickinessActors:
    """The actors of one bucket (module docstring), person ids or group keys sorted."""
    period = point.compare or "current"
    if period not in ("current", "previous") or (period == "previous" and not filter.compare):
        raise ValidationError(
            "compare names the current period, or the previous one of a compared filter.", attr="compare"
        )
    periods, labels, _ = stickiness_actors(conn, project, filter, now, offset=point.breakdown_offset)
    if labels is None:
        raise ValidationError("The series' action does not exist.", attr="entity_id")
    item = _series_of(filter, periods[period], point)
    if not 1 <= point.stickiness_days <= item.total:
        raise ValidationError(
            f"stickiness_days must be one of the series' buckets, 1..{item.total}.", attr="stickiness_days"
        )
    actors = actors_in_bucket(item.pairs, point.stickiness_days, cumulative=filter.cumulative)
    entity = item.entity
    group_type = (
        int(entity.math_group_type_index or 0) if entity.math == "unique_group" else filter.aggregation_group_type_index
    )
    ordered = sorted(actors, key=str) if group_type is not None else sorted(int(actor) for actor in actors)
    return StickinessActors(actors=ordered, group_type_index=group_type)
