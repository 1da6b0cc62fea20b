"""``/api/projects/:id/event_definitions/``: the event names seen in a project, for pickers (read only)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from ..auth import ProjectAccess, project_access
from ..models.common import Paginated
from ..models.definitions import EventDefinition, event_definition_body
from ..store.definitions import find_event_definition, list_event_definitions
from ..web.pagination import paginated
from .common import Conn, PageQuery, found
from .resource_routes import declare_retrieve

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
    rows, total = list_event_definitions(conn, access.project_id, search=search, limit=page.limit, offset=page.offset)
    return paginated(request, page, total, [event_definition_body(row) for row in rows])


declare_retrieve(
    router,
    "/api/projects/{project_id}/event_definitions/{id}",
    reader=Reader,
    model=EventDefinition,
    load=lambda conn, access, id: found(find_event_definition(conn, access.project_id, id)),
    body=lambda conn, row: event_definition_body(row),
    summary="Retrieve an event definition",
)
