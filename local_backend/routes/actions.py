"""``/api/projects/:id/actions/``: list, create, retrieve, update (soft delete included), activity.

DELETE is refused with 405 as PostHog does; ``PATCH {"deleted": true}`` hides an action from the list and
``{"deleted": false}`` restores it. A deleted action can still be retrieved, so saved insights that name it
keep showing what it was.
"""

from __future__ import annotations

import sqlite3
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from ..auth import ProjectAccess, project_access
from ..errors import ValidationError
from ..models.actions import Action, ActionUpdate, ActionWrite, action_body, validate_steps
from ..models.common import ActivityPage, Paginated
from ..store import actions as store
from ..store.accounts import get_user
from ..store.db import transaction
from ..web.deps import now_iso
from ..web.pagination import paginated
from .common import REFUSED_DELETE, ActivityReader, Conn, LoggedResource, PageQuery, Search, refuse_delete

__all__ = ["router", "ACTIONS"]

router = APIRouter(tags=["actions"])
Reader = Annotated[ProjectAccess, Depends(project_access("action:read"))]
Writer = Annotated[ProjectAccess, Depends(project_access("action:write"))]
ACTIONS = LoggedResource(
    scope="Action", logged_fields=("name", "description", "steps", "tags", "deleted"), get=store.get_action
)


def _body(conn: sqlite3.Connection, action: dict[str, Any]) -> dict[str, Any]:
    return action_body(action, created_by=get_user(conn, action["created_by_id"]))


def _check_name(conn: sqlite3.Connection, access: ProjectAccess, name: str, action_id: int | None) -> None:
    if not name.strip():
        raise ValidationError("This field may not be blank.", attr="name", code="blank")
    taken = store.action_named(conn, access.project_id, name, other_than=action_id)
    if taken is not None:
        raise ValidationError(
            f"This project already has an action with this name, ID {taken}", attr="name", code="unique"
        )


@router.get(
    "/api/projects/{project_id}/actions",
    response_model=Paginated[Action],
    summary="List actions (deleted ones hidden), by name",
)
def list_actions_route(request: Request, access: Reader, page: PageQuery, conn: Conn, search: Search = None) -> Any:
    rows, total = store.list_actions(conn, access.project_id, search=search, limit=page.limit, offset=page.offset)
    return paginated(request, page, total, [_body(conn, row) for row in rows])


@router.post("/api/projects/{project_id}/actions", response_model=Action, status_code=201, summary="Create an action")
def create_action_route(request: Request, body: ActionWrite, access: Writer, conn: Conn) -> dict[str, Any]:
    if body.name is None:
        raise ValidationError("This field is required.", attr="name", code="required")
    values = {
        "name": body.name,
        "description": body.description or "",
        "steps": validate_steps(body.steps or []),
        "tags": body.tags or [],
    }
    with transaction(conn):  # the name is checked and taken in one write, so two creates cannot share it
        _check_name(conn, access, body.name, None)
        action_id = store.create_action(
            conn, project_id=access.project_id, user_id=access.user_id, values=values, now=now_iso(request)
        )
    action = ACTIONS.load(conn, access, action_id)
    ACTIONS.log_created(conn, access, action, now=action["updated_at"])
    return _body(conn, action)


@router.get(
    "/api/projects/{project_id}/actions/{action_id}",
    response_model=Action,
    summary="Retrieve an action (deleted ones too)",
)
def retrieve_action(action_id: str, access: Reader, conn: Conn) -> dict[str, Any]:
    return _body(conn, ACTIONS.load(conn, access, action_id))


@router.patch(
    "/api/projects/{project_id}/actions/{action_id}",
    response_model=Action,
    summary="Update an action; deleted: true hides it",
)
def update_action_route(
    request: Request, action_id: str, body: ActionUpdate, access: Writer, conn: Conn
) -> dict[str, Any]:
    action = ACTIONS.load(conn, access, action_id)
    changes = body.model_dump(exclude_unset=True)
    for field in ("name", "steps", "tags", "deleted"):
        if field in changes and changes[field] is None:
            raise ValidationError("This field may not be null.", attr=field, code="null")
    if changes.get("description", "") is None:
        changes["description"] = ""
    if "steps" in changes:
        changes["steps"] = validate_steps(body.steps or [])
    name = changes.get("name", action["name"])
    with transaction(conn):
        if "name" in changes or (changes.get("deleted") is False and action["deleted"]):
            _check_name(conn, access, name, action["id"])
        store.update_action(conn, action["id"], changes, now=now_iso(request))
    after = ACTIONS.load(conn, access, action_id)
    ACTIONS.log_updated(conn, access, action, after, now=after["updated_at"])
    return _body(conn, after)


@router.delete(
    "/api/projects/{project_id}/actions/{action_id}",
    **REFUSED_DELETE,
    summary='Refused: actions are soft-deleted with PATCH {"deleted": true}',
)
def delete_action_route(action_id: str, access: Writer) -> None:
    refuse_delete()


@router.get(
    "/api/projects/{project_id}/actions/{action_id}/activity",
    response_model=ActivityPage,
    summary="Activity of one action",
)
def action_activity(request: Request, action_id: str, access: ActivityReader, conn: Conn) -> dict[str, Any]:
    action = ACTIONS.load(conn, access, action_id)
    return ACTIONS.activity(request, conn, access, action["id"])
