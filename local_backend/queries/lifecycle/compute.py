"""Lifecycle from stored events: per interval, how many actors were new, returning, resurrecting or dormant.

Reading order: :func:`compute_lifecycle` resolves the range and its intervals as trends do (:mod:`..dates`,
:mod:`..buckets`, in the project timezone with its week start), adds the interval before the first one,
compiles the series and the global filters (:mod:`..base_filter`); the event store answers who was active in
each interval, personless events (``$process_person_profile: false``) left out
(:meth:`~local_backend.store.engine.interface.EventStore.active_actors`) and when each actor was created
(:meth:`~local_backend.store.engine.interface.EventStore.actors_created_at`: the person, or with
``aggregation_group_type_index`` the group); :mod:`.engine` gives the statuses and their counts.

Events are read over whole intervals, from the start of the interval before ``date_from``'s to the end of
``date_to``'s, as PostHog reads them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from operator import itemgetter
from typing import Any

import numpy as np

from ...store.engine.choice import event_store
from ...store.engine.interface import ActiveActors, ActorColumns, CreatedColumns
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


def _and(*parts: Where) -> Where:
    kept = [part for part in parts if part[0] != "1"]
    if not kept:
        return "1", []
    return "(" + " AND ".join(sql for sql, _ in kept) + ")", [param for _, params in kept for param in params]


def _active_codes(triples: Iterable[tuple[int, Any, Any]]) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    """The store's ``(interval, group, actor)`` triples as interval and actor-code arrays, and the actor of each
    code (person ids ascending; group keys in order of first appearance)."""
    if isinstance(triples, ActorColumns):  # the store answered columns: no tuple per row
        intervals, ids = triples.spans, triples.actors
        actors: list[Any] | None = None
    else:
        found = list(triples)
        # a column at a time through C-level getters: transposing with zip(*found) would make an iterator per row
        intervals = np.fromiter(map(itemgetter(0), found), dtype=np.int64, count=len(found))
        actors = list(map(itemgetter(2), found))
        ids = np.array(actors)
    if intervals.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy(), []
    if ids.dtype.kind in "iu":
        keys, codes = np.unique(ids, return_inverse=True)
        return intervals, codes.astype(np.int64).ravel(), keys.tolist()
    numbered: dict[Any, int] = {}
    codes = [numbered.setdefault(actor, len(numbered)) for actor in (ids.tolist() if actors is None else actors)]
    return intervals, np.array(codes, dtype=np.int64), list(numbered)


def _creation_codes(who: Sequence[Any] | np.ndarray, keys: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """For the actors ``who``, the positions of those in ``keys`` and their codes (their index in ``keys``):
    by a binary search when both are integers and ``keys`` ascends (persons), else through a dict."""
    ids, known = np.asarray(who), np.array(keys)
    if ids.dtype.kind in "iu" and known.dtype.kind in "iu" and bool(np.all(known[1:] > known[:-1])):
        codes = np.minimum(np.searchsorted(known, ids), len(keys) - 1)
        matched = np.flatnonzero(known[codes] == ids)
        return matched, codes[matched].astype(np.int64)
    numbered = {key: code for code, key in enumerate(keys)}
    actors = who.tolist() if isinstance(who, np.ndarray) else who
    pairs = [(position, numbered[actor]) for position, actor in enumerate(actors) if actor in numbered]
    positions = np.array([position for position, _ in pairs], dtype=np.int64)
    return positions, np.array([code for _, code in pairs], dtype=np.int64)


def _created_intervals(creations: Iterable[tuple[Any, int]], keys: list[Any], edges: list[int]) -> np.ndarray:
    """The interval index (into ``edges``) each actor of ``keys`` was created in, :data:`_UNKNOWN` where the
    store has no row for it."""
    created = np.full(len(keys), _UNKNOWN, dtype=np.int64)
    if isinstance(creations, CreatedColumns):  # the store answered columns: no tuple per actor
        who: Any = creations.actors
        moments = creations.created
    else:
        found = list(creations)
        who = list(map(itemgetter(0), found))
        moments = np.fromiter(map(itemgetter(1), found), dtype=np.int64, count=len(found))
    if len(who) == 0 or not keys:
        return created
    positions, codes = _creation_codes(who, keys)
    if codes.size:
        intervals = np.searchsorted(np.array(edges, dtype=np.int64), moments[positions], side="right")
        created[codes] = intervals - 1
    return created


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
    where = _and(entity_condition(compiler, entity, f"{entity.type}__0"), global_condition(compiler, filter, project))
    group_type = filter.aggregation_group_type_index
    actor = "e.person_id" if group_type is None else f"nullif(e.group_{int(group_type)}, '')"
    spans = list(zip(edges, edges[1:], strict=False))
    request = ActiveActors(project_id=project_id, spans=spans, where=where, actor=actor, personful_only=True)
    periods, actors, keys = _active_codes(store.active_actors(request))
    created = _created_intervals(store.actors_created_at(project_id, keys, group_type), keys, edges)
    rows = lifecycle_rows(periods, actors, created)
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
