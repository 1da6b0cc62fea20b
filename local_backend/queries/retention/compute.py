"""Retention from stored events: cohorts by period, and who came back in each later period.

The range: ``date_to`` (default now) falls in the last cohort's period; there are ``total_intervals`` cohorts
ending with it, so the range runs from the start of the first cohort to the end of ``date_to``'s period.
Periods are calendar periods in the project timezone, weeks starting on the project's ``week_start_day``.

One scan of the range's events in person order (the event store's flagged rows) collects for each person
the periods in which they did the target event and the returning event; :mod:`.engine` turns those into
the triangle.
For first-time retention a person's cohort is the period of their first target event ever, which must lie
in the range. Broken down, the same scan reads each event's breakdown value and :mod:`.breakdown` makes one
triangle per value; the rows of every value follow one another, each carrying its ``breakdown_value``.

Entry points: :func:`compute_retention` (the result rows, each row and cell linking to its people through
the caller's :data:`PeopleLink`), :func:`compute_retention_people` (the people of one cohort or cell) and
:func:`retention_payload` (a saved insight's filter dict).
"""

from __future__ import annotations

import json
import sqlite3
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast
from zoneinfo import ZoneInfo

import numpy as np

from ...errors import ValidationError
from ...store.engine.choice import event_store
from ...store.engine.interface import FirstSeen, FlaggedRows, FlaggedScan
from ..actions import event_names
from ..analysis_inputs import (
    event_condition,
    format_local,
    global_condition,
    micros,
    parse_point,
    period_boundaries,
    truncate_period,
)
from ..base_filter import BaseFilter, compiler_for
from ..breakdowns import NULL, breakdown_expression, cohort_splits
from ..filter_parsing import parse_filter
from .breakdown import RetentionBucket, split_by_cohort
from .engine import FIRST_TIME, PersonActivity, compute_retention_counts
from .filter import RetentionFilter
from .pairs import pairs_triangle, retention_pairs, split_pairs_by_value

__all__ = [
    "PeopleLink",
    "RetentionRange",
    "RetentionCounts",
    "resolve_retention_range",
    "count_retention",
    "compute_retention",
    "compute_retention_people",
    "retention_rows",
    "retention_payload",
    "people_params",
]

# The URL of a people list from its query parameters; routes make it from their own path.
PeopleLink = Callable[[dict[str, Any]], str]


@dataclass(frozen=True)
class RetentionRange:
    """The cohorts' start instants (project timezone) and the end of the last one."""

    starts: list[datetime]
    end: datetime

    @property
    def boundaries_micros(self) -> list[int]:
        return [micros(moment) for moment in [*self.starts, self.end]]


@dataclass(frozen=True)
class RetentionCounts:
    """The triangle, or broken down (``buckets`` given) one triangle per breakdown value in the order shown."""

    range: RetentionRange
    counts: list[list[int]]
    members: list[list[list[int]]]
    buckets: list[RetentionBucket] | None = None

    def bucket(self, value: str | None) -> RetentionBucket:
        """The triangle of breakdown ``value`` as a people URL names it (its text), or the whole one for None."""
        if value is None:
            return RetentionBucket(None, self.counts, self.members)
        if self.buckets is None:
            raise ValidationError("breakdown_value names a value of a broken-down retention.", attr="breakdown_value")
        for bucket in self.buckets:
            if str(bucket.value) == value:
                return bucket
        shown = ", ".join(str(bucket.value) for bucket in self.buckets) or "none"
        raise ValidationError(
            f"No breakdown value {value} in this retention; its values are: {shown}.", attr="breakdown_value"
        )


def _week_start(project: dict[str, Any]) -> int:
    return 1 if project.get("week_start_day") == 1 else 0


def resolve_retention_range(filter: RetentionFilter, project: dict[str, Any], now: datetime) -> RetentionRange:
    tz = ZoneInfo(project.get("timezone") or "UTC")
    point = parse_point(filter.date_to, tz=tz, now=now, attr="date_to") if filter.date_to else now.astimezone(tz)
    last_start = truncate_period(point, filter.period, _week_start(project))
    bounds = period_boundaries(last_start, filter.period, filter.total_intervals)
    return RetentionRange(starts=bounds[:-1], end=bounds[-1])


@dataclass(frozen=True)
class _Scan:
    """The range's flagged rows, each row's period, and for first-time retention each person's first period."""

    rows: FlaggedRows
    periods: np.ndarray
    first: dict[int, int]


