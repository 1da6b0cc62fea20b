"""Plugin configs laid down directly in the store, for API tests."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from local_backend.plugins.catalog import get_plugin
from local_backend.store.plugin_configs import insert_plugin_config

NOW = "2026-01-15T12:00:00.000000Z"


def add_config(
    conn,
    project_id: int,
    plugin_id: int,
    *,
    order: int = 1,
    enabled: bool = True,
    config: dict[str, Any] | None = None,
    version: int | None = None,
    deleted: bool = False,
) -> int:
    plugin = get_plugin(plugin_id)
    return insert_plugin_config(
        conn,
        project_id=project_id,
        plugin_id=plugin_id,
        order=order,
        config={**plugin.default_config(), **(config or {})} if version is None else dict(config or {}),
        config_schema_version=version or plugin.config_schema_version,
        now=NOW,
        enabled=enabled,
        deleted=deleted,
    )


@dataclass
class Configs:
    taxonomy: int  # enabled, order 1, snake_case, current schema
    old_filter: int  # property filter stored at schema version 1, enabled, order 2
    other_project: int  # a taxonomy config of the other project


def make_configs(conn, world) -> Configs:
    return Configs(
        taxonomy=add_config(conn, world.project_id, 2, order=1, config={"defaultNamingConvention": "snake_case"}),
        old_filter=add_config(conn, world.project_id, 1, order=2, config={"properties": "$ip,$set.email"}, version=1),
        other_project=add_config(conn, world.other_project_id, 2, order=1),
    )
