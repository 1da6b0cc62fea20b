"""What every resource route shares: its dependencies, ids from the path, load-or-404, the activity log.

A metadata request reads as route -> store -> models: the route turns the path id into a number
(:func:`path_id`), loads the row through ``store/`` (:func:`found` answers 404 when there is none), writes
through ``store/``, logs what changed (:func:`log_update`) and answers the pure body function of ``models/``
applied to the rows the store fetched. An id named in a body or a query parameter that does not exist is a
400 ``does_not_exist`` (:func:`does_not_exist`), not a 404.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Query, Request

from ..auth import ProjectAccess, project_access
from ..errors import MethodNotAllowed, NotFound, ValidationError
from ..models.common import ErrorResponse, activity_entry
from ..store.activity import Change, list_activity, log_item_change
from ..store.ids import parse_id
from ..web.deps import get_conn
from ..web.pagination import Page, page_params, parse_int_param, replace_query, request_url

__all__ = [
    "Conn",
    "PageQuery",
    "Search",
    "REFUSED_DELETE",
    "ActivityReader",
    "path_id",
    "found",
    "load_or_404",
    "does_not_exist",
    "refuse_delete",
    "field_changes",
    "log_change",
    "log_update",
    "activity_page",
    "ACTIVITY_PAGE_SIZE",
    "LoggedResource",
]

Row = TypeVar("Row")
Conn = Annotated[sqlite3.Connection, Depends(get_conn)]
PageQuery = Annotated[Page, Depends(page_params)]
# the ``search`` parameter of lists searched with store.text_search
Search = Annotated[str | None, Query(description="Every term must occur in the name or description")]
ActivityReader = Annotated[ProjectAccess, Depends(project_access("activity_log:read"))]
# the calculation endpoints answer a project the key cannot see with 403, as PostHog's insight endpoints do
InsightReader = Annotated[ProjectAccess, Depends(project_access("insight:read", missing_status=403))]
ACTIVITY_PAGE_SIZE = 10
MAX_ACTIVITY_PAGE_SIZE = 1000
# The DELETE of a soft-deleted resource (insights, actions, cohorts): always 405, PATCH {"deleted": true} instead.
REFUSED_DELETE: dict[str, Any] = {
    "status_code": 405,
    "response_model": ErrorResponse,
    "responses": {405: {"model": ErrorResponse, "description": "Always refused"}},
}


def path_id(value: str | int) -> int:
    """The id in the URL as a number; 404 when it cannot be a stored id (not ASCII digits, 0, past 64 bits)."""
    number = parse_id(str(value))
    if number is None:
        raise NotFound()
    return number


def found(row: Row | None) -> Row:
    """The row the store found, or 404."""
    if row is None:
        raise NotFound()
    return row


def load_or_404(
    get: Callable[[sqlite3.Connection, int, int], Row | None],
    conn: sqlite3.Connection,
    access: ProjectAccess,
    value: str | int,
) -> Row:
    """``get(conn, project_id, id)`` for the id in the URL, or 404 (also for an id that cannot be one)."""
    return found(get(conn, access.project_id, path_id(value)))


def does_not_exist(value: Any, *, attr: str) -> ValidationError:
    """The 400 for an id in a body or a parameter that names nothing, in PostHog's words."""
    return ValidationError(f'Invalid pk "{value}" - object does not exist.', attr=attr, code="does_not_exist")


def refuse_delete() -> None:
    raise MethodNotAllowed(method="DELETE")


def field_changes(scope: str, before: dict[str, Any], after: dict[str, Any], fields: Sequence[str]) -> list[Change]:
    """The activity-log entries of the ``fields`` whose value differs between ``before`` and ``after``."""
    return [
        {"type": scope, "action": "changed", "field": field, "before": before[field], "after": after[field]}
        for field in fields
        if before[field] != after[field]
    ]


