"""The answer to ``/query/``'s ``ActorsQuery`` over a ``FunnelsActorsQuery``: the people behind one funnel number.

The same people the legacy ``persons/funnel/`` lists (:func:`..queries.funnels.compute_funnel_people`, made from
the outcomes the counts are made of), one page of them as rows of one ``actor`` column, in PostHog's
``ActorsQueryResponse`` shape (``results``, ``columns``, ``hasMore``, ``limit``, ``offset``).
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

from ..queries.filter_parsing import parse_filter
from ..queries.funnels import (
    FunnelFilter,
    check_funnel_step,
    compute_funnel_people,
    decode_step_breakdown,
    refuse_trends_people,
)
from ..queries.unsupported_fields import refuse_unsupported_fields
from ..store.engine.choice import event_store
from ..store.person_lookup import persons_by_id
from .query_nodes import ActorsNode

__all__ = ["funnel_actors_response"]


def _breakdown_value(value: Any) -> Any:
    # a multi-property value may come as its JSON text, as PostHog's actor options send it
    return decode_step_breakdown(value) if isinstance(value, str) else value


def funnel_actors_response(
    conn: sqlite3.Connection, project: dict[str, Any], node: ActorsNode, now: datetime
) -> dict[str, Any]:
    """One page of the persons (or groups) of ``node``'s funnel step, with how many there are in all."""
    refuse_unsupported_fields("FUNNELS", node.legacy)
    filter = parse_filter(FunnelFilter, node.legacy)
    refuse_trends_people(filter)
    step = check_funnel_step(node.funnel_step, len(filter.steps), attr="funnel_step")
    actors = compute_funnel_people(conn, project, filter, now, step, _breakdown_value(node.breakdown_value))
    project_id = int(project["id"])
    low, high = node.offset, node.offset + node.limit
    index = filter.aggregation_group_type_index
    if actors.group_keys is not None and index is not None:
        keys = actors.group_keys[low:high]
        stored = dict(event_store(conn).group_properties(project_id, index, keys))
        page: list[Any] = [
            {"id": key, "group_key": key, "group_type_index": index, "group_properties": stored.get(key, {})}
            for key in keys
        ]
        total = len(actors.group_keys)
    else:
        window = actors.person_ids[low:high]
        persons = persons_by_id(conn, project_id, window)
        page = [persons[person_id] for person_id in window if person_id in persons]
        total = len(actors.person_ids)
    return {
        "results": [[actor] for actor in page],
        "columns": node.columns,
        "types": ["Tuple"],
        "hasMore": high < total,
        "limit": node.limit,
        "offset": node.offset,
        "missing_actors_count": 0,
        "hogql": None,
        "is_cached": False,
        "timezone": project.get("timezone") or "UTC",
    }
