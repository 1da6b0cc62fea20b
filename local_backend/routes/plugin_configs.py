"""``/api/projects/:id/plugin_configs/``: list, create, retrieve, update, delete (soft) and rearrange.

The per-config actions (job, frontend, migrate, activity) are in :mod:`.plugin_config_actions`.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from fastapi import APIRouter, Depends, Request, Response

from ..auth import ProjectAccess, project_access
from ..errors import NotFound
from ..models.common import Paginated
from ..models.plugins import (
    PluginConfig,
    PluginConfigCreate,
    PluginConfigUpdate,
    RearrangeRequest,
    plugin_config_body,
)
from ..pagination import Page, page_params, paginated
from ..plugins.configs import create_config, rearrange_configs, soft_delete_config, update_config
from ..plugins.pipeline import delivery_rates
from ..request_bodies import body_openapi, parse_model, read_body
from ..storage import get_conn, get_settings, now_iso
from ..store.ids import parse_id
from ..store.plugin_configs import (
    count_plugin_configs,
    get_plugin_config,
    list_enabled_plugin_configs,
    list_plugin_configs,
)

__all__ = ["router", "BASE_PATH", "load_config", "config_response"]

router = APIRouter(tags=["plugin configs"])
BASE_PATH = "/api/projects/{project_id}/plugin_configs"


def load_config(conn: sqlite3.Connection, access: ProjectAccess, config_id: str) -> dict[str, Any]:
    """The project's config with this id (deleted ones too), or 404 (also for an id that is not an integer)."""
    number = parse_id(config_id)
    row = get_plugin_config(conn, access.project_id, number) if number is not None else None
    if row is None:
        raise NotFound()
    return row


def config_response(
    request: Request, conn: sqlite3.Connection, row: dict[str, Any], *, with_info: bool = True
) -> dict[str, Any]:
    """The response body of one config, with its delivery rate."""
    rate = delivery_rates(conn, [row["id"]], get_settings(request).clock.now())[row["id"]]
    return plugin_config_body(row, delivery_rate=rate, with_info=with_info)


@router.get(BASE_PATH, response_model=Paginated[PluginConfig], summary="List plugin configs (deleted ones hidden)")
def list_configs(
    request: Request,
    access: ProjectAccess = Depends(project_access("plugin:read")),
    page: Page = Depends(page_params),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    rows = list_plugin_configs(conn, access.project_id, limit=page.limit, offset=page.offset)
    rates = delivery_rates(conn, [row["id"] for row in rows], get_settings(request).clock.now())
    results = [plugin_config_body(row, delivery_rate=rates[row["id"]], with_info=False) for row in rows]
    return paginated(request, page, count_plugin_configs(conn, access.project_id), results)


@router.post(
    BASE_PATH,
    status_code=201,
    response_model=PluginConfig,
    summary="Create a plugin config (JSON, or multipart with config as a JSON string)",
    openapi_extra=body_openapi(PluginConfigCreate, form=True),
)
async def create_config_route(
    request: Request,
    access: ProjectAccess = Depends(project_access("plugin:write")),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    body = parse_model(PluginConfigCreate, await read_body(request))
    fields = body.model_dump()
    config_id = create_config(
        conn, project_id=access.project_id, user_id=access.user_id, fields=fields, now=now_iso(request)
    )
    return config_response(request, conn, load_config(conn, access, str(config_id)))


@router.patch(
    f"{BASE_PATH}/rearrange",
    response_model=list[PluginConfig],
    summary="Set the order of enabled configs; returns the enabled configs in their new order",
    openapi_extra=body_openapi(RearrangeRequest, form=False),
)
async def rearrange_route(
    request: Request,
    access: ProjectAccess = Depends(project_access("plugin:write")),
    conn: sqlite3.Connection = Depends(get_conn),
) -> list[dict[str, Any]]:
    body = await read_body(request)
    rearrange_configs(
        conn, project_id=access.project_id, user_id=access.user_id, orders=body.get("orders"), now=now_iso(request)
    )
    rows = list_enabled_plugin_configs(conn, access.project_id)
    rates = delivery_rates(conn, [row["id"] for row in rows], get_settings(request).clock.now())
    return [plugin_config_body(row, delivery_rate=rates[row["id"]], with_info=False) for row in rows]


@router.get(f"{BASE_PATH}/{{config_id}}", response_model=PluginConfig, summary="Retrieve a plugin config")
def retrieve_config(
    request: Request,
    config_id: str,
    access: ProjectAccess = Depends(project_access("plugin:read")),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    return config_response(request, conn, load_config(conn, access, config_id))


@router.patch(
    f"{BASE_PATH}/{{config_id}}",
    response_model=PluginConfig,
    summary="Update a plugin config (deleted: true disables and hides it, false restores it)",
    openapi_extra=body_openapi(PluginConfigUpdate, form=True),
)
async def update_config_route(
    request: Request,
    config_id: str,
    access: ProjectAccess = Depends(project_access("plugin:write")),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    row = load_config(conn, access, config_id)
    body = parse_model(PluginConfigUpdate, await read_body(request))
    update_config(
        conn, row=row, user_id=access.user_id, fields=body.model_dump(exclude_unset=True), now=now_iso(request)
    )
    return config_response(request, conn, load_config(conn, access, config_id))


@router.delete(
    f"{BASE_PATH}/{{config_id}}",
    status_code=204,
    response_class=Response,
    summary="Delete a plugin config (soft: it is disabled and hidden; PATCH deleted: false restores it)",
)
def delete_config_route(
    request: Request,
    config_id: str,
    access: ProjectAccess = Depends(project_access("plugin:write")),
    conn: sqlite3.Connection = Depends(get_conn),
) -> Response:
    row = load_config(conn, access, config_id)
    soft_delete_config(conn, row=row, user_id=access.user_id, now=now_iso(request))
    return Response(status_code=204)
