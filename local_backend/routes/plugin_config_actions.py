"""Per-config actions under ``/api/projects/:id/plugin_configs/:config_id/``: job, frontend, migrate, activity."""

from __future__ import annotations

import sqlite3
from typing import Any

from fastapi import APIRouter, Depends, Request, Response

from ..auth import ProjectAccess, project_access
from ..models.common import ActivityPage
from ..models.plugins import JobRequest, JobRun, PluginConfig
from ..plugins.catalog import get_plugin
from ..plugins.configs import ACTIVITY_SCOPE, migrate_config, run_job
from ..request_bodies import body_openapi, read_body
from ..storage import get_conn, now_iso
from .common import activity_page
from .plugin_configs import BASE_PATH, config_response, load_config

__all__ = ["router", "NO_FRONTEND", "JAVASCRIPT"]

router = APIRouter(tags=["plugin configs"])
CONFIG_PATH = f"{BASE_PATH}/{{config_id}}"
JAVASCRIPT = "application/javascript; charset=UTF-8"
# What a site loading the frontend of a plugin without one receives: a module saying so.
NO_FRONTEND = 'export function getFrontendApp() {\n    return { "no_frontend": true }\n}\n'


@router.post(
    f"{CONFIG_PATH}/job",
    response_model=JobRun,
    summary="Run a job of the config's plugin, e.g. reprocess_events over a date range",
    openapi_extra=body_openapi(JobRequest, form=False),
)
async def job_route(
    request: Request,
    config_id: str,
    access: ProjectAccess = Depends(project_access("plugin:write")),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    row = load_config(conn, access, config_id)
    body = await read_body(request)
    return run_job(conn, row=row, user_id=access.user_id, job=body.get("job"), now=now_iso(request))


@router.get(
    f"{CONFIG_PATH}/frontend",
    response_class=Response,
    summary="The plugin's site-app JavaScript (or a module saying it has none)",
    responses={200: {"content": {"application/javascript": {}}}},
)
def frontend_route(
    config_id: str,
    access: ProjectAccess = Depends(project_access("plugin:read")),
    conn: sqlite3.Connection = Depends(get_conn),
) -> Response:
    row = load_config(conn, access, config_id)
    plugin = get_plugin(int(row["plugin_id"]))
    source = plugin.frontend if plugin is not None and plugin.frontend else NO_FRONTEND
    return Response(content=source, media_type=JAVASCRIPT)


@router.post(
    f"{CONFIG_PATH}/migrate",
    response_model=PluginConfig,
    summary="Upgrade the config to the plugin's current config schema version",
)
def migrate_route(
    request: Request,
    config_id: str,
    access: ProjectAccess = Depends(project_access("plugin:write")),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    row = load_config(conn, access, config_id)
    migrate_config(conn, row=row, user_id=access.user_id, now=now_iso(request))
    return config_response(request, conn, load_config(conn, access, config_id))


@router.get(f"{CONFIG_PATH}/activity", response_model=ActivityPage, summary="The config's activity, newest first")
def activity_route(
    request: Request,
    config_id: str,
    access: ProjectAccess = Depends(project_access("activity_log:read")),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    row = load_config(conn, access, config_id)
    return activity_page(request, conn, project_id=access.project_id, scopes=[ACTIVITY_SCOPE], item_id=row["id"])
