"""``/api/projects/:id/insights/path/`` (GET and POST): the steps people took, as weighted edges; and who went
through a node or an edge of them, ``persons/paths/`` (:mod:`..queries.paths.people`)."""

from __future__ import annotations

import sqlite3
from typing import Any

from fastapi import APIRouter, Depends, Query, Request

from ..auth import ProjectAccess, project_access
from ..models.paths import PathsResponse
from ..models.people import ActorsPage
from ..queries.filter_parsing import parse_filter
from ..queries.paths import PathFilter, compute_paths, path_people
from ..queries.unsupported_fields import refuse_unsupported_fields
from ..web.calculation_envelope import calculate, calculation_envelope, read_calculation
from ..web.deps import get_conn, get_settings
from ..web.filter_request import read_filter_params
from ..web.off_loop import CALCULATION_RESPONSES, compute_off_loop
from ..web.pagination import Page, page_params
from .actor_pages import people_page
from .calculation_routes import calculation_route
from .common import Conn, InsightReader

__all__ = ["router"]

router = APIRouter(tags=["insights"], responses=CALCULATION_RESPONSES)


@calculation_route(
    router,
    "/api/projects/{project_id}/insights/path",
    response_model=PathsResponse,
    filter_model=PathFilter,
    title="Paths",
    summary="Paths: which pages, screens or events follow which, per session",
    body_required=False,
)
async def path_route(request: Request, access: InsightReader, conn: Conn) -> dict[str, Any]:
    calc = await read_calculation(request, PathFilter)
    edges = await calculate(request, conn, calc, lambda: compute_paths(conn, access.project, calc.filter, calc.now))
    return calculation_envelope(request, access, [edge.as_dict() for edge in edges], calc.timer)


# The node keys, read by the route as text (a path item may well begin with "[")
PATH_KEYS = ("path_start_key", "path_end_key", "path_dropoff_key")


@router.get(
    "/api/projects/{project_id}/persons/paths",
    response_model=ActorsPage,
    summary="The persons who went through a node or an edge of a paths result",
)
async def path_people_route(
    request: Request,
    path_start_key: str | None = Query(None, description='A node, as the edges name it ("1_/home")'),
    path_end_key: str | None = Query(None, description="A node: with path_start_key, the edge's target"),
    path_dropoff_key: str | None = Query(None, description="A node where paths ended (alone)"),
    page: Page = Depends(page_params),
    access: ProjectAccess = Depends(project_access("person:read")),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    params = await read_filter_params(request, PATH_KEYS)
    refuse_unsupported_fields("PATHS", params)
    filter = parse_filter(PathFilter, params)
    now = get_settings(request).clock.now()

    def people() -> dict[str, Any]:
        actors = path_people(
            conn,
            access.project,
            filter,
            now,
            start_key=path_start_key or None,
            end_key=path_end_key or None,
            dropoff_key=path_dropoff_key or None,
        )
        return people_page(request, page, conn, access.project_id, actors)

    return await compute_off_loop(request, conn, people)
