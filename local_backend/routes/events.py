"""``/api/projects/:id/events/``: raw events, newest first, and one event by its uuid; ``events/values/``: the
values an event property has taken (suggestions for a filter's value field).

Paging follows PostHog: ``next`` repeats the request with ``before`` set to the last event's timestamp. Events
that share that timestamp are not skipped: the link also carries ``before_id``, the position of the last event
among them (the event store's row key). The events come from the project's event engine, SQLite or ClickHouse.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Depends, Query, Request
from pydantic import WithJsonSchema

from ..auth import ProjectAccess, project_access
from ..clock import format_instant
from ..config import MAX_PAGE_SIZE
from ..errors import ValidationError
from ..models.persons import Event, EventPage, PropertyValue
from ..queries.analysis_inputs import parse_point
from ..queries.base_filter import compiler_for
from ..queries.person_list import find_person
from ..store.event_rows import to_micros
from ..store.listed_events import find_event, list_events
from ..store.property_values import event_property_values
from ..web.deps import get_settings
from ..web.pagination import parse_int_param, replace_query, request_url
from ..web.query_params import integer_text, parse_filter_param
from .common import Conn, found

__all__ = ["router"]

router = APIRouter(tags=["events"])
Reader = Annotated[ProjectAccess, Depends(project_access("query:read"))]
DEFAULT_LIMIT = 100


@dataclass(frozen=True)
class _Selection:
    """The filters as conditions over ``e`` in the event store's dialect, and the page cursor."""

    where: list[tuple[str, list[Any]]]
    before: int | None = None
    before_key: int | None = None


def _conditions(
    request: Request, conn: sqlite3.Connection, access: ProjectAccess, params: dict[str, str | None]
) -> _Selection | None:
    """The filters; None when they can match nothing (an unknown person)."""
    where: list[tuple[str, list[Any]]] = []
    if params["event"]:
        where.append(("e.event = ?", [params["event"]]))
    if params["distinct_id"] is not None:
        where.append(("e.distinct_id = ?", [params["distinct_id"]]))
    if params["person_id"] is not None:
        person = find_person(conn, access.project_id, params["person_id"])
        if person is None:
            return None
        where.append(("e.person_id = ?", [person["id"]]))
    tz = ZoneInfo(access.project["timezone"])
    now = get_settings(request).clock.now()
    if params["after"]:
        where.append(("e.timestamp > ?", [_instant(params["after"], tz, now, "after")]))
    before: int | None = None
    before_key: int | None = None
    if params["before"]:
        before = _instant(params["before"], tz, now, "before")
        if params["before_id"] is not None:
            before_key = parse_int_param(params["before_id"], name="before_id", default=0, minimum=0, maximum=2**63 - 1)
    elif params["before_id"] is not None:
        raise ValidationError("before_id only applies with before.", attr="before_id")
    properties = parse_filter_param(params["properties"], name="properties")
    if properties is not None:
        where.append(compiler_for(conn, access.project).compile(properties, "properties"))
    return _Selection(where, before, before_key)


def _instant(text: str, tz: ZoneInfo, now: datetime, attr: str) -> int:
    """An ISO or relative time as UTC microseconds; one too far from today to convert is a 400."""
    try:
        return to_micros(parse_point(text, tz=tz, now=now, attr=attr))
    except (OverflowError, ValueError):
        raise ValidationError(f"'{attr}' is out of range.", attr=attr) from None


@router.get("/api/projects/{project_id}/events", response_model=EventPage, summary="List events, newest first")
def list_events_route(
    request: Request,
    access: Reader,
    conn: Conn,
    event: str | None = Query(None, description="Only events of this name"),
    person_id: str | None = Query(None, description="Only this person's events (id or uuid)"),
    distinct_id: str | None = Query(None, description="Only events sent with this distinct id"),
    after: str | None = Query(None, description="Only events after this time (ISO, or relative like -7d)"),
    before: str | None = Query(None, description="Only events before this time (ISO, or relative like -1d)"),
    before_id: str | None = Query(None, description="With before: also events at that time listed after this one"),
    properties: str | None = Query(None, description="JSON list of event or person property filters"),
    limit: integer_text(1, MAX_PAGE_SIZE) | None = Query(None, description="How many events (default 100)"),
) -> dict[str, Any]:
    settings = get_settings(request)
    size = parse_int_param(limit, name="limit", default=DEFAULT_LIMIT, minimum=1, maximum=settings.max_page_size)
    params = {
        "event": event,
        "person_id": person_id,
        "distinct_id": distinct_id,
        "after": after,
        "before": before,
        "before_id": before_id,
        "properties": properties,
    }
    selection = _conditions(request, conn, access, params)
    events = (
        list_events(
            conn,
            access.project_id,
            where=selection.where,
            limit=size + 1,
            before=selection.before,
            before_key=selection.before_key,
        )
        if selection is not None
        else []
    )
    next_url = None
    if len(events) > size:
        events = events[:size]
        last = events[-1]
        next_url = replace_query(
            request_url(request), before=format_instant(last["moment"]), before_id=last["row_id"], limit=size
        )
    return {"next": next_url, "results": [Event(**event).model_dump() for event in events]}


@router.get(
    "/api/projects/{project_id}/events/values",
    response_model=list[PropertyValue],
    summary="Values of an event property",
)
def property_values_route(
    key: Annotated[str, Query(description="The event property"), WithJsonSchema({"type": "string", "minLength": 1})],
    access: Reader,
    conn: Conn,
    value: str | None = Query(None, description="Only values containing this (case-insensitive)"),
    event_name: list[str] | None = Query(None, description="Only on these events (repeat the parameter)"),
) -> list[dict[str, Any]]:
    # declared before /{event_id}, which would take "values" for an event's uuid
    if not key:
        raise ValidationError("key is required: the property whose values to list.", attr="key")
    found = event_property_values(conn, access.project_id, key, event_names=event_name or (), search=value or None)
    return [{"name": item} for item in found]


@router.get(
    "/api/projects/{project_id}/events/{event_id}", response_model=Event, summary="Retrieve an event by its uuid"
)
def retrieve_event(event_id: str, access: Reader, conn: Conn) -> dict[str, Any]:
    return Event(**found(find_event(conn, access.project_id, event_id))).model_dump()