def _scan(conn: sqlite3.Connection, project: dict[str, Any], filter: RetentionFilter, bounds: list[int]) -> _Scan:
    target_sql, target_params = event_condition(
        conn,
        project,
        entity_type=filter.target_entity.type,
        entity_id=filter.target_entity.id,
        entity_properties=filter.target_entity.properties,
        attr="target_entity",
    )
    target, back = filter.target_entity, filter.returning
    returning_sql, returning_params = event_condition(
        conn, project, entity_type=back.type, entity_id=back.id, entity_properties=back.properties,
        attr="returning_entity",
    )  # fmt: skip
    where_sql, where_params = global_condition(project, filter.properties, filter.filter_test_accounts, conn=conn)
    store = event_store(conn)
    project_id = int(project["id"])
    where = (where_sql, where_params)
    first: dict[int, int] = {}
    if filter.retention_type == FIRST_TIME:
        # the first target event ever, so that someone who started before the range joins no cohort
        ever = FirstSeen(
            project_id=project_id,
            lower=bounds[0],
            upper=bounds[-1] - 1,
            where=_and((target_sql, target_params), where),
            actor="e.person_id",
            ever=True,
        )
        first = {person_id: bisect_right(bounds, at) - 1 for _, person_id, at in store.first_seen(ever)}
    by_value = filter.breakdown is not None and filter.breakdown_type != "cohort"
    value = breakdown_expression(cast(BaseFilter, filter), compiler_for(conn, project)) if by_value else None
    scan = FlaggedScan(
        project_id=project_id,
        lower=bounds[0],
        upper=bounds[-1] - 1,
        where=where,
        flags=[(target_sql, target_params), (returning_sql, returning_params)],
        events=event_names(conn, project_id, [(target.type, target.id), (back.type, back.id)]),
        value=value,
    )
    rows = store.flagged_rows(scan)
    periods = np.searchsorted(np.array(bounds, dtype=np.int64), rows.timestamps, side="right") - 1
    return _Scan(rows=rows, periods=periods, first=first)


def _activities(
    conn: sqlite3.Connection, project: dict[str, Any], filter: RetentionFilter, bounds: list[int]
) -> Iterator[PersonActivity]:
    """Each person's activity, for a cohort breakdown (the other shapes are counted in numpy, :mod:`.pairs`)."""
    found = _scan(conn, project, filter, bounds)
    rows, periods, first = found.rows, found.periods, found.first
    members = _cohort_members(conn, project, filter)
    firsts = np.flatnonzero(np.diff(rows.actors, prepend=-1) != 0).tolist()  # each person's first row
    edges = [*firsts, len(rows)] if firsts else []
    for start, end in zip(edges, edges[1:], strict=False):
        person_id = int(rows.actors[start])
        activity = PersonActivity(person_id, first=first.get(person_id))
        flags, person_periods = rows.flags[start:end], periods[start:end]
        activity.target.update(person_periods[(flags & 1) == 1].tolist())
        activity.returning.update(person_periods[(flags & 2) == 2].tolist())
        if rows.values is not None:
            activity.values = _start_values(rows.values[start:end], flags, person_periods)
        if members is not None:
            activity.cohorts = tuple(index for index, cohort in enumerate(members) if person_id in cohort)
        yield activity


def _start_values(values: list[Any], flags: np.ndarray, periods: np.ndarray) -> dict[int, str]:
    """Each target period's breakdown value: that of the first target event in it (rows are in time order)."""
    found: dict[int, str] = {}
    for value, flag, period in zip(values, flags.tolist(), periods.tolist(), strict=True):
        if flag & 1 and period not in found:
            found[period] = NULL if value is None or value == "" else str(value)
    return found


def _cohort_members(
    conn: sqlite3.Connection, project: dict[str, Any], filter: RetentionFilter
) -> list[set[int]] | None:
    """The members of each cohort of a cohort breakdown (None without one)."""
    if filter.breakdown is None or filter.breakdown_type != "cohort":
        return None
    splits = cohort_splits(conn, compiler_for(conn, project), cast(BaseFilter, filter))
    store = event_store(conn)
    return [set(store.persons_matching(int(project["id"]), split.condition)) for split in splits]


def _and(first: tuple[str, list[Any]], second: tuple[str, list[Any]]) -> tuple[str, list[Any]]:
    return f"({first[0]} AND {second[0]})", [*first[1], *second[1]]


def count_retention(
    conn: sqlite3.Connection, project: dict[str, Any], filter: RetentionFilter, now: datetime
) -> RetentionCounts:
    """Counts and members of every (cohort, period offset) cell."""
    resolved = resolve_retention_range(filter, project, now)
    periods, kind = filter.total_intervals, filter.retention_type
    if filter.breakdown is not None and filter.breakdown_type == "cohort":
        everyone = list(_activities(conn, project, filter, resolved.boundaries_micros))
        counts, members = compute_retention_counts(everyone, periods=periods, retention_type=kind)
        values = [split.value for split in cohort_splits(conn, compiler_for(conn, project), cast(BaseFilter, filter))]
        buckets = split_by_cohort(everyone, values, periods=periods, retention_type=kind)
        return RetentionCounts(range=resolved, counts=counts, members=members, buckets=buckets)
    found = _scan(conn, project, filter, resolved.boundaries_micros)
    pairs = retention_pairs(found.rows, found.periods, retention_type=kind, first=found.first)
    counts, members = pairs_triangle(pairs, None, periods=periods)
    if filter.breakdown is None:
        return RetentionCounts(range=resolved, counts=counts, members=members)
    buckets = split_pairs_by_value(pairs, periods=periods, limit=filter.breakdown_limit)
    return RetentionCounts(range=resolved, counts=counts, members=members, buckets=buckets)


