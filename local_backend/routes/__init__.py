"""One module per URL resource; ``ROUTERS`` is the route table the app mounts, in this order."""

from __future__ import annotations

from fastapi import APIRouter

from . import (
    actions,
    capture,
    cohorts,
    dashboards,
    event_definitions,
    events,
    funnels,
    health,
    insights,
    materialized_properties,
    paths,
    persons,
    plugin_configs,
    plugins,
    projects,
    property_definitions,
    query,
    retention,
    timing,
    trend_people,
    trends,
)

__all__ = ["ROUTERS"]

ROUTERS: list[APIRouter] = [
    health.router,
    capture.router,
    projects.router,
    plugins.router,
    plugin_configs.router,
    dashboards.router,
    query.router,
    # insight ids match digits only, so the fixed insight paths (retention, path, timing, ...) never reach them
    retention.router,
    paths.router,
    funnels.router,
    trends.router,
    trend_people.router,
    timing.router,
    insights.router,
    # after retention, whose persons/retention/ the persons/{id} route would otherwise take
    event_definitions.router,
    property_definitions.router,
    actions.router,
    materialized_properties.router,
    cohorts.router,
    persons.router,
    events.router,
]