def log_change(
    conn: sqlite3.Connection,
    access: ProjectAccess,
    *,
    scope: str,
    item: dict[str, Any],
    activity: str,
    changes: list[Change] | None,
    now: str,
    name: str | None = None,
) -> None:
    """Log ``activity`` by the caller on ``item`` (named ``name``, else ``item["name"]``)."""
    log_item_change(
        conn,
        project_id=access.project_id,
        user_id=access.user_id,
        scope=scope,
        item_id=item["id"],
        name=item["name"] if name is None else name,
        activity=activity,
        changes=changes,
        short_id=item.get("short_id"),
        now=now,
    )


def log_update(
    conn: sqlite3.Connection,
    access: ProjectAccess,
    *,
    scope: str,
    before: dict[str, Any],
    after: dict[str, Any],
    fields: Sequence[str],
    now: str,
    extra: Sequence[Change] = (),
    name: str | None = None,
) -> None:
    """Log an update (``deleted`` when it soft-deleted the item) if any of ``fields`` changed or ``extra`` is given."""
    changes = [*field_changes(scope, before, after, fields), *extra]
    if changes:
        activity = "deleted" if after["deleted"] and not before["deleted"] else "updated"
        log_change(conn, access, scope=scope, item=after, activity=activity, changes=changes, now=now, name=name)


def activity_page(
    request: Request, conn: sqlite3.Connection, *, project_id: int, scopes: list[str], item_id: int | None
) -> dict[str, Any]:
    """One page of activity, newest first: ``page`` (1-based; past the end is empty), ``limit``, ``total_count``."""
    limit = parse_int_param(
        request.query_params.get("limit"),
        name="limit",
        default=ACTIVITY_PAGE_SIZE,
        minimum=1,
        maximum=MAX_ACTIVITY_PAGE_SIZE,
    )
    page = parse_int_param(request.query_params.get("page"), name="page", default=1, minimum=1, maximum=2**31)
    rows, total = list_activity(
        conn, project_id=project_id, scopes=scopes, item_id=item_id, limit=limit, offset=(page - 1) * limit
    )
    url = request_url(request)
    return {
        "results": [activity_entry(row) for row in rows],
        "next": replace_query(url, page=page + 1, limit=limit) if page * limit < total else None,
        "previous": replace_query(url, page=page - 1, limit=limit) if page > 1 else None,
        "total_count": total,
    }


@dataclass(frozen=True)
class LoggedResource:
    """A resource whose changes go to the activity log (actions, cohorts, insights): how its routes load one by
    the id in the URL, log what happens to it and page through its activity."""

    scope: str  # its activity-log scope, e.g. "Action"
    logged_fields: tuple[str, ...]  # the fields whose changes an update logs
    get: Callable[[sqlite3.Connection, int, int], dict[str, Any] | None]  # the store's read by project and id

    def load(self, conn: sqlite3.Connection, access: ProjectAccess, value: str | int) -> dict[str, Any]:
        return load_or_404(self.get, conn, access, value)

    def log_created(
        self,
        conn: sqlite3.Connection,
        access: ProjectAccess,
        item: dict[str, Any],
        *,
        now: str,
        name: str | None = None,
    ) -> None:
        log_change(conn, access, scope=self.scope, item=item, activity="created", changes=None, now=now, name=name)

    def log_updated(
        self,
        conn: sqlite3.Connection,
        access: ProjectAccess,
        before: dict[str, Any],
        after: dict[str, Any],
        *,
        now: str,
        extra: Sequence[Change] = (),
        name: str | None = None,
    ) -> None:
        fields = self.logged_fields
        log_update(
            conn, access, scope=self.scope, before=before, after=after, fields=fields, now=now, extra=extra, name=name
        )

    def activity(
        self, request: Request, conn: sqlite3.Connection, access: ProjectAccess, item_id: int | None
    ) -> dict[str, Any]:
        """A page of the activity of one item, or of all of them (``item_id`` None)."""
        return activity_page(request, conn, project_id=access.project_id, scopes=[self.scope], item_id=item_id)
