"""``/api/projects/:id/dashboards/``: just enough to make dashboards that insights can be placed on."""

from __future__ import annotations

import sqlite3
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from ..auth import ProjectAccess, project_access
from ..models.common import Paginated
from ..models.dashboards import Dashboard, DashboardWrite, dashboard_body
from ..store import dashboards as store
from ..store.accounts import get_user
from ..web.deps import now_iso
from ..web.pagination import paginated
from .common import Conn, PageQuery, found, path_id

__all__ = ["router"]

router = APIRouter(tags=["dashboards"])
Reader = Annotated[ProjectAccess, Depends(project_access("dashboard:read"))]
Writer = Annotated[ProjectAccess, Depends(project_access("dashboard:write"))]


def _body(conn: sqlite3.Connection, dashboard: dict[str, Any]) -> dict[str, Any]:
    return dashboard_body(dashboard, created_by=get_user(conn, dashboard["created_by_id"]))


@router.get("/api/projects/{project_id}/dashboards", response_model=Paginated[Dashboard], summary="List dashboards")
def list_dashboards(request: Request, access: Reader, page: PageQuery, conn: Conn) -> Any:
    rows, total = store.list_dashboards(conn, access.project_id, limit=page.limit, offset=page.offset)
    return paginated(request, page, total, [_body(conn, row) for row in rows])


@router.post(
    "/api/projects/{project_id}/dashboards", response_model=Dashboard, status_code=201, summary="Create a dashboard"
)
def create_dashboard(request: Request, body: DashboardWrite, access: Writer, conn: Conn) -> Any:
    dashboard_id = store.create_dashboard(
        conn, project_id=access.project_id, user_id=access.user_id, values=body.model_dump(), now=now_iso(request)
    )
    return _body(conn, found(store.get_dashboard(conn, access.project_id, dashboard_id)))


@router.get(
    "/api/projects/{project_id}/dashboards/{dashboard_id}", response_model=Dashboard, summary="Retrieve a dashboard"
)
def retrieve_dashboard(dashboard_id: str, access: Reader, conn: Conn) -> Any:
    return _body(conn, found(store.get_dashboard(conn, access.project_id, path_id(dashboard_id))))
