"""``POST /api/projects/:id/insights/timing/``: clients report how long an insight took to show.

The report is any JSON object (PostHog's web app sends ``{insight, ms, ...}``), stored as sent, up to
:data:`MAX_TIMING_REPORT_BYTES`; the answer is 200 with no body.
"""

from __future__ import annotations

import json
import sqlite3

from fastapi import APIRouter, Depends, Request, Response

from ..auth import ProjectAccess, project_access
from ..errors import PayloadTooLarge
from ..store.insight_timings import add_insight_timing
from ..web.deps import get_conn, now_iso
from ..web.request_bodies import read_body

__all__ = ["router", "MAX_TIMING_REPORT_BYTES"]

router = APIRouter(tags=["insights"])
MAX_TIMING_REPORT_BYTES = 16 * 1024


@router.post(
    "/api/projects/{project_id}/insights/timing",
    status_code=200,
    response_class=Response,
    summary="Store a client's timing report for an insight (any JSON object)",
    # an empty body is an empty report
    openapi_extra={"requestBody": {"required": False, "content": {"application/json": {"schema": {"type": "object"}}}}},
)
async def timing_route(
    request: Request,
    access: ProjectAccess = Depends(project_access("insight:read", missing_status=403)),
    conn: sqlite3.Connection = Depends(get_conn),
) -> Response:
    report = await read_body(request)
    report.pop("personal_api_key", None)
    if len(json.dumps(report, separators=(",", ":"))) > MAX_TIMING_REPORT_BYTES:
        raise PayloadTooLarge(f"A timing report may hold at most {MAX_TIMING_REPORT_BYTES} bytes of JSON.")
    add_insight_timing(conn, project_id=access.project_id, user_id=access.user_id, report=report, now=now_iso(request))
    return Response(status_code=200)
