"""``/api/projects/:id/insights/funnel/`` (GET and POST) and the people behind its numbers, ``persons/funnel/``.

Every step object carries ``converted_people_url`` and ``dropped_people_url``: the people route's path with the query
:func:`..queries.funnels.results.people_params` gives (the same filter, dates pinned, and ``funnel_step``).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from fastapi import APIRouter, Depends, Query, Request

from ..auth import ProjectAccess, project_access
from ..errors import ValidationError
from ..limits import MAX_INT64
from ..models.funnels import CorrelationResponse, FunnelPeoplePage, FunnelResponse
from ..queries.filter_parsing import parse_filter
from ..queries.funnels import (
    FunnelFilter,
    check_funnel_step,
    compute_correlation,
    compute_correlation_people,
    compute_funnel,
    compute_funnel_people,
    decode_step_breakdown,
    refuse_trends_people,
)
from ..queries.unsupported_fields import refuse_unsupported_fields
from ..web.calculation_envelope import calculate, calculation_envelope, link_to, read_calculation
from ..web.deps import get_conn, get_settings, now_iso
from ..web.filter_request import read_filter_params
from ..web.off_loop import CALCULATION_RESPONSES, compute_off_loop
from ..web.pagination import Page, page_params
from ..web.query_params import enum_text, integer_text
from .actor_pages import groups_page, people_page
from .calculation_routes import calculation_route
from .common import Conn, InsightReader

__all__ = ["router"]

router = APIRouter(tags=["insights"], responses=CALCULATION_RESPONSES)


@calculation_route(
    router,
    "/api/projects/{project_id}/insights/funnel",
    response_model=FunnelResponse,
    filter_model=FunnelFilter,
    title="Funnel",
    summary="Funnel: how many reached each step, how long it took, and who dropped off",
)
async def funnel_route(request: Request, access: InsightReader, conn: Conn) -> dict[str, Any]:
    calc = await read_calculation(request, FunnelFilter)
    link = link_to(router, "funnel_people_route", access.project_id)
    result = await calculate(
        request, conn, calc, lambda: compute_funnel(conn, access.project, calc.filter, calc.now, link)
    )
    return calculation_envelope(request, access, result, calc.timer)


@router.get(
    "/api/projects/{project_id}/persons/funnel",
    response_model=FunnelPeoplePage,
    summary="The persons who reached or dropped at a step",
)
async def funnel_people_route(
    request: Request,
    # within the funnel's steps, and never 0 or -1 (a 400 otherwise)
    funnel_step: integer_text(-MAX_INT64, MAX_INT64) | None = Query(
        None, description="k: reached step k (1-based); -k: dropped before step k"
    ),
    funnel_step_breakdown: str | None = Query(
        None, description="With a breakdown: the value to list (a text as it is, a list as JSON)"
    ),
    page: Page = Depends(page_params),
    access: ProjectAccess = Depends(project_access("person:read")),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    params = await read_filter_params(request)
    refuse_unsupported_fields("FUNNELS", params)
    filter = parse_filter(FunnelFilter, params)
    refuse_trends_people(filter)
    count = len(filter.steps)
    step = _funnel_step(funnel_step, count)
    value = decode_step_breakdown(funnel_step_breakdown)
    now = get_settings(request).clock.now()

    def people() -> dict[str, Any]:
        actors = compute_funnel_people(conn, access.project, filter, now, step, value)
        if actors.group_keys is not None and filter.aggregation_group_type_index is not None:
            index = filter.aggregation_group_type_index
            return groups_page(request, page, conn, access.project_id, index, actors.group_keys)
        return people_page(request, page, conn, access.project_id, actors.person_ids)

    return await compute_off_loop(request, conn, people)


@calculation_route(
    router,
    "/api/projects/{project_id}/insights/funnel/correlation",
    response_model=CorrelationResponse,
    filter_model=FunnelFilter,
    title="Funnel correlation",
    summary="Events or person properties most associated with converting or dropping off",
)
async def funnel_correlation_route(request: Request, access: InsightReader, conn: Conn) -> dict[str, Any]:
    calc = await read_calculation(request, FunnelFilter)
    link = link_to(router, "funnel_correlation_people_route", access.project_id)
    result = await calculate(
        request, conn, calc, lambda: compute_correlation(conn, access.project, calc.filter, calc.now, calc.params, link)
    )
    return {"result": result, "last_refresh": now_iso(request), "is_cached": False}


# The row of a correlation people URL: read by the route as text, whatever it holds ("[beta] signup" is an event name)
CORRELATION_ROW_PARAMS = ("funnel_correlation_value", "funnel_correlation_person_converted")


@router.get(
    "/api/projects/{project_id}/persons/funnel/correlation",
    response_model=FunnelPeoplePage,
    summary="The persons behind one correlation count",
)
async def funnel_correlation_people_route(
    request: Request,
    funnel_correlation_value: str = Query(..., description="The event name (or property::value) of the row"),
    funnel_correlation_person_converted: enum_text("true", "false", empty=False) | None = Query(
        "true", description="true: converted; false: dropped off"
    ),
    page: Page = Depends(page_params),
    access: ProjectAccess = Depends(project_access("person:read")),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    params = await read_filter_params(request, CORRELATION_ROW_PARAMS)
    refuse_unsupported_fields("FUNNELS", params)
    filter = parse_filter(FunnelFilter, params)
    if funnel_correlation_person_converted.lower() not in ("true", "false"):
        raise ValidationError("Use true or false.", attr="funnel_correlation_person_converted")
    converted = funnel_correlation_person_converted.lower() == "true"
    now = get_settings(request).clock.now()

    def people() -> dict[str, Any]:
        value = funnel_correlation_value
        actors = compute_correlation_people(conn, access.project, filter, now, params, value, converted)
        return people_page(request, page, conn, access.project_id, actors)

    return await compute_off_loop(request, conn, people)


def _funnel_step(text: str | None, steps: int) -> int:
    try:
        step = int(text) if text not in (None, "") else 1
    except ValueError:
        raise ValidationError("funnel_step must be an integer.", attr="funnel_step") from None
    return check_funnel_step(step, steps)
