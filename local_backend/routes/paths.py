"""``/api/projects/:id/insights/path/`` (GET and POST): the steps people took, as weighted edges."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from ..models.paths import PathsResponse
from ..queries.paths import PathFilter, compute_paths
from ..web.calculation_envelope import calculate, calculation_envelope, read_calculation
from ..web.off_loop import CALCULATION_RESPONSES
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
