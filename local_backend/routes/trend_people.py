"""The people behind the numbers of the trend endpoint's three kinds: ``persons/trends/``, ``persons/stickiness/``
and ``persons/lifecycle/``.

A trend point, a stickiness bucket and a lifecycle interval each carry the URL of their people (``persons_urls``,
one per point; ``persons`` for an aggregated display's one value): the route's path with the query the
calculation gives (:mod:`..queries.trends.actors`, :mod:`..queries.stickiness.links`,
:mod:`..queries.lifecycle.links`). Each answers PostHog's legacy actors page, ``{results: [{people, count}],
count, next, previous}``, paged by ``limit`` and ``offset``; the people are sorted by person id (groups by key).
"""

from __future__ import annotations

import sqlite3
from typing import Any
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Depends, Query, Request

from ..auth import ProjectAccess, project_access
from ..limits import MAX_INT64
from ..models.people import ActorsPage
from ..queries.filter_parsing import parse_filter
from ..queries.lifecycle import LifecycleFilter, lifecycle_people
from ..queries.stickiness import StickinessFilter, StickinessPoint, stickiness_people
from ..queries.trends import TrendPoint, TrendsFilter, parse_breakdown_offset, parse_series_range, trend_actors
from ..queries.unsupported_fields import refuse_unsupported_fields
from ..web.deps import get_conn, get_settings
from ..web.filter_request import read_filter_params
from ..web.off_loop import CALCULATION_RESPONSES, compute_off_loop
from ..web.pagination import Page, page_params, parse_int_param
from ..web.query_params import enum_text, integer_text
from .actor_pages import actors_page

__all__ = ["router"]

router = APIRouter(tags=["insights"], responses=CALCULATION_RESPONSES)
Reader = Depends(project_access("person:read"))

# Parameters naming the point, read by the routes as text (an event named "[beta]" is no JSON)
POINT_PARAMS = (
    "entity_id",
    "entity_type",
    "entity_math",
    "entity_order",
    "breakdown_value",
    "series_date_from",
    "series_date_to",
    "breakdown_offset",
    "stickiness_days",
    "target_date",
    "lifecycle_type",
)


def _order(text: str | None) -> int | None:
    if text in (None, ""):
        return None
    return parse_int_param(text, name="entity_order", default=0, minimum=0, maximum=MAX_INT64)


@router.get(
    "/api/projects/{project_id}/persons/trends",
    response_model=ActorsPage,
    summary="The persons (or groups) counted at one point of a trend series",
)
async def trend_people_route(
    request: Request,
    entity_id: str | None = Query(None, description="The series' event name or action id"),
    entity_type: enum_text("events", "actions") | None = Query(None, description="events or actions"),
    entity_math: str | None = Query(None, description="The series' math (total when absent)"),
    entity_order: integer_text(0, MAX_INT64) | None = Query(None, description="The series' position in the filter"),
    breakdown_value: str | None = Query(None, description="A broken-down series' value, as the series shows it"),
    series_date_from: str | None = Query(None, description="Start of the range breakdown values were ranked in"),
    series_date_to: str | None = Query(None, description="End of the range breakdown values were ranked in"),
    breakdown_offset: integer_text(0, 10_000) | None = Query(None, description="The page of breakdown values"),
    page: Page = Depends(page_params),
    access: ProjectAccess = Reader,
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    params = await read_filter_params(request, POINT_PARAMS)
    refuse_unsupported_fields("TRENDS", params)
    filter = parse_filter(TrendsFilter, params)
    now = get_settings(request).clock.now()
    tz = ZoneInfo(access.project.get("timezone") or "UTC")
    point = TrendPoint(
        entity_order=_order(entity_order),
        entity_id=entity_id,
        entity_type=entity_type,
        entity_math=entity_math,
        breakdown_value=breakdown_value,
        series_range=parse_series_range(series_date_from, series_date_to, tz, now),
        breakdown_offset=parse_breakdown_offset(breakdown_offset),
    )

    def people() -> dict[str, Any]:
        found = trend_actors(conn, access.project, filter, now, point)
        return actors_page(request, page, conn, access.project_id, found.actors, found.group_type_index)

    return await compute_off_loop(request, conn, people)


@router.get(
    "/api/projects/{project_id}/persons/stickiness",
    response_model=ActorsPage,
    summary="The persons (or groups) of one stickiness bucket",
)
async def stickiness_people_route(
    request: Request,
    stickiness_days: integer_text(1, MAX_INT64) = Query(..., description="The bucket: active in this many intervals"),
    entity_id: str | None = Query(None, description="The series' event name or action id"),
    entity_order: integer_text(0, MAX_INT64) | None = Query(None, description="The series' position in the filter"),
    breakdown_value: str | None = Query(None, description="A broken-down series' value, as the series shows it"),
    breakdown_offset: integer_text(0, 10_000) | None = Query(None, description="The page of breakdown values"),
    page: Page = Depends(page_params),
    access: ProjectAccess = Reader,
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    params = await read_filter_params(request, POINT_PARAMS)
    refuse_unsupported_fields("STICKINESS", params)
    filter = parse_filter(StickinessFilter, params)
    now = get_settings(request).clock.now()
    point = StickinessPoint(
        stickiness_days=parse_int_param(
            stickiness_days, name="stickiness_days", default=1, minimum=1, maximum=MAX_INT64
        ),
        entity_order=_order(entity_order),
        entity_id=entity_id,
        breakdown_value=breakdown_value,
        breakdown_offset=parse_breakdown_offset(breakdown_offset),
    )

    def people() -> dict[str, Any]:
        found = stickiness_people(conn, access.project, filter, now, point)
        return actors_page(request, page, conn, access.project_id, found.actors, found.group_type_index)

    return await compute_off_loop(request, conn, people)


@router.get(
    "/api/projects/{project_id}/persons/lifecycle",
    response_model=ActorsPage,
    summary="The persons (or groups) of one lifecycle status in one interval",
)
async def lifecycle_people_route(
    request: Request,
    target_date: str = Query(..., description="The interval's start, as the series' days show it"),
    lifecycle_type: enum_text("new", "returning", "resurrecting", "dormant", empty=False) = Query(
        ..., description="new, returning, resurrecting or dormant"
    ),
    page: Page = Depends(page_params),
    access: ProjectAccess = Reader,
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    params = await read_filter_params(request, POINT_PARAMS)
    refuse_unsupported_fields("LIFECYCLE", params)
    filter = parse_filter(LifecycleFilter, params)
    now = get_settings(request).clock.now()

    def people() -> dict[str, Any]:
        actors = lifecycle_people(
            conn, access.project, filter, now, target_date=target_date, lifecycle_type=lifecycle_type
        )
        return actors_page(request, page, conn, access.project_id, actors, filter.aggregation_group_type_index)

    return await compute_off_loop(request, conn, people)
