"""``/api/projects/:id/event_definitions/``: the event names seen in a project, for pickers (read only)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from ..auth import ProjectAccess, project_access
from ..models.common import Paginated
from ..models.definitions import EventDefinition, event_definition_body
from ..store.definitions import find_event_definition, list_event_definitions
from ..web.deps import get_settings
from ..web.pagination import paginated
from .common import Conn, PageQuery, found

__all__ = ["router"]

router = APIRouter(tags=["definitions"])
Reader = Annotated[ProjectAccess, Depends(project_access("event_definition:read"))]


@router.get(
    "/api/projects/{project_id}/event_definitions",
    response_model=Paginated[EventDefinition],
    summary="List event definitions, highest volume first, then by name",
)
def list_event_definitions_route(
    request: Request,
    access: Reader,
    page: PageQuery,
    conn: Conn,
    search: str | None = Query(None, description="Every whitespace-separated term must occur in the name"),
) -> dict[str, Any]:
    now = get_settings(request).clock.now()
    rows, total = list_event_definitions(
        conn, access.project_id, search=search, limit=page.limit, offset=page.offset, now=now
    )
    return paginated(request, page, total, [event_definition_body(row) for row in rows])


@router.get(
    "/api/projects/{project_id}/event_definitions/{id}",
    response_model=EventDefinition,
    summary="Retrieve an event definition",
    name="retrieve /api/projects/{project_id}/event_definitions/{id}",
)
def retrieve_event_definition_route(request: Request, id: str, access: Reader, conn: Conn) -> dict[str, Any]:
    now = get_settings(request).clock.now()
    return event_definition_body(found(find_event_definition(conn, access.project_id, id, now)))
