"""``/api/projects/``: list, create, retrieve (``@current`` too) and update projects.

A project is created in the database's one organization; a key limited to some projects cannot create one, as
the new project would be outside what it may reach.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from fastapi import APIRouter, Depends, Request

from ..auth import Caller, ProjectAccess, key_access, project_access
from ..errors import PermissionDenied, ValidationError
from ..models.common import Paginated
from ..models.projects import Project, ProjectBasic, ProjectCreate, ProjectUpdate, project_basic, project_detail
from ..store.projects import (
    count_projects,
    create_project,
    get_project,
    list_projects,
    project_has_events,
    update_project,
    validate_timezone,
)
from ..web.deps import get_conn, now_iso
from ..web.pagination import Page, page_params, paginated

__all__ = ["router"]

router = APIRouter(tags=["projects"])


@router.get("/api/projects", response_model=Paginated[ProjectBasic], summary="List projects")
def list_projects_route(
    request: Request,
    caller: Caller = Depends(key_access("project:read")),
    page: Page = Depends(page_params),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    visible = list(caller.scoped_projects) if caller.scoped_projects is not None else None
    rows = list_projects(conn, visible, limit=page.limit, offset=page.offset)
    results = [project_basic(row, ingested_event=project_has_events(conn, row["id"])) for row in rows]
    return paginated(request, page, count_projects(conn, visible), results)


@router.post("/api/projects", response_model=Project, status_code=201, summary="Create a project")
def create_project_route(
    request: Request,
    body: ProjectCreate,
    caller: Caller = Depends(key_access("project:write")),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    if caller.scoped_projects is not None:
        raise PermissionDenied("API keys with scoped projects cannot create projects.")
    if not body.name.strip():
        raise ValidationError("This field may not be blank.", attr="name", code="blank")
    if "timezone" in body.model_fields_set and body.timezone is None:
        raise ValidationError("This field may not be null.", attr="timezone", code="null")
    timezone = validate_timezone(body.timezone) if body.timezone is not None else "UTC"
    project = create_project(conn, name=body.name.strip(), timezone=timezone, now=now_iso(request))
    return project_detail(project, ingested_event=False)


@router.get("/api/projects/{project_id}", response_model=Project, summary="Retrieve a project (or @current)")
def retrieve_project(
    access: ProjectAccess = Depends(project_access("project:read")),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    return project_detail(access.project, ingested_event=project_has_events(conn, access.project_id))


@router.patch("/api/projects/{project_id}", response_model=Project, summary="Update project settings")
def update_project_route(
    request: Request,
    body: ProjectUpdate,
    access: ProjectAccess = Depends(project_access("project:write")),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    changes = body.model_dump(exclude_unset=True)
    for field in ("name", "timezone"):
        if field in changes and changes[field] is None:
            raise ValidationError("This field may not be null.", attr=field, code="null")
    if changes.get("timezone") is not None:
        validate_timezone(changes["timezone"])
    if "test_account_filters" in changes and changes["test_account_filters"] is None:
        changes["test_account_filters"] = []
    update_project(conn, access.project_id, changes, now_iso(request))
    project = get_project(conn, access.project_id)
    assert project is not None
    return project_detail(project, ingested_event=project_has_events(conn, access.project_id))
