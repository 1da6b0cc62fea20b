"""Routes that resources declare alike: a paginated list, a retrieve, and for the soft-deleted resources (actions,
cohorts, insights) a refused DELETE and the activity of one item.

Each function declares its handler on the router it is given, with the path written out where the resource's
module calls it, so grepping a URL still finds the module that serves it. Item paths name their id ``{id}``
(``{id:int}`` where digits alone must match), as PostHog's API does.

``DELETE <item>`` of a soft-deleted resource is always refused with 405: ``PATCH {"deleted": true}`` hides the
item instead, as PostHog does.

This module evaluates its annotations when the handlers are defined (no ``from __future__ import
annotations``): FastAPI reads the dependency each handler's parameters are annotated with, and those differ per
resource.
"""

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from ..auth import ProjectAccess
from ..models.common import ActivityPage, Paginated
from ..web.pagination import paginated
from .common import REFUSED_DELETE, ActivityReader, Conn, LoggedResource, PageQuery, Search, refuse_delete

__all__ = ["declare_list", "declare_retrieve", "declare_soft_deleted_item"]

Row = dict[str, Any]
Body = Callable[[sqlite3.Connection, Row], Row]
Loader = Callable[[sqlite3.Connection, ProjectAccess, Any], Row]
Lister = Callable[..., tuple[Sequence[Row], int]]


def declare_list(
    router: APIRouter, path: str, *, reader: Any, model: type[BaseModel], rows: Lister, body: Body, summary: str
) -> None:
    """``GET path``: a page of ``rows(conn, project_id, search=, limit=, offset=)``, each as ``body(conn, row)``."""

    def list_items(request: Request, access: reader, page: PageQuery, conn: Conn, search: Search = None) -> Any:
        found, total = rows(conn, access.project_id, search=search, limit=page.limit, offset=page.offset)
        return paginated(request, page, total, [body(conn, row) for row in found])

    router.get(path, response_model=Paginated[model], summary=summary, name=f"list {path}")(list_items)


def declare_retrieve(
    router: APIRouter,
    item_path: str,
    *,
    reader: Any,
    model: type[BaseModel],
    load: Loader,
    body: Body,
    summary: str,
    id_type: type = str,
) -> None:
    """``GET item_path``: ``body(conn, load(conn, access, id))`` (``load`` answers 404 for a missing item)."""

    def retrieve_item(id: id_type, access: reader, conn: Conn) -> Row:
        return body(conn, load(conn, access, id))

    router.get(item_path, response_model=model, summary=summary, name=f"retrieve {item_path}")(retrieve_item)


def declare_soft_deleted_item(
    router: APIRouter,
    item_path: str,
    resource: LoggedResource,
    *,
    noun: str,
    writer: Any,
    activity_reader: Any = ActivityReader,
    load: Loader | None = None,
    id_type: type = str,
) -> None:
    """``DELETE item_path`` (refused) and ``GET item_path/activity``.

    ``writer`` and ``activity_reader`` are the access dependencies of the two routes; ``load`` reads the item
    for its activity (the resource's load-or-404 by default); ``id_type`` is what the handlers receive as ``id``
    (``int`` for ``{id:int}``).
    """
    load_item = load or resource.load

    def delete_item(id: id_type, access: writer) -> None:
        refuse_delete()

    def item_activity(request: Request, id: id_type, access: activity_reader, conn: Conn) -> Row:
        item = load_item(conn, access, id)
        return resource.activity(request, conn, access, item["id"])

    summary = f'Refused: {noun}s are soft-deleted with PATCH {{"deleted": true}}'
    router.delete(item_path, **REFUSED_DELETE, summary=summary, name=f"delete {item_path}")(delete_item)
    activity_path = f"{item_path}/activity"
    summary = f"Activity of one {noun}"
    router.get(activity_path, response_model=ActivityPage, summary=summary, name=f"activity {item_path}")(item_activity)
