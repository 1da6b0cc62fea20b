"""``/api/projects/:id/plugin_configs/``: list, create, retrieve, update, delete (soft) and rearrange, and the
per-config actions under ``plugin_configs/:config_id/``: job, frontend, migrate, activity."""

from __future__ import annotations

import sqlite3
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response

from ..auth import ProjectAccess, project_access
from ..models.common import ActivityPage, Paginated
from ..models.plugins import (
    JobRequest,
    JobRun,
    PluginConfig,
    PluginConfigCreate,
    PluginConfigUpdate,
    RearrangeRequest,
    plugin_config_body,
)
from ..plugins.catalog import get_plugin
from ..plugins.configs import (
    ACTIVITY_SCOPE,
    create_config,
    migrate_config,
    rearrange_configs,
    run_job,
    soft_delete_config,
    update_config,
)
from ..plugins.pipeline import delivery_rates
from ..store import plugin_configs as store
from ..web.deps import get_settings, now_iso
from ..web.pagination import paginated
from ..web.request_bodies import body_openapi, parse_model, read_body
from .common import ActivityReader, Conn, PageQuery, activity_page, load_or_404

__all__ = ["router", "load_config", "NO_FRONTEND", "JAVASCRIPT"]

router = APIRouter(tags=["plugin configs"])
Reader = Annotated[ProjectAccess, Depends(project_access("plugin:read"))]
Writer = Annotated[ProjectAccess, Depends(project_access("plugin:write"))]
JAVASCRIPT = "application/javascript; charset=UTF-8"
# What a site loading the frontend of a plugin without one receives: a module saying so.
NO_FRONTEND = 'export function getFrontendApp() {\n    return { "no_frontend": true }\n}\n'


def load_config(conn: sqlite3.Connection, access: ProjectAccess, config_id: str | int) -> dict[str, Any]:
    """The project's config with this id (deleted ones too), or 404."""
    return load_or_404(store.get_plugin_config, conn, access, config_id)


def _bodies(request: Request, conn: sqlite3.Connection, rows: list[dict[str, Any]], *, with_info: bool) -> list:
    """The response bodies of configs, each with its delivery rate."""
    rates = delivery_rates(conn, [row["id"] for row in rows], get_settings(request).clock.now())
    return [plugin_config_body(row, delivery_rate=rates[row["id"]], with_info=with_info) for row in rows]


def _reloaded(request: Request, conn: sqlite3.Connection, access: ProjectAccess, config_id: str | int) -> dict:
    """The body of the config as stored now (after a write)."""
    return _bodies(request, conn, [load_config(conn, access, config_id)], with_info=True)[0]


@router.get(
    "/api/projects/{project_id}/plugin_configs",
    response_model=Paginated[PluginConfig],
    summary="List plugin configs (deleted ones hidden)",
)
def list_configs(request: Request, access: Reader, page: PageQuery, conn: Conn) -> dict[str, Any]:
    rows = store.list_plugin_configs(conn, access.project_id, limit=page.limit, offset=page.offset)
    total = store.count_plugin_configs(conn, access.project_id)
    return paginated(request, page, total, _bodies(request, conn, rows, with_info=False))


@router.post(
    "/api/projects/{project_id}/plugin_configs",
    status_code=201,
    response_model=PluginConfig,
    summary="Create a plugin config (JSON, or multipart with config as a JSON string)",
    openapi_extra=body_openapi(PluginConfigCreate, form=True),
)
async def create_config_route(request: Request, access: Writer, conn: Conn) -> dict[str, Any]:
    body = parse_model(PluginConfigCreate, await read_body(request))
    config_id = create_config(
        conn, project_id=access.project_id, user_id=access.user_id, fields=body.model_dump(), now=now_iso(request)
    )
    return _reloaded(request, conn, access, config_id)


