"""``/api/projects/:id/insights/retention/`` (GET and POST) and the people of its cells, ``persons/retention/``.

Every row and cell of a retention result carries a ``people_url``: the people route's path with the query
:func:`..queries.retention.compute.people_params` gives (the same filter, ``selected_interval`` = the cohort
and, for a cell, ``selected_offset`` = the period after it; broken down, ``breakdown_value`` = the row's value).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from fastapi import APIRouter, Depends, Query, Request

from ..auth import ProjectAccess, project_access
from ..limits import MAX_INT64
from ..models.persons import person_body
from ..models.retention import RetentionPeoplePage, RetentionResponse
from ..queries.filter_parsing import parse_filter
from ..queries.retention import RetentionFilter, compute_retention, compute_retention_people
from ..queries.unsupported_fields import refuse_unsupported_fields
from ..store.person_lookup import persons_by_id
from ..web.calculation_envelope import calculate, calculation_envelope, link_to, read_calculation
from ..web.deps import get_conn, get_settings
from ..web.filter_request import read_filter_params
from ..web.off_loop import CALCULATION_RESPONSES, compute_off_loop
from ..web.pagination import Page, page_params, paginated, parse_int_param
from ..web.query_params import integer_text
from .calculation_routes import calculation_route
from .common import Conn, InsightReader

__all__ = ["router"]

router = APIRouter(tags=["insights"], responses=CALCULATION_RESPONSES)


@calculation_route(
    router,
    "/api/projects/{project_id}/insights/retention",
    response_model=RetentionResponse,
    filter_model=RetentionFilter,
    title="Retention",
    summary="Retention: cohorts by period and how many of each came back later",
    body_required=False,
    response_model_exclude_unset=True,
)
async def retention_route(request: Request, access: InsightReader, conn: Conn) -> dict[str, Any]:
    calc = await read_calculation(request, RetentionFilter)
    link = link_to(router, "retention_people_route", access.project_id)
    rows = await calculate(
        request, conn, calc, lambda: compute_retention(conn, access.project, calc.filter, calc.now, link)
    )
    return calculation_envelope(request, access, rows, calc.timer)


@router.get(
    "/api/projects/{project_id}/persons/retention",
    response_model=RetentionPeoplePage,
    summary="The people of one retention cohort or cell",
)
async def retention_people_route(
    request: Request,
    # at most the filter's total_intervals - 1 (a 400 beyond)
    selected_interval: integer_text(0, MAX_INT64) | None = Query(None, description="The cohort: 0 is the first row"),
    selected_offset: integer_text(0, MAX_INT64) | None = Query(
        None, description="Only those back this many periods after (0: all)"
    ),
    breakdown_value: str | None = Query(
        None, description="A broken-down result's value (a row's breakdown_value as text): only that value's cohort"
    ),
    page: Page = Depends(page_params),
    access: ProjectAccess = Depends(project_access("person:read")),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    params = await read_filter_params(request)
    refuse_unsupported_fields("RETENTION", params)
    filter = parse_filter(RetentionFilter, params)
    last = filter.total_intervals - 1
    cohort = parse_int_param(selected_interval, name="selected_interval", default=0, minimum=0, maximum=last)
    offset = (
        parse_int_param(selected_offset, name="selected_offset", default=0, minimum=0, maximum=last - cohort)
        if selected_offset not in (None, "")
        else None
    )
    now = get_settings(request).clock.now()

    def people() -> tuple[int, list[dict[str, Any]]]:
        ordered = compute_retention_people(conn, access.project, filter, now, cohort, offset, breakdown_value)
        window = ordered[page.offset : page.offset + page.limit]
        persons = persons_by_id(conn, access.project_id, [person_id for person_id, _ in window])
        found = [
            {"person": person_body(persons[person_id]), "appearances": appearances}
            for person_id, appearances in window
            if person_id in persons
        ]
        return len(ordered), found

    total, results = await compute_off_loop(request, conn, people)
    envelope = paginated(request, page, total, results)
    return {"count": envelope["count"], "next": envelope["next"], "previous": envelope["previous"], "result": results}
