"""``/api/projects/:id/property_definitions/``: the property keys seen in a project, by kind (read only).

``event_names`` marks (and orders first) the keys found on a sample of the newest events of those names;
``filter_by_event_names=true`` keeps only them.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from ..auth import ProjectAccess, project_access
from ..errors import ValidationError
from ..models.common import Paginated
from ..models.definitions import PropertyDefinition, property_definition_body
from ..store.definitions import (
    PROPERTY_KINDS,
    find_property_definition,
    list_property_definitions,
    properties_seen_on_events,
)
from ..web.pagination import paginated, parse_int_param
from ..web.query_params import BOOL_TEXT, JSON_TEXT, enum_text, integer_text, parse_bool_param, parse_json_list_param
from .common import Conn, PageQuery, found
from .resource_routes import declare_retrieve

__all__ = ["router"]

router = APIRouter(tags=["definitions"])
Reader = Annotated[ProjectAccess, Depends(project_access("property_definition:read"))]
MAX_GROUP_TYPE_INDEX = 4


def _kind(value: str | None) -> str:
    kind = (value or "event").strip().lower()
    if kind not in PROPERTY_KINDS:
        raise ValidationError(f"type must be one of {', '.join(PROPERTY_KINDS)}.", attr="type")
    return kind


@router.get(
    "/api/projects/{project_id}/property_definitions",
    response_model=Paginated[PropertyDefinition],
    summary="List property definitions of one kind (event, person or group)",
)
def list_property_definitions_route(
    request: Request,
    access: Reader,
    page: PageQuery,
    conn: Conn,
    type: enum_text(*PROPERTY_KINDS) | None = Query(None, description="event (default), person or group"),
    group_type_index: integer_text(0, MAX_GROUP_TYPE_INDEX) | None = Query(
        None, description="0-4; required with type=group"
    ),
    search: str | None = Query(None, description="Every whitespace-separated term must occur in the name"),
    is_numerical: BOOL_TEXT | None = Query(None, description="true: numeric properties only; false: the others"),
    event_names: JSON_TEXT | None = Query(None, description='JSON list of event names, e.g. ["$pageview"]'),
    filter_by_event_names: BOOL_TEXT | None = Query(None, description="true: only properties seen on event_names"),
    properties: str | None = Query(None, description="Comma-separated property names to return"),
    excluded_properties: JSON_TEXT | None = Query(None, description="JSON list of property names to leave out"),
) -> dict[str, Any]:
    kind = _kind(type)
    index: int | None = None
    if kind == "group":
        if group_type_index in (None, ""):
            raise ValidationError("group_type_index is required with type=group.", attr="group_type_index")
        index = parse_int_param(
            group_type_index, name="group_type_index", default=0, minimum=0, maximum=MAX_GROUP_TYPE_INDEX
        )
    elif group_type_index not in (None, ""):
        raise ValidationError("group_type_index only applies to type=group.", attr="group_type_index")
    names = parse_json_list_param(event_names, name="event_names")
    only_seen = parse_bool_param(filter_by_event_names, name="filter_by_event_names") or False
    if only_seen and not names:
        raise ValidationError("filter_by_event_names needs event_names.", attr="filter_by_event_names")
    seen = properties_seen_on_events(conn, access.project_id, names) if names and kind == "event" else None
    if names and kind != "event":
        seen = set()  # person and group properties are not carried by events
    wanted = [name.strip() for name in (properties or "").split(",") if name.strip()] or None
    rows, total = list_property_definitions(
        conn,
        access.project_id,
        kind=kind,
        group_type_index=index,
        search=search,
        is_numerical=parse_bool_param(is_numerical, name="is_numerical"),
        names=wanted,
        excluded=parse_json_list_param(excluded_properties, name="excluded_properties") or [],
        seen=seen,
        only_seen=only_seen,
        limit=page.limit,
        offset=page.offset,
    )
    return paginated(request, page, total, [property_definition_body(row) for row in rows])


declare_retrieve(
    router,
    "/api/projects/{project_id}/property_definitions/{id}",
    reader=Reader,
    model=PropertyDefinition,
    load=lambda conn, access, id: found(find_property_definition(conn, access.project_id, id)),
    body=lambda conn, row: property_definition_body(row),
    summary="Retrieve a property definition",
)
