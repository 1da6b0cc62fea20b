"""One module per URL resource; ``ROUTERS`` is the route table the app mounts, in this order."""

from __future__ import annotations

from fastapi import APIRouter

from . import health, paths, plugin_config_actions, plugin_configs, plugins, projects, retention, timing

__all__ = ["ROUTERS"]

ROUTERS: list[APIRouter] = [
    health.router,
    projects.router,
    plugins.router,
    plugin_configs.router,
    plugin_config_actions.router,
    retention.router,
    paths.router,
    timing.router,
]
