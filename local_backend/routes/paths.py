"""``/api/projects/:id/insights/path/`` (GET and POST): the steps people took, as weighted edges."""

from __future__ import annotations

import sqlite3
from typing import Any

from fastapi import APIRouter, Depends, Request

from ..auth import ProjectAccess, project_access
from ..models.paths import PathsResponse
from ..queries.filter_parsing import parse_filter
from ..queries.paths import PathFilter, compute_paths
from ..web.calculation_envelope import PhaseTimer, calculation_envelope
from ..web.deps import get_conn, get_settings
from ..web.filter_params import read_filter_params
from ..web.off_loop import CALCULATION_RESPONSES, compute_off_loop
from ..web.request_bodies import body_openapi

__all__ = ["router"]

router = APIRouter(tags=["insights"], responses=CALCULATION_RESPONSES)


@router.get(
    "/api/projects/{project_id}/insights/path",
    response_model=PathsResponse,
    summary="Paths, the filter in the query string",
)
@router.post(
    "/api/projects/{project_id}/insights/path",
    response_model=PathsResponse,
    summary="Paths: which pages, screens or events follow which, per session",
    openapi_extra=body_openapi(PathFilter, form=False, required=False),
)
async def path_route(
    request: Request,
    access: ProjectAccess = Depends(project_access("insight:read", missing_status=403)),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    timer = PhaseTimer()
    filter = parse_filter(PathFilter, await read_filter_params(request))
    timer.mark("./filter")
    now = get_settings(request).clock.now()
    edges = await compute_off_loop(request, conn, lambda: compute_paths(conn, access.project, filter, now))
    timer.mark("./query")
    return calculation_envelope(request, access, [edge.as_dict() for edge in edges], timer)