@router.patch(
    "/api/projects/{project_id}/plugin_configs/rearrange",
    response_model=list[PluginConfig],
    summary="Set the order of enabled configs; returns the enabled configs in their new order",
    openapi_extra=body_openapi(RearrangeRequest, form=False),
)
async def rearrange_route(request: Request, access: Writer, conn: Conn) -> list[dict[str, Any]]:
    body = await read_body(request)
    rearrange_configs(
        conn, project_id=access.project_id, user_id=access.user_id, orders=body.get("orders"), now=now_iso(request)
    )
    return _bodies(request, conn, store.list_enabled_plugin_configs(conn, access.project_id), with_info=False)


@router.get(
    "/api/projects/{project_id}/plugin_configs/{config_id}",
    response_model=PluginConfig,
    summary="Retrieve a plugin config",
)
def retrieve_config(request: Request, config_id: str, access: Reader, conn: Conn) -> dict[str, Any]:
    return _reloaded(request, conn, access, config_id)


@router.patch(
    "/api/projects/{project_id}/plugin_configs/{config_id}",
    response_model=PluginConfig,
    summary="Update a plugin config (deleted: true disables and hides it, false restores it)",
    openapi_extra=body_openapi(PluginConfigUpdate, form=True),
)
async def update_config_route(request: Request, config_id: str, access: Writer, conn: Conn) -> dict[str, Any]:
    row = load_config(conn, access, config_id)
    body = parse_model(PluginConfigUpdate, await read_body(request))
    update_config(
        conn, row=row, user_id=access.user_id, fields=body.model_dump(exclude_unset=True), now=now_iso(request)
    )
    return _reloaded(request, conn, access, config_id)


@router.delete(
    "/api/projects/{project_id}/plugin_configs/{config_id}",
    status_code=204,
    response_class=Response,
    summary="Delete a plugin config (soft: it is disabled and hidden; PATCH deleted: false restores it)",
)
def delete_config_route(request: Request, config_id: str, access: Writer, conn: Conn) -> Response:
    row = load_config(conn, access, config_id)
    soft_delete_config(conn, row=row, user_id=access.user_id, now=now_iso(request))
    return Response(status_code=204)


@router.post(
    "/api/projects/{project_id}/plugin_configs/{config_id}/job",
    response_model=JobRun,
    summary="Run a job of the config's plugin, e.g. reprocess_events over a date range",
    openapi_extra=body_openapi(JobRequest, form=False),
)
async def job_route(request: Request, config_id: str, access: Writer, conn: Conn) -> dict[str, Any]:
    row = load_config(conn, access, config_id)
    body = await read_body(request)
    return run_job(conn, row=row, user_id=access.user_id, job=body.get("job"), now=now_iso(request))


@router.get(
    "/api/projects/{project_id}/plugin_configs/{config_id}/frontend",
    response_class=Response,
    summary="The plugin's site-app JavaScript (or a module saying it has none)",
    responses={200: {"content": {"application/javascript": {}}}},
)
def frontend_route(config_id: str, access: Reader, conn: Conn) -> Response:
    plugin = get_plugin(int(load_config(conn, access, config_id)["plugin_id"]))
    source = plugin.frontend if plugin is not None and plugin.frontend else NO_FRONTEND
    return Response(content=source, media_type=JAVASCRIPT)


@router.post(
    "/api/projects/{project_id}/plugin_configs/{config_id}/migrate",
    response_model=PluginConfig,
    summary="Upgrade the config to the plugin's current config schema version",
)
def migrate_route(request: Request, config_id: str, access: Writer, conn: Conn) -> dict[str, Any]:
    migrate_config(conn, row=load_config(conn, access, config_id), user_id=access.user_id, now=now_iso(request))
    return _reloaded(request, conn, access, config_id)


@router.get(
    "/api/projects/{project_id}/plugin_configs/{config_id}/activity",
    response_model=ActivityPage,
    summary="The config's activity, newest first",
)
def activity_route(request: Request, config_id: str, access: ActivityReader, conn: Conn) -> dict[str, Any]:
    row = load_config(conn, access, config_id)
    return activity_page(request, conn, project_id=access.project_id, scopes=[ACTIVITY_SCOPE], item_id=row["id"])
