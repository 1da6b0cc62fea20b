"""``/api/projects/:id/actions/``: list, create, retrieve, update (soft delete included), activity.

DELETE is refused with 405 as PostHog does; ``PATCH {"deleted": true}`` hides an action from the list and
``{"deleted": false}`` restores it. A deleted action can still be retrieved, so saved insights that name it
keep showing what it was.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from fastapi import APIRouter, Depends, Query, Request

from ..auth import ProjectAccess, project_access
from ..errors import MethodNotAllowed, NotFound, ValidationError
from ..models.actions import Action, ActionUpdate, ActionWrite, validate_steps
from ..models.common import ActivityPage, ErrorResponse, Paginated, user_basic
from ..pagination import Page, page_params, paginated
from ..storage import get_conn, now_iso
from ..store.accounts import get_user
from ..store.actions import action_named, create_action, get_action, list_actions, update_action
from ..store.activity import log_item_change
from ..store.db import transaction
from .common import activity_page

__all__ = ["router", "ACTION_SCOPE_NAME", "load_action"]

router = APIRouter(tags=["actions"])
BASE_PATH = "/api/projects/{project_id}/actions"
ACTION_SCOPE_NAME = "Action"
READ = project_access("action:read")
WRITE = project_access("action:write")
ACTIVITY = project_access("activity_log:read")
LOGGED_FIELDS = ("name", "description", "steps", "tags", "deleted")


def load_action(conn: sqlite3.Connection, access: ProjectAccess, value: str) -> dict[str, Any]:
    """The project's action with this id (deleted ones too), or 404 (also for an id that is not a number)."""
    try:
        action_id = int(value)
    except ValueError:
        raise NotFound() from None
    action = get_action(conn, access.project_id, action_id) if 0 < action_id < 2**63 else None
    if action is None:
        raise NotFound()
    return action


def action_body(conn: sqlite3.Connection, action: dict[str, Any]) -> dict[str, Any]:
    creator = get_user(conn, action["created_by_id"]) if action["created_by_id"] is not None else None
    return Action(
        id=action["id"],
        name=action["name"],
        description=action["description"],
        tags=action["tags"],
        steps=action["steps"],
        created_at=action["created_at"],
        created_by=user_basic(creator),
        updated_at=action["updated_at"],
        deleted=action["deleted"],
        team_id=action["project_id"],
    ).model_dump()


def _check_name(conn: sqlite3.Connection, access: ProjectAccess, name: str, action_id: int | None) -> None:
    if not name.strip():
        raise ValidationError("This field may not be blank.", attr="name", code="blank")
    taken = action_named(conn, access.project_id, name, other_than=action_id)
    if taken is not None:
        raise ValidationError(
            f"This project already has an action with this name, ID {taken}", attr="name", code="unique"
        )


def _log(conn: sqlite3.Connection, access: ProjectAccess, action: dict, activity: str, changes: list | None) -> None:
    log_item_change(
        conn,
        project_id=access.project_id,
        user_id=access.user_id,
        scope=ACTION_SCOPE_NAME,
        item_id=action["id"],
        name=action["name"],
        activity=activity,
        changes=changes,
        now=action["updated_at"],
    )


@router.get(BASE_PATH, response_model=Paginated[Action], summary="List actions (deleted ones hidden), by name")
def list_actions_route(
    request: Request,
    access: ProjectAccess = Depends(READ),
    page: Page = Depends(page_params),
    conn: sqlite3.Connection = Depends(get_conn),
    search: str | None = Query(None, description="Every term must occur in the name or description"),
) -> dict[str, Any]:
    rows, total = list_actions(conn, access.project_id, search=search, limit=page.limit, offset=page.offset)
    return paginated(request, page, total, [action_body(conn, row) for row in rows])


@router.post(BASE_PATH, response_model=Action, status_code=201, summary="Create an action")
def create_action_route(
    request: Request,
    body: ActionWrite,
    access: ProjectAccess = Depends(WRITE),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
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
        action_id = create_action(
            conn, project_id=access.project_id, user_id=access.user_id, values=values, now=now_iso(request)
        )
    action = load_action(conn, access, str(action_id))
    _log(conn, access, action, "created", None)
    return action_body(conn, action)


@router.get(f"{BASE_PATH}/{{action_id}}", response_model=Action, summary="Retrieve an action (deleted ones too)")
def retrieve_action(
    action_id: str,
    access: ProjectAccess = Depends(READ),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    return action_body(conn, load_action(conn, access, action_id))


def _update(
    request: Request, action_id: str, body: ActionUpdate, access: ProjectAccess, conn: sqlite3.Connection
) -> dict[str, Any]:
    action = load_action(conn, access, action_id)
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
        update_action(conn, action["id"], changes, now=now_iso(request))
    after = load_action(conn, access, action_id)
    diff = [
        {"type": ACTION_SCOPE_NAME, "action": "changed", "field": field, "before": action[field], "after": after[field]}
        for field in LOGGED_FIELDS
        if action[field] != after[field]
    ]
    if diff:
        deleted_now = after["deleted"] and not action["deleted"]
        _log(conn, access, after, "deleted" if deleted_now else "updated", diff)
    return action_body(conn, after)


@router.patch(f"{BASE_PATH}/{{action_id}}", response_model=Action, summary="Update an action; deleted: true hides it")
def update_action_route(
    request: Request,
    action_id: str,
    body: ActionUpdate,
    access: ProjectAccess = Depends(WRITE),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    return _update(request, action_id, body, access, conn)


@router.delete(
    f"{BASE_PATH}/{{action_id}}",
    status_code=405,
    response_model=ErrorResponse,
    responses={405: {"model": ErrorResponse, "description": "Always refused"}},
    summary='Refused: actions are soft-deleted with PATCH {"deleted": true}',
)
def delete_action_route(action_id: str, access: ProjectAccess = Depends(WRITE)) -> None:
    raise MethodNotAllowed(method="DELETE")


@router.get(f"{BASE_PATH}/{{action_id}}/activity", response_model=ActivityPage, summary="Activity of one action")
def action_activity(
    request: Request,
    action_id: str,
    access: ProjectAccess = Depends(ACTIVITY),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    action = load_action(conn, access, action_id)
    return activity_page(request, conn, project_id=access.project_id, scopes=[ACTION_SCOPE_NAME], item_id=action["id"])
