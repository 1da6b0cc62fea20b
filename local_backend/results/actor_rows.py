"""One page of actors as ``/query/``'s ``ActorsQuery`` answers it (PostHog's ``ActorsQueryResponse``): rows of one
``actor`` column, persons by id or groups by key, with ``hasMore``, ``limit`` and ``offset``.

Both actors sources answer through it: ``FunnelsActorsQuery`` (:mod:`.funnel_actors`) and ``InsightActorsQuery``
(:mod:`.insight_actors`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from ..store.engine.choice import event_store
from ..store.person_lookup import persons_by_id

__all__ = ["actors_query_page"]


def actors_query_page(
    conn: sqlite3.Connection,
    project: dict[str, Any],
    actors: Sequence[Any],
    group_type_index: int | None,
    *,
    limit: int,
    offset: int,
    columns: list[str],
) -> dict[str, Any]:
    """The page ``[offset, offset + limit)`` of ``actors`` (person ids, or group keys of ``group_type_index``)."""
    project_id = int(project["id"])
    high = offset + limit
    window = list(actors[offset:high])
    if group_type_index is not None:
        stored = dict(event_store(conn).group_properties(project_id, group_type_index, window))
        page: list[Any] = [
            {"id": key, "group_key": key, "group_type_index": group_type_index, "group_properties": stored.get(key, {})}
            for key in window
        ]
    else:
        persons = persons_by_id(conn, project_id, window)
        page = [persons[person_id] for person_id in window if person_id in persons]
    return {
        "results": [[actor] for actor in page],
        "columns": columns,
        "types": ["Tuple"],
        "hasMore": high < len(actors),
        "limit": limit,
        "offset": offset,
        "missing_actors_count": 0,
        "hogql": None,
        "is_cached": False,
        "timezone": project.get("timezone") or "UTC",
    }
