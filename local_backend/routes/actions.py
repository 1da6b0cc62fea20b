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
from ..store import actions as store
from ..store.accounts import get_user
from ..store.db import transaction
from ..web.deps import now_iso
from .common import Conn, LoggedResource
from .resource_routes import declare_list, declare_retrieve, declare_soft_deleted_item

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


declare_list(
    router,
    "/api/projects/{project_id}/actions",
    reader=Reader,
    model=Action,
    rows=store.list_actions,
    body=_body,
    summary="List actions (deleted ones hidden), by name",
)


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


@router.patch(
    "/api/projects/{project_id}/actions/{id}",
    response_model=Action,
    summary="Update an action; deleted: true hides it",
)
def update_action_route(request: Request, id: str, body: ActionUpdate, access: Writer, conn: Conn) -> dict[str, Any]:
    action = ACTIONS.load(conn, access, id)
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
    after = ACTIONS.load(conn, access, id)
    ACTIONS.log_updated(conn, access, action, after, now=after["updated_at"])
    return _body(conn, after)


declare_retrieve(
    router,
    "/api/projects/{project_id}/actions/{id}",
    reader=Reader,
    model=Action,
    load=ACTIONS.load,
    body=_body,
    summary="Retrieve an action (deleted ones too)",
)
declare_soft_deleted_item(router, "/api/projects/{project_id}/actions/{id}", ACTIONS, noun="action", writer=Writer)
