"""Insight actions: viewed, my_last_viewed, cancel, and the activity of one or all insights."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response

from ...auth import ProjectAccess, project_access
from ...models.common import ActivityPage
from ...models.insights import CancelRequest, InsightBasic, insight_basic_body
from ...store.insights import last_viewed_insights, record_view, with_related
from ...web.deps import now_iso
from ..common import Conn
from ..resource_routes import declare_soft_deleted_item
from .crud import INSIGHTS, Writer, load_insight

__all__ = ["router", "LAST_VIEWED_COUNT"]

router = APIRouter(tags=["insights"])
Reader = Annotated[ProjectAccess, Depends(project_access("insight:read", missing_status=403))]
ActivityReader = Annotated[ProjectAccess, Depends(project_access("activity_log:read", missing_status=403))]
LAST_VIEWED_COUNT = 5


@router.get(
    "/api/projects/{project_id}/insights/my_last_viewed",
    response_model=list[InsightBasic],
    summary="The caller's last 5 viewed insights, most recent first",
)
def my_last_viewed(access: Reader, conn: Conn) -> Any:
    rows = last_viewed_insights(conn, project_id=access.project_id, user_id=access.user_id, limit=LAST_VIEWED_COUNT)
    return [insight_basic_body(with_related(conn, row)) for row in rows]


@router.get(
    "/api/projects/{project_id}/insights/activity", response_model=ActivityPage, summary="Activity of all insights"
)
def all_insights_activity(request: Request, access: ActivityReader, conn: Conn) -> Any:
    return INSIGHTS.activity(request, conn, access, None)


@router.post(
    "/api/projects/{project_id}/insights/cancel",
    response_class=Response,
    responses={200: {"description": "Cancelled (or nothing was running); no body"}},
    summary="Cancel a running calculation by client_query_id",
)
def cancel_calculation(request: Request, body: CancelRequest, access: Reader, conn: Conn) -> Response:
    request.app.state.query_runner.cancel(conn, project_id=access.project_id, query_id=body.client_query_id)
    return Response(status_code=200)


@router.post(
    "/api/projects/{project_id}/insights/{id:int}/viewed",
    response_class=Response,
    responses={200: {"description": "Recorded; no body"}},
    summary="Record that the caller viewed it",
)
def mark_viewed(request: Request, id: int, access: Reader, conn: Conn) -> Response:
    insight = load_insight(conn, access, id)
    now = now_iso(request)
    record_view(conn, project_id=access.project_id, user_id=access.user_id, insight_id=insight["id"], now=now)
    return Response(status_code=200)


declare_soft_deleted_item(
    router,
    "/api/projects/{project_id}/insights/{id:int}",
    INSIGHTS,
    noun="insight",
    writer=Writer,
    activity_reader=ActivityReader,
    load=lambda conn, access, id: load_insight(conn, access, id, include_deleted=True),
    id_type=int,
)