def people_params(
    filter: RetentionFilter, counts: RetentionCounts, cohort: int, offset: int | None, breakdown_value: Any = None
) -> dict[str, Any]:
    """The query of the people list of one row (``offset`` None) or one cell of a result, under ``breakdown_value``
    when broken down.

    ``date_to`` is pinned to the last cohort's start, so the link keeps meaning the same cohorts later on.
    """
    params: dict[str, Any] = {
        "target_entity": json.dumps(filter.target_entity.model_dump(exclude_none=True)),
        "period": filter.period,
        "total_intervals": filter.total_intervals,
        "retention_type": filter.retention_type,
        "date_to": counts.range.starts[-1].replace(tzinfo=None).isoformat(),
    }
    if filter.returning_entity is not None:
        params["returning_entity"] = json.dumps(filter.returning_entity.model_dump(exclude_none=True))
    if filter.properties:
        params["properties"] = json.dumps(filter.properties)
    if filter.filter_test_accounts:
        params["filter_test_accounts"] = "true"
    if filter.breakdown is not None:
        breakdown = filter.breakdown
        params["breakdown"] = json.dumps(breakdown) if isinstance(breakdown, list) else breakdown
        params["breakdown_type"] = filter.breakdown_type
        params["breakdown_limit"] = filter.breakdown_limit
        if filter.breakdown_group_type_index is not None:
            params["breakdown_group_type_index"] = filter.breakdown_group_type_index
        params["breakdown_value"] = str(breakdown_value)
    params["selected_interval"] = cohort
    if offset is not None:
        params["selected_offset"] = offset
    return params


def _rows(
    filter: RetentionFilter, counts: RetentionCounts, bucket: RetentionBucket, people_link: PeopleLink
) -> list[dict[str, Any]]:
    def link(cohort: int, offset: int | None) -> str:
        return people_link(people_params(filter, counts, cohort, offset, bucket.value))

    rows = []
    for cohort, row in enumerate(bucket.counts):
        shown: dict[str, Any] = {
            "values": [
                {"count": count, "people": [], "people_url": link(cohort, offset)} for offset, count in enumerate(row)
            ],
            "label": f"{filter.period} {cohort}",
            "date": format_local(counts.range.starts[cohort]),
            "people_url": link(cohort, None),
        }
        if counts.buckets is not None:
            shown["breakdown_value"] = bucket.value
        rows.append(shown)
    return rows


def retention_rows(filter: RetentionFilter, counts: RetentionCounts, people_link: PeopleLink) -> list[dict[str, Any]]:
    """The ``result`` rows: ``{values: [{count, people, people_url}], label, date, people_url}``, and broken down
    every value's rows in turn, each with its ``breakdown_value``."""
    if counts.buckets is None:
        return _rows(filter, counts, counts.bucket(None), people_link)
    return [row for bucket in counts.buckets for row in _rows(filter, counts, bucket, people_link)]


def compute_retention(
    conn: sqlite3.Connection, project: dict[str, Any], filter: RetentionFilter, now: datetime, people_link: PeopleLink
) -> list[dict[str, Any]]:
    """The ``result`` rows of the retention response."""
    return retention_rows(filter, count_retention(conn, project, filter, now), people_link)


def compute_retention_people(
    conn: sqlite3.Connection,
    project: dict[str, Any],
    filter: RetentionFilter,
    now: datetime,
    cohort: int,
    offset: int | None,
    breakdown_value: str | None = None,
) -> list[tuple[int, list[int]]]:
    """``(person id, appearances)`` of cohort ``cohort`` (those back ``offset`` periods later, when given), under
    ``breakdown_value`` (its text; a 400 when the result shows no such value) when given.

    ``appearances`` has a 1 for each period of the cohort the person came back in; the most faithful first,
    then by person id.
    """
    members = count_retention(conn, project, filter, now).bucket(breakdown_value).members[cohort]
    cells = [set(cell) for cell in members]
    chosen = members[offset if offset is not None else 0]
    appearances = {person_id: [1 if person_id in cell else 0 for cell in cells] for person_id in chosen}
    ordered = sorted(chosen, key=lambda person_id: (-sum(appearances[person_id]), person_id))
    return [(person_id, appearances[person_id]) for person_id in ordered]


def retention_payload(
    conn: sqlite3.Connection, project: dict[str, Any], data: dict[str, Any], now: datetime, people_link: PeopleLink
) -> dict[str, Any]:
    """``{"result", "timezone"}`` for a legacy retention filter given as a dict (a saved insight's ``filters``)."""
    result = compute_retention(conn, project, parse_filter(RetentionFilter, data), now, people_link)
    return {"result": result, "timezone": project.get("timezone") or "UTC"}
