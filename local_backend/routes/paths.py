"""``/api/projects/:id/insights/path/`` (GET and POST): the steps people took, as weighted edges."""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from fastapi import APIRouter, Depends, Request

from ..auth import ProjectAccess, project_access
from ..filter_params import parse_filter, read_filter_params
from ..models.paths import PathFilter, PathsResponse
from ..queries.paths import compute_paths
from ..request_bodies import body_openapi
from ..storage import get_conn, get_settings, now_iso

__all__ = ["router"]

router = APIRouter(tags=["insights"])


@router.get(
    "/api/projects/{project_id}/insights/path",
    response_model=PathsResponse,
    summary="Paths, the filter in the query string",
)
@router.post(
    "/api/projects/{project_id}/insights/path",
    response_model=PathsResponse,
    summary="Paths: which pages, screens or events follow which, per session",
    openapi_extra=body_openapi(PathFilter, form=False),
)
async def path_route(
    request: Request,
    access: ProjectAccess = Depends(project_access("insight:read", missing_status=403)),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    started = time.perf_counter()
    filter = parse_filter(PathFilter, await read_filter_params(request))
    parsed = time.perf_counter()
    edges = compute_paths(conn, access.project, filter, get_settings(request).clock.now())
    computed = time.perf_counter()
    return {
        "result": [edge.as_dict() for edge in edges],
        "timezone": access.project.get("timezone") or "UTC",
        "last_refresh": now_iso(request),
        "is_cached": False,
        "timings": [
            {"k": "./filter", "t": parsed - started},
            {"k": "./query", "t": computed - parsed},
            {"k": "./format", "t": time.perf_counter() - computed},
        ],
    }
