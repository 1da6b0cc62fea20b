"""``/api/organizations/@current/plugins/``: the catalog of built-in plugins a config can point at."""

from __future__ import annotations

import sqlite3
from typing import Any

from fastapi import APIRouter, Depends, Request

from ..auth import Caller, key_access
from ..errors import NotFound
from ..models.common import Paginated
from ..models.plugins import PluginInfo
from ..plugins.catalog import list_plugins, plugin_info
from ..store.projects import organization_exists
from ..web.deps import get_conn
from ..web.pagination import Page, page_params, paginated

__all__ = ["router"]

router = APIRouter(tags=["plugins"])
CURRENT_ORGANIZATION = "@current"


def _check_organization(conn: sqlite3.Connection, organization_id: str) -> None:
    """``@current``, or the id or uuid of the database's one organization."""
    if organization_id == CURRENT_ORGANIZATION:
        return
    if not organization_exists(conn, organization_id):
        raise NotFound("Organization not found.")


@router.get(
    "/api/organizations/{organization_id}/plugins",
    response_model=Paginated[PluginInfo],
    summary="List the built-in plugins (ids are the same in every database)",
)
def list_plugins_route(
    request: Request,
    organization_id: str,
    caller: Caller = Depends(key_access("plugin:read")),
    page: Page = Depends(page_params),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    _check_organization(conn, organization_id)
    plugins = list_plugins()
    results = [plugin_info(plugin) for plugin in plugins[page.offset : page.offset + page.limit]]
    return paginated(request, page, len(plugins), results)
