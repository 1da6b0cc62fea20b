"""PostHog's ``ActorsQuery``: the people behind one number, asked of ``/api/projects/:id/query/`` where the answer
carries no people URLs (the query API's answers never do).

The number is named by the source node: a ``FunnelsActorsQuery`` (a funnel step) or an ``InsightActorsQuery`` over
the insight's own query, its point given as ``day`` (a trend's or lifecycle's interval start as the series' ``days``
show it, a stickiness bucket's number), ``series`` (the series' position), ``breakdown``, ``compare`` (``current`` or
``previous``) and ``status`` (a lifecycle status). Each answer is one page: rows of ``results`` under ``columns``
(the ``actor`` column holds the person), with ``hasMore``; the next page is asked from ``offset``.

Examples
--------
>>> source = insight_actors_source({"kind": "StickinessQuery"}, {"series": 0, "day": 2})
>>> actors_query(source, limit=50, offset=100)["source"]["day"], actors_query(source, limit=50, offset=100)["offset"]
(2, 100)
>>> actor_rows({"columns": ["actor"], "results": [[{"id": "a"}], [{"id": "b"}]]})
[{'id': 'a'}, {'id': 'b'}]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

__all__ = ["actor_pages", "actor_rows", "actors_query", "insight_actors_source"]

RunQuery = Callable[[dict[str, Any]], dict[str, Any]]


def insight_actors_source(query: Mapping[str, Any], point: Mapping[str, Any]) -> dict[str, Any]:
    """The ``InsightActorsQuery`` of ``point`` (its ``day``, ``series``, ``breakdown``, ``compare``, ``status``)
    on the insight ``query`` (a ``TrendsQuery``, ``StickinessQuery`` or ``LifecycleQuery`` node)."""
    return {"kind": "InsightActorsQuery", "source": dict(query), **dict(point)}


def actors_query(source: Mapping[str, Any], *, limit: int | None, offset: int) -> dict[str, Any]:
    """One page of the ``ActorsQuery`` over ``source``: ``limit`` actors (the server's default when None) from
    ``offset``."""
    node: dict[str, Any] = {"kind": "ActorsQuery", "source": dict(source), "select": ["actor"]}
    if limit is not None:
        node["limit"] = limit
    if offset:
        node["offset"] = offset
    return node


def actor_rows(answer: Mapping[str, Any]) -> list[Any]:
    """The actors of one page: the ``actor`` column of each row of ``results`` (the first column when
    ``columns`` names none; a row that is no list is the actor itself)."""
    columns = list(answer.get("columns") or [])
    at = columns.index("actor") if "actor" in columns else 0
    rows = answer.get("results") or []
    return [row[at] if isinstance(row, list | tuple) else row for row in rows]


def actor_pages(run_query: RunQuery, source: Mapping[str, Any], *, page_size: int | None) -> Iterator[Any]:
    """Every actor behind ``source``, page after page while the answer says ``hasMore``."""
    offset = 0
    while True:
        answer = run_query(actors_query(source, limit=page_size, offset=offset))
        rows = actor_rows(answer)
        yield from rows
        offset += len(rows)
        if not answer.get("hasMore") or not rows:
            return
