"""``insights/:id/sharing/``: the insight's sharing configuration, made on first read with a stable token."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from ...auth import ProjectAccess, project_access
from ...models.insights import SharingConfiguration, SharingUpdate
from ...store.insights import get_or_create_sharing, set_sharing_enabled
from ...web.deps import now_iso
from ..common import Conn, log_change
from .crud import INSIGHTS, load_insight

__all__ = ["router"]

router = APIRouter(tags=["sharing"])
Reader = Annotated[ProjectAccess, Depends(project_access("sharing_configuration:read", missing_status=403))]
Writer = Annotated[ProjectAccess, Depends(project_access("sharing_configuration:write", missing_status=403))]


@router.get(
    "/api/projects/{project_id}/insights/{insight_id:int}/sharing",
    response_model=SharingConfiguration,
    summary="Read the insight's sharing configuration",
)
def get_sharing(request: Request, insight_id: int, access: Reader, conn: Conn) -> Any:
    insight = load_insight(conn, access, insight_id)
    return get_or_create_sharing(conn, project_id=access.project_id, insight_id=insight["id"], now=now_iso(request))


@router.patch(
    "/api/projects/{project_id}/insights/{insight_id:int}/sharing",
    response_model=SharingConfiguration,
    summary="Enable or disable sharing",
)
def update_sharing(request: Request, insight_id: int, body: SharingUpdate, access: Writer, conn: Conn) -> Any:
    insight = load_insight(conn, access, insight_id)
    now = now_iso(request)
    before = get_or_create_sharing(conn, project_id=access.project_id, insight_id=insight["id"], now=now)
    set_sharing_enabled(conn, insight_id=insight["id"], enabled=body.enabled)
    if before["enabled"] != body.enabled:
        activity = "sharing enabled" if body.enabled else "sharing disabled"
        log_change(conn, access, scope=INSIGHTS.scope, item=insight, activity=activity, changes=None, now=now)
    return get_or_create_sharing(conn, project_id=access.project_id, insight_id=insight["id"], now=now)
