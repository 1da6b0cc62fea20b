"""``/api/projects/:id/materialized_properties/``: properties promoted to indexed columns (PostHog's ``mat_*``).

``GET`` lists them with why (by hand or automatic, and recent uses) and the most-used properties; ``POST``
materializes one (its backfill runs after the response, in batches: the list shows ``backfilling`` until
calculations can read it); ``DELETE ?property=&type=`` drops one; ``POST .../auto/`` applies the automatic
choice. Reading needs ``insight:read``; changes need ``insight:write``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, BackgroundTasks, Depends, Query, Request, Response

from ..auth import ProjectAccess, project_access
from ..clock import format_instant
from ..models.common import ErrorResponse
from ..models.materialized import (
    CLAIMED_KEY_PATTERN,
    AutoRequest,
    AutoResult,
    MaterializedList,
    MaterializedProperty,
    MaterializeRequest,
)
from ..store.engine.choice import open_database
from ..store.engine.interface import EventEngine
from ..store.materialized import backfill_pending, check_key, drop_materialized, list_materialized, materialize
from ..store.property_usage import auto_materialize, most_used
from .common import Conn

__all__ = ["router"]

router = APIRouter(tags=["materialized properties"])
Reader = Annotated[ProjectAccess, Depends(project_access("insight:read"))]
Writer = Annotated[ProjectAccess, Depends(project_access("insight:write"))]
PATH = "/api/projects/{project_id}/materialized_properties"
ERRORS: dict[int | str, dict[str, Any]] = {400: {"model": ErrorResponse}, 404: {"model": ErrorResponse}}


def _backfill_pending(db_path: str, engine: EventEngine) -> None:
    """Fill every column still backfilling, on a connection of its own (after the response is sent)."""
    conn = open_database(db_path, engine)
    try:
        backfill_pending(conn)
    finally:
        conn.close()


def _one(rows: list[dict[str, Any]], kind: str, key: str) -> dict[str, Any]:
    return next(row for row in rows if row["type"] == kind and row["property"] == key)


@router.get(PATH, response_model=MaterializedList, summary="List materialized properties and the most used ones")
def list_route(request: Request, access: Reader, conn: Conn) -> dict[str, Any]:
    settings = request.app.state.settings
    today = settings.clock.now().date()
    used = most_used(conn, access.project_id, today, max(settings.materialize_auto_limit, 10))
    return {
        "results": list_materialized(conn, access.project_id),
        "most_used": [{"type": kind, "property": key, "uses": uses} for kind, key, uses in used],
        "auto_limit": settings.materialize_auto_limit,
    }


@router.post(
    PATH,
    response_model=MaterializedProperty,
    status_code=201,
    responses=ERRORS,
    summary="Materialize a property: add its column and index, then backfill existing rows in batches",
)
def create_route(
    request: Request, body: MaterializeRequest, access: Writer, conn: Conn, tasks: BackgroundTasks
) -> dict[str, Any]:
    key = check_key(body.property)
    now = format_instant(request.app.state.settings.clock.now())
    materialize(conn, access.project_id, key, kind=body.type, now=now)
    tasks.add_task(_backfill_pending, str(request.app.state.settings.db_path), request.app.state.engine)
    return _one(list_materialized(conn, access.project_id), body.type, key)


@router.post(
    PATH + "/auto",
    response_model=AutoResult,
    responses=ERRORS,
    summary="Keep the properties recent queries used most materialized (up to the limit)",
)
def auto_route(
    request: Request, access: Writer, conn: Conn, tasks: BackgroundTasks, body: AutoRequest | None = None
) -> dict[str, Any]:
    settings = request.app.state.settings
    limit = settings.materialize_auto_limit if body is None or body.limit is None else body.limit
    now = settings.clock.now()
    choice = auto_materialize(conn, access.project_id, limit=limit, today=now.date(), now=format_instant(now))
    tasks.add_task(_backfill_pending, str(settings.db_path), request.app.state.engine)
    return {
        "added": [{"type": kind, "property": key, "uses": 0} for kind, key in choice.added],
        "dropped": [{"type": kind, "property": key, "uses": 0} for kind, key in choice.dropped],
        "results": list_materialized(conn, access.project_id),
    }


@router.delete(
    PATH,
    status_code=204,
    responses=ERRORS,
    summary="Drop a materialized property (its column goes when no project uses it)",
)
def delete_route(
    access: Writer,
    conn: Conn,
    property: str = Query(  # noqa: A002
        min_length=1, max_length=200, pattern=CLAIMED_KEY_PATTERN, description="The property key"
    ),
    type: str = Query("event", pattern="^(event|person)$", description="event or person"),  # noqa: A002
) -> Response:
    drop_materialized(conn, access.project_id, check_key(property), kind=type)
    return Response(status_code=204)
