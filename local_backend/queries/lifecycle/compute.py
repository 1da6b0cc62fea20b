"""Lifecycle from stored events: per interval, how many actors were new, returning, resurrecting or dormant.

Reading order: :func:`compute_lifecycle` resolves the range and its intervals as trends do (:mod:`..dates`,
:mod:`..buckets`, in the project timezone with its week start), adds the interval before the first one,
compiles the series and the global filters (:mod:`..base_filter`) and leaves out personless events
(``$process_person_profile: false``); the event store answers who was active in each interval
(:meth:`~local_backend.store.engine.interface.EventStore.active_actors`) and when each actor was created
(:meth:`~local_backend.store.engine.interface.EventStore.actors_created_at`: the person, or with
``aggregation_group_type_index`` the group); :mod:`.engine` gives the statuses and their counts.

Events are read over whole intervals, from the start of the interval before ``date_from``'s to the end of
``date_to``'s, as PostHog reads them.
"""

from __future__ import annotations

import sqlite3
from bisect import bisect_right
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from ...store.engine.choice import event_store
from ...store.engine.interface import ActiveActors, Dialect
from ...store.event_rows import to_micros
from ..base_filter import compiler_for, entity_condition, entity_labels, filter_date_range, global_condition
from ..buckets import Buckets, make_buckets
from ..dates import DateRange, add_intervals
from ..filter_parsing import parse_filter
from ..people_links import PeopleLink
from .engine import STATUSES, StatusRows, lifecycle_counts, lifecycle_rows
from .filter import LifecycleFilter
from .links import status_links

__all__ = ["LifecycleResult", "LifecycleActors", "compute_lifecycle", "lifecycle_actors", "lifecycle_payload"]

Where = tuple[str, list[Any]]
# the creation interval of an actor the store has no row for: never an active interval, so never new
_UNKNOWN = -2


@dataclass(frozen=True)
class LifecycleResult:
    series: list[dict[str, Any]]
    date_range: DateRange


@dataclass(frozen=True)
class LifecycleActors:
    """The statuses of every actor (``keys[code]`` is the actor of a code), over ``buckets`` (interval i of
    the rows is ``buckets`` index i - 1); ``label`` the series' label, None when its action does not exist."""

    rows: StatusRows
    keys: list[Any]
    buckets: Buckets
    label: str | None
    date_range: DateRange


def personful_condition(dialect: Dialect) -> Where:
    """Events that process a person profile: ``$process_person_profile`` anything but ``false`` (or missing)."""
    kind, params = dialect.json_type("e.properties", "$process_person_profile")
    return f"coalesce(({kind}) <> 'false', 1)", params


def _and(*parts: Where) -> Where:
    kept = [part for part in parts if part[0] != "1"]
    if not kept:
        return "1", []
    return "(" + " AND ".join(sql for sql, _ in kept) + ")", [param for _, params in kept for param in params]


def lifecycle_actors(
    conn: sqlite3.Connection, project: dict[str, Any], filter: LifecycleFilter, now: datetime
) -> LifecycleActors:
    """Every actor's statuses over the range (module docstring)."""
    project_id = int(project["id"])
    date_range = filter_date_range(conn, project, filter, now)
    buckets = make_buckets(date_range)
    entity = filter.entity
    labels = entity_labels(conn, project_id, [entity])
    empty = lifecycle_rows(np.zeros(0), np.zeros(0), np.zeros(0))
    if labels is None:
        return LifecycleActors(rows=empty, keys=[], buckets=buckets, label=None, date_range=date_range)
    compiler = compiler_for(conn, project)
    store = event_store(conn)
    before = to_micros(add_intervals(buckets.starts[0], date_range.interval, -1))
    edges = [before, *buckets.edges]
    where = _and(
        entity_condition(compiler, entity, f"{entity.type}__0"),
        global_condition(compiler, filter, project),
        personful_condition(store.dialect),
    )
    group_type = filter.aggregation_group_type_index
    actor = "e.person_id" if group_type is None else f"nullif(e.group_{int(group_type)}, '')"
    spans = list(zip(edges, edges[1:], strict=False))
    request = ActiveActors(project_id=project_id, spans=spans, where=where, actor=actor)
    codes: dict[Any, int] = {}
    periods: list[int] = []
    actors: list[int] = []
    for index, _, who in store.active_actors(request):
        periods.append(int(index))
        actors.append(codes.setdefault(who, len(codes)))
    keys = list(codes)
    created = np.full(len(keys), _UNKNOWN, dtype=np.int64)
    for who, micros in store.actors_created_at(project_id, keys, group_type):
        code = codes.get(who)
        if code is not None:
            created[code] = bisect_right(edges, micros) - 1
    rows = lifecycle_rows(np.array(periods, dtype=np.int64), np.array(actors, dtype=np.int64), created)
    return LifecycleActors(rows=rows, keys=keys, buckets=buckets, label=labels[entity.index], date_range=date_range)


def compute_lifecycle(
    conn: sqlite3.Connection,
    project: dict[str, Any],
    filter: LifecycleFilter,
    now: datetime,
    people_link: PeopleLink | None = None,
) -> LifecycleResult:
    """The four series of a lifecycle insight, in the order new, returning, resurrecting, dormant; with
    ``people_link``, each interval of each links to its people (:mod:`.links`)."""
    found = lifecycle_actors(conn, project, filter, now)
    if found.label is None:
        # as trends: a series over a deleted or unknown action answers no series at all
        return LifecycleResult(series=[], date_range=found.date_range)
    buckets = found.buckets
    action = filter.entity.echo()
    if action["name"] is None:
        action["name"] = found.label
    counts = lifecycle_counts(found.rows, len(buckets))
    series = []
    for status in STATUSES:
        data = [float(value) for value in counts[status]]
        body = {
            "action": action,
            "label": f"{found.label} - {status}",
            "status": status,
            "count": float(sum(data)),
            "data": data,
            "labels": buckets.labels,
            "days": buckets.days,
        }
        if people_link is not None:
            body["persons_urls"] = status_links(filter, found.date_range, buckets.days, status, people_link)
        series.append(body)
    return LifecycleResult(series=series, date_range=found.date_range)


def lifecycle_payload(
    conn: sqlite3.Connection,
    project: dict[str, Any],
    data: dict[str, Any],
    now: datetime,
    people_link: PeopleLink | None = None,
) -> dict[str, Any]:
    """``{"result", "timezone"}`` for a legacy lifecycle filter given as a dict (a saved insight's ``filters``)."""
    filter = parse_filter(LifecycleFilter, data)
    series = compute_lifecycle(conn, project, filter, now, people_link).series
    return {"result": series, "timezone": project.get("timezone") or "UTC"}
