"""``insights/:id/sharing/``: the insight's sharing configuration, made on first read with a stable token."""

from __future__ import annotations

import sqlite3
from typing import Any

from fastapi import APIRouter, Depends, Request

from ..auth import ProjectAccess, project_access
from ..models.insights import SharingConfiguration, SharingUpdate
from ..storage import get_conn, now_iso
from ..store.activity import log_activity
from ..store.insights import get_or_create_sharing, set_sharing_enabled
from .insights import INSIGHT_SCOPE_NAME, load_insight

__all__ = ["router"]

router = APIRouter(tags=["sharing"])
PATH = "/api/projects/{project_id}/insights/{insight_id:int}/sharing"


@router.get(PATH, response_model=SharingConfiguration, summary="Read the insight's sharing configuration")
def get_sharing(
    request: Request,
    insight_id: int,
    access: ProjectAccess = Depends(project_access("sharing_configuration:read", missing_status=403)),
    conn: sqlite3.Connection = Depends(get_conn),
) -> Any:
    insight = load_insight(conn, access, insight_id)
    return get_or_create_sharing(conn, project_id=access.project_id, insight_id=insight["id"], now=now_iso(request))


@router.patch(PATH, response_model=SharingConfiguration, summary="Enable or disable sharing")
def update_sharing(
    request: Request,
    insight_id: int,
    body: SharingUpdate,
    access: ProjectAccess = Depends(project_access("sharing_configuration:write", missing_status=403)),
    conn: sqlite3.Connection = Depends(get_conn),
) -> Any:
    insight = load_insight(conn, access, insight_id)
    now = now_iso(request)
    before = get_or_create_sharing(conn, project_id=access.project_id, insight_id=insight["id"], now=now)
    set_sharing_enabled(conn, insight_id=insight["id"], enabled=body.enabled)
    if before["enabled"] != body.enabled:
        log_activity(
            conn,
            project_id=access.project_id,
            scope=INSIGHT_SCOPE_NAME,
            item_id=insight["id"],
            activity="sharing enabled" if body.enabled else "sharing disabled",
            user_id=access.user_id,
            detail={
                "changes": None,
                "trigger": None,
                "type": None,
                "name": insight["name"],
                "short_id": insight["short_id"],
            },
            now=now,
        )
    return get_or_create_sharing(conn, project_id=access.project_id, insight_id=insight["id"], now=now)
