"""``/api/projects/:id/query/``: PostHog's current front door for calculations, with polling and cancel.

A ``TrendsQuery``, ``FunnelsQuery``, ``RetentionQuery``, ``PathsQuery``, ``StickinessQuery`` or ``LifecycleQuery``
(bare or in an ``InsightVizNode``) is
translated onto the legacy filter and served by the same engine and cache as saved insights.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from ..auth import ProjectAccess, project_access
from ..errors import NotFound
from ..models.fields import JSONObject
from ..queries.sql import read_hogql_node, run_hogql_query
from ..results.actor_nodes import InsightActorsNode, is_actors_query, translate_actors_query
from ..results.funnel_actors import funnel_actors_response
from ..results.insight_actors import insight_actors_response
from ..results.modes import execution_mode
from ..results.query_nodes import translate_query
from ..results.service import query_status_body, serve_calculation
from ..store.query_results import get_query_status
from ..web.deps import get_conn, get_settings
from ..web.off_loop import CALCULATION_RESPONSES, compute_off_loop, guard_for, run_off_loop
from .insight_kinds import calculation_for

__all__ = ["router", "QueryRequest"]

router = APIRouter(tags=["query"])
READ = project_access("query:read")
DEFAULT_QUERY_REFRESH = "blocking"


class QueryRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    query: JSONObject = Field(
        description="A TrendsQuery, FunnelsQuery, RetentionQuery, PathsQuery, StickinessQuery or LifecycleQuery node"
    )
    refresh: str | bool | None = Field(
        DEFAULT_QUERY_REFRESH,
        description="blocking (default), async, lazy_async, force_async, force_blocking, force_cache",
    )
    client_query_id: str | None = Field(None, max_length=200)


def query_response(package: dict[str, Any]) -> dict[str, Any]:
    return {
        "results": package["result"],
        "is_cached": package["is_cached"],
        "last_refresh": package["last_refresh"],
        "cache_target_age": package["cache_target_age"],
        "next_allowed_client_refresh": package["next_allowed_client_refresh"],
        "timezone": package["timezone"],
        "query_status": package["query_status"],
        "hogql": None,
        "columns": None,
        "types": None,
        "hasMore": None,
    }


@router.post("/api/projects/{project_id}/query", summary="Calculate a query node", responses=CALCULATION_RESPONSES)
async def run_query(
    request: Request,
    body: QueryRequest,
    access: ProjectAccess = Depends(READ),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    now = get_settings(request).clock.now()
    if body.query.get("kind") == "HogQLQuery":  # SQL: rows straight from the engine, not a cached calculation
        node = read_hogql_node(body.query)
        return await compute_off_loop(request, conn, lambda: run_hogql_query(conn, access.project, node, now))
    if is_actors_query(body.query):  # the people behind a number: a list, not a cached calculation
        access.caller.require_scope("person:read")  # as the legacy people lists do
        node = translate_actors_query(body.query)
        if isinstance(node, InsightActorsNode):
            insight = node
            return await compute_off_loop(
                request, conn, lambda: insight_actors_response(conn, access.project, insight, now)
            )
        funnel = node
        return await compute_off_loop(request, conn, lambda: funnel_actors_response(conn, access.project, funnel, now))
    kind, legacy = translate_query(body.query)
    calc = calculation_for(kind, access.project, legacy, now)
    guard = guard_for(request)
    package = await run_off_loop(
        request,
        guard,
        lambda: serve_calculation(
            conn,
            request.app.state.query_runner,
            calc,
            mode=execution_mode(body.refresh),
            project_id=access.project_id,
            user_id=access.user_id,
            now=now,
            client_query_id=body.client_query_id,
            guard=guard,
        ),
    )
    return query_response(package)


@router.get("/api/projects/{project_id}/query/{query_id}", summary="Poll a background calculation")
def poll_query(
    query_id: str, access: ProjectAccess = Depends(READ), conn: sqlite3.Connection = Depends(get_conn)
) -> dict[str, Any]:
    status = get_query_status(conn, access.project_id, query_id)
    if status is None:
        raise NotFound("Query not found.")
    return {"query_status": query_status_body(status)}


@router.delete("/api/projects/{project_id}/query/{query_id}", status_code=204, summary="Cancel a calculation")
def cancel_query(
    request: Request, query_id: str, access: ProjectAccess = Depends(READ), conn: sqlite3.Connection = Depends(get_conn)
) -> Response:
    if not request.app.state.query_runner.cancel(conn, project_id=access.project_id, query_id=query_id):
        raise NotFound("No running query with that id.")
    return Response(status_code=204)
