"""The built-in plugins, by id. Ids are fixed here, never taken from a database, so they are the same everywhere."""

from __future__ import annotations

from typing import Any

from . import bot_filter, downsampling, notification_bar, property_filter, taxonomy
from .base import Plugin
from .schema import schema_json

__all__ = ["PLUGINS", "get_plugin", "list_plugins", "plugin_info"]

PLUGINS: dict[int, Plugin] = {
    plugin.id: plugin
    for plugin in (
        property_filter.PLUGIN,
        taxonomy.PLUGIN,
        downsampling.PLUGIN,
        bot_filter.PLUGIN,
        notification_bar.PLUGIN,
    )
}


def get_plugin(plugin_id: int) -> Plugin | None:
    return PLUGINS.get(plugin_id)


def list_plugins() -> list[Plugin]:
    return [PLUGINS[plugin_id] for plugin_id in sorted(PLUGINS)]


def plugin_info(plugin: Plugin) -> dict[str, Any]:
    """The catalog entry of a plugin, as the plugins list and a config's ``plugin_info`` show it."""
    return {
        "id": plugin.id,
        "plugin_type": "local",
        "name": plugin.name,
        "url": plugin.url,
        "description": plugin.description,
        "icon": None,
        "tag": plugin.tag,
        "latest_tag": plugin.tag,
        "is_global": True,
        "config_schema": schema_json(plugin.config_schema),
        "config_schema_version": plugin.config_schema_version,
        "capabilities": {
            "methods": ["processEvent"] if plugin.processes_events else [],
            "jobs": sorted(plugin.jobs),
            "scheduled_tasks": [],
        },
        "public_jobs": {name: {"payload": dict(job.payload)} for name, job in sorted(plugin.jobs.items())},
        "has_frontend": plugin.frontend is not None,
    }
