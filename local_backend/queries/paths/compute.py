"""Paths from stored events: what people did next, as weighted edges between numbered steps.

Which events count: every event when the filter names no event types (``include_event_types`` absent or
empty) and no events (``include_custom_events``); otherwise the events of the listed types and the events
named. Each counted event becomes a path item by its kind:

=================  ==================================================================
event              path item
=================  ==================================================================
``$pageview``      its ``$current_url``, a trailing ``/`` dropped (``/`` itself stays)
``$screen``        its ``$screen_name``
any other          the event name (type ``custom_event``: every event not starting with ``$``)
=================  ==================================================================

Items are then grouped (``path_groupings``, ``*`` wildcards) and those listed in ``exclude_events`` are
dropped, before sessions are cut; :mod:`.engine` does the per-person pass. Events are read person by
person in time order from the event store (:meth:`~local_backend.store.engine.interface.EventStore.person_events`).
A range that holds no time (``date_from`` after ``date_to``, or in the future) has no paths. Restricted by a
funnel (``funnel_paths``), only the funnel step's people and the stretch of their events around it count
(:mod:`.funnel`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from itertools import groupby
from typing import Any
from zoneinfo import ZoneInfo

from ...store.engine.choice import event_store
from ...store.engine.interface import PersonEventScan
from ..analysis_inputs import global_condition, micros, parse_point, truncate_period
from ..filter_parsing import parse_filter
from .engine import PathEdge, PathOptions, compile_groupings, compute_path_edges, group_path_item
from .filter import CUSTOM_EVENT, PAGEVIEW, SCREEN, PathFilter, without_trailing_slash
from .funnel import FunnelStretch, funnel_stretches

__all__ = [
    "PathRange",
    "resolve_path_range",
    "compute_paths",
    "paths_payload",
    "path_item",
    "path_bounds",
    "path_options",
    "person_paths",
    "funnel_stretches",
    "DEFAULT_EDGE_LIMIT",
]

DEFAULT_EDGE_LIMIT = 50
_ALL_TIME = (-(2**63), 2**63 - 1)


@dataclass(frozen=True)
class PathRange:
    """Inclusive bounds, UTC microseconds; ``start`` after ``end`` when the range holds no time."""

    start: int
    end: int

    @property
    def empty(self) -> bool:
        return self.start > self.end


def resolve_path_range(
    filter: PathFilter,
    project: dict[str, Any],
    now: datetime,
    earliest_event: Callable[[], datetime | None] = lambda: None,
) -> PathRange:
    """``date_from`` (default ``-7d``) from the start of its day, to the end of ``date_to``'s day (default now).

    A ``date_from`` with an hour in it (``-24h``, ``2026-01-14T10:00``) is kept to the moment. ``all`` starts on
    the day of ``earliest_event()`` (the project's first plausible event, as trends and funnels start it), or
    today when there is none. A ``date_from`` after ``date_to`` (or after now) gives an empty range.
    """
    tz = ZoneInfo(project.get("timezone") or "UTC")
    local_now = now.astimezone(tz)
    if filter.date_from == "all":
        earliest = earliest_event()
        first = micros(truncate_period((earliest or now).astimezone(tz), "Day", 0))
    else:
        start = parse_point(filter.date_from or "-7d", tz=tz, now=now, attr="date_from")
        if not _has_time(filter.date_from or ""):
            start = truncate_period(start, "Day", 0)
        first = micros(start)
    end = parse_point(filter.date_to, tz=tz, now=now, attr="date_to") if filter.date_to else local_now
    if filter.date_to and not _has_time(filter.date_to):
        end = truncate_period(end, "Day", 0).replace(hour=23, minute=59, second=59, microsecond=999_999)
    return PathRange(start=first, end=micros(end))


def _has_time(text: str) -> bool:
    return "T" in text or " " in text.strip() or text.strip().endswith("h") or "hStart" in text or "hEnd" in text


def path_item(event: str, url: str | None, screen: str | None) -> str:
    """The path item of one event: a pageview's URL, a screen's name, otherwise the event name."""
    if event == PAGEVIEW:
        return without_trailing_slash(url or "")
    if event == SCREEN:
        return screen or ""
    return event


def _events_sql(filter: PathFilter) -> tuple[str, list[Any]]:
    """The condition on events that make path items: every event when the filter names no type and no event."""
    if filter.every_event:
        return "1 = 1", []
    types = set(filter.include_event_types or ())
    parts: list[str] = []
    params: list[Any] = []
    if PAGEVIEW in types:
        parts.append("e.event = '$pageview'")
    if SCREEN in types:
        parts.append("e.event = '$screen'")
    if CUSTOM_EVENT in types:
        parts.append("substr(e.event, 1, 1) <> '$'")
    if filter.include_custom_events:
        parts.append(f"e.event IN ({', '.join('?' for _ in filter.include_custom_events)})")
        params.extend(filter.include_custom_events)
    return "(" + " OR ".join(parts) + ")", params


def person_paths(
    conn: sqlite3.Connection,
    project: dict[str, Any],
    filter: PathFilter,
    bounds: PathRange,
    stretch: FunnelStretch | None = None,
) -> Iterator[tuple[int, list[tuple[int, str]]]]:
    """Each person's path items in time order: ``(person id, [(timestamp_ms, item), ...])``; with ``stretch``
    only its persons, each with the events of their stretch."""
    groupings = compile_groupings(filter.path_groupings)
    excluded = set(filter.exclude_events)
    where_sql, where_params = global_condition(project, filter.properties, filter.filter_test_accounts, conn=conn)
    events_sql, events_params = _events_sql(filter)
    where = (f"{events_sql} AND {where_sql}", [*events_params, *where_params])
    scan = PersonEventScan(
        project_id=int(project["id"]),
        lower=bounds.start,
        upper=bounds.end,
        where=where,
        properties=("$current_url", "$screen_name"),
    )
    rows = event_store(conn).person_events(scan)
    for person_id, person_rows in groupby(rows, key=lambda row: row[0]):
        if stretch is not None and int(person_id) not in stretch.spans:
            continue
        low, high = _ALL_TIME if stretch is None else stretch.spans[int(person_id)]
        path: list[tuple[int, str]] = []
        for _, at, event, url, screen in person_rows:
            if not low <= at <= high:
                continue
            item = path_item(event, None if url is None else str(url), None if screen is None else str(screen))
            item = group_path_item(item, groupings)
            if item in excluded:
                continue
            path.append((at // 1000, item))
        if path:
            yield int(person_id), path


def path_options(filter: PathFilter, stretch: FunnelStretch | None = None) -> PathOptions:
    """The engine's options; sessions cut by the funnel's window when restricted by a funnel."""
    gap = {} if stretch is None else {"session_gap_ms": stretch.session_gap_ms}
    return PathOptions(
        **gap,
        step_limit=filter.step_limit,
        start_point=filter.start_point,
        end_point=filter.end_point,
        edge_limit=filter.edge_limit or DEFAULT_EDGE_LIMIT,
        min_edge_weight=filter.min_edge_weight,
        max_edge_weight=filter.max_edge_weight,
    )


def path_bounds(conn: sqlite3.Connection, project: dict[str, Any], filter: PathFilter, now: datetime) -> PathRange:
    """The range of a paths filter."""
    return resolve_path_range(filter, project, now, lambda: event_store(conn).earliest_event(int(project["id"])))


def compute_paths(
    conn: sqlite3.Connection, project: dict[str, Any], filter: PathFilter, now: datetime
) -> list[PathEdge]:
    """The edges of every person's session paths in the range, heaviest first."""
    bounds = path_bounds(conn, project, filter, now)
    if bounds.empty:
        return []
    stretch = funnel_stretches(conn, project, filter, now)
    paths = (path for _, path in person_paths(conn, project, filter, bounds, stretch))
    return compute_path_edges(paths, path_options(filter, stretch))


def paths_payload(
    conn: sqlite3.Connection, project: dict[str, Any], data: dict[str, Any], now: datetime
) -> dict[str, Any]:
    """``{"result", "timezone"}`` for a legacy paths filter given as a dict (a saved insight's ``filters``)."""
    edges = compute_paths(conn, project, parse_filter(PathFilter, data), now)
    return {"result": [edge.as_dict() for edge in edges], "timezone": project.get("timezone") or "UTC"}
