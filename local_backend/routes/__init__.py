"""One module per URL resource; ``ROUTERS`` is the route table the app mounts, in this order."""

from __future__ import annotations

from fastapi import APIRouter

from . import (
    dashboards,
    health,
    insight_actions,
    insights,
    plugin_config_actions,
    plugin_configs,
    plugins,
    projects,
    sharing,
)

__all__ = ["ROUTERS"]

ROUTERS: list[APIRouter] = [
    health.router,
    projects.router,
    plugins.router,
    plugin_configs.router,
    plugin_config_actions.router,
    dashboards.router,
    # the fixed insight paths (my_last_viewed, activity, cancel) before /insights/{insight_id}
    insight_actions.router,
    insights.router,
    sharing.router,
]
