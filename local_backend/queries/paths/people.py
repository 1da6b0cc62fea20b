"""Who went through a node or an edge of a paths result: PostHog's ``persons/paths/``.

The keys name nodes as the edges show them (``"2_/pricing"``: the item at step 2):

=====================================  ==========================================================
keys given                             persons listed
=====================================  ==========================================================
``path_start_key`` and ``path_end_key`` those who went from the one node straight to the other (an edge)
``path_start_key``                     those who went on from that node to a next one
``path_end_key``                       those who reached that node
``path_dropoff_key`` (alone)           those whose path ended at that node
none                                   everyone with a path
=====================================  ==========================================================

Paths are the very session paths the edges are counted from (:func:`.engine.session_paths`, cut to the points
and the step limit); a person is listed once however many of their sessions qualify, so an edge's people may
be fewer than its value, which counts sessions. A key naming no node or edge the result shows is a 400 naming it.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

from ...errors import ValidationError
from .compute import funnel_stretches, path_bounds, path_options, person_paths
from .engine import compute_path_edges, path_nodes, session_paths
from .filter import PathFilter

__all__ = ["path_people"]


def _check(start: str | None, end: str | None, dropoff: str | None, edges: list[Any]) -> None:
    if dropoff and (start or end):
        raise ValidationError(
            "path_dropoff_key goes alone, without path_start_key or path_end_key.", attr="path_dropoff_key"
        )
    sources = {edge.source for edge in edges}
    nodes = sources | {edge.target for edge in edges}
    if start and end:
        if not any(edge.source == start and edge.target == end for edge in edges):
            raise ValidationError(f"No edge from {start} to {end} in this result.", attr="path_end_key")
    elif start and start not in sources:
        raise ValidationError(f"No edge leaves {start} in this result.", attr="path_start_key")
    elif end and end not in nodes:
        raise ValidationError(f"No node {end} in this result.", attr="path_end_key")
    elif dropoff and dropoff not in nodes:
        raise ValidationError(f"No node {dropoff} in this result.", attr="path_dropoff_key")


def _goes_through(nodes: list[str], start: str | None, end: str | None, dropoff: str | None) -> bool:
    if dropoff:
        return nodes[-1] == dropoff
    if start and end:
        return any(a == start and b == end for a, b in zip(nodes, nodes[1:], strict=False))
    if start:
        return start in nodes[:-1]
    if end:
        return end in nodes
    return True


def path_people(
    conn: sqlite3.Connection,
    project: dict[str, Any],
    filter: PathFilter,
    now: datetime,
    *,
    start_key: str | None = None,
    end_key: str | None = None,
    dropoff_key: str | None = None,
) -> list[int]:
    """The ids of the persons the keys name (module docstring), ascending."""
    bounds = path_bounds(conn, project, filter, now)
    stretch = None if bounds.empty else funnel_stretches(conn, project, filter, now)
    options = path_options(filter, stretch)
    persons = [] if bounds.empty else list(person_paths(conn, project, filter, bounds, stretch))
    _check(start_key, end_key, dropoff_key, compute_path_edges((rows for _, rows in persons), options))
    chosen = {
        person_id
        for person_id, rows in persons
        if any(
            _goes_through(path_nodes(path), start_key, end_key, dropoff_key) for path in session_paths(rows, options)
        )
    }
    return sorted(chosen)
