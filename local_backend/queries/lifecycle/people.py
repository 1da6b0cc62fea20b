"""Who is behind one number of a lifecycle: the actors of one status in one interval.

Each of the four series carries ``persons_urls`` (:mod:`.links`); :func:`lifecycle_people` answers one from the
very statuses the counts are made of (:func:`.compute.lifecycle_actors`); an interval outside the range or an
unknown status is a 400 naming the field. A dormant count is negative; its people are as many as it says.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

from ...errors import ValidationError
from ..dates import parse_date, truncate
from .compute import lifecycle_actors
from .engine import STATUSES
from .filter import LifecycleFilter

__all__ = ["lifecycle_people"]


def lifecycle_people(
    conn: sqlite3.Connection,
    project: dict[str, Any],
    filter: LifecycleFilter,
    now: datetime,
    *,
    target_date: str,
    lifecycle_type: str,
) -> list[Any]:
    """The actors (person ids, or group keys with ``aggregation_group_type_index``) of ``lifecycle_type`` in the
    interval starting ``target_date``, sorted."""
    if lifecycle_type not in STATUSES:
        raise ValidationError(f"lifecycle_type must be one of {', '.join(STATUSES)}.", attr="lifecycle_type")
    found = lifecycle_actors(conn, project, filter, now)
    if found.label is None:
        raise ValidationError("The series' action does not exist.", attr="entity_id")
    buckets = found.buckets
    tz = ZoneInfo(project.get("timezone") or "UTC")
    moment = parse_date(target_date, tz=tz, now=now, attr="target_date")
    start = truncate(moment, buckets.interval, found.date_range.week_start_day)
    if start not in buckets.starts:
        raise ValidationError(
            f"target_date must be one of the intervals shown, {buckets.days[0]} to {buckets.days[-1]}.",
            attr="target_date",
        )
    period = buckets.starts.index(start) + 1  # the rows' interval 0 is the one before the range
    rows = found.rows
    chosen = rows.actors[(rows.periods == period) & (rows.statuses == STATUSES.index(lifecycle_type))]
    actors = [found.keys[int(code)] for code in np.unique(chosen)]
    if filter.aggregation_group_type_index is not None:
        return sorted(actors, key=str)
    return sorted(int(actor) for actor in actors)
