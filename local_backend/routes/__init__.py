"""One module per URL resource; ``ROUTERS`` is the route table the app mounts, in this order."""

from __future__ import annotations

from fastapi import APIRouter

from . import (
    dashboards,
    funnels,
    health,
    insight_actions,
    insights,
    paths,
    plugin_config_actions,
    plugin_configs,
    plugins,
    projects,
    query,
    retention,
    sharing,
    timing,
    trends,
)

__all__ = ["ROUTERS"]

ROUTERS: list[APIRouter] = [
    health.router,
    projects.router,
    plugins.router,
    plugin_configs.router,
    plugin_config_actions.router,
    dashboards.router,
    query.router,
    # insight ids match digits only, so the fixed insight paths (retention, path, timing, ...) never reach them
    retention.router,
    paths.router,
    funnels.router,
    trends.router,
    timing.router,
    insight_actions.router,
    insights.router,
    sharing.router,
]
