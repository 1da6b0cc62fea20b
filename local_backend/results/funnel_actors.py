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
from .actor_nodes import ActorsNode
from .actor_rows import actors_query_page

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
    if actors.group_keys is not None and filter.aggregation_group_type_index is not None:
        found, group_type = actors.group_keys, filter.aggregation_group_type_index
    else:
        found, group_type = actors.person_ids, None
    return actors_query_page(
        conn, project, found, group_type, limit=node.limit, offset=node.offset, columns=node.columns
    )
