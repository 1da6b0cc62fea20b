"""Plugin and plugin-config shapes: the catalog entry, the config (all 14 fields), writes, jobs and rearranging."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field

from ..plugins.base import Plugin
from ..plugins.catalog import get_plugin, plugin_info
from ..plugins.configs import CONFIG_ID_PATTERN
from ..plugins.schema import mask_config

__all__ = [
    "ConfigSchemaField",
    "PluginInfo",
    "PluginConfig",
    "PluginConfigCreate",
    "PluginConfigUpdate",
    "JobSpec",
    "JobRequest",
    "JobRun",
    "RearrangeRequest",
    "plugin_config_body",
    "ORDER_RANGE",
]

ORDER_RANGE = (-(2**31), 2**31 - 1)


class ConfigSchemaField(BaseModel):
    key: str
    name: str
    type: str = Field(examples=["string", "choice", "json"])
    default: str
    required: bool
    secret: bool
    hint: str
    choices: list[str] | None = None


class PluginInfo(BaseModel):
    """A built-in plugin as the catalog lists it."""

    id: int
    plugin_type: str
    name: str
    url: str
    description: str
    icon: str | None
    tag: str
    latest_tag: str
    is_global: bool
    config_schema: list[ConfigSchemaField]
    config_schema_version: int
    capabilities: dict[str, list[str]]
    public_jobs: dict[str, dict[str, Any]]
    has_frontend: bool


class PluginConfig(BaseModel):
    """A plugin configured in a project. Secret config values show as a fixed mask."""

    id: int
    plugin: int
    enabled: bool
    order: int
    config: dict[str, Any]
    error: dict[str, Any] | None = Field(description="The latest error: {message, time, name, event_uuid, event}")
    team_id: int
    plugin_info: PluginInfo | None = Field(description="The plugin (null in lists)")
    delivery_rate_24h: float | None = Field(description="Share of events processed without error, last 24 hours")
    created_at: str
    updated_at: str | None
    name: str
    description: str
    deleted: bool


class PluginConfigCreate(BaseModel):
    """Create body. As JSON, or as multipart form data with ``config`` a JSON string."""

    plugin: int
    order: int = Field(ge=ORDER_RANGE[0], le=ORDER_RANGE[1])
    enabled: bool = False
    config: dict[str, Any] | None = None
    name: str | None = None
    description: str | None = None
    deleted: bool = False


class PluginConfigUpdate(BaseModel):
    """Update body: any subset of the create fields. Secret config values left out or null are kept."""

    plugin: int | None = None
    order: int | None = Field(None, ge=ORDER_RANGE[0], le=ORDER_RANGE[1])
    enabled: bool | None = None
    config: dict[str, Any] | None = None
    name: str | None = None
    description: str | None = None
    deleted: bool | None = None


class JobSpec(BaseModel):
    type: str | None = None
    payload: dict[str, Any] | None = None
    operation: str = "start"


class JobRequest(BaseModel):
    job: JobSpec


class JobRun(BaseModel):
    """What a job did. ``result`` holds the counts of the re-processing job."""

    job_id: str
    type: str
    operation: str
    payload: dict[str, Any]
    result: dict[str, int]


class RearrangeRequest(BaseModel):
    """The body of ``plugin_configs/rearrange``, as the schema states it (the route reads it itself)."""

    orders: dict[
        Annotated[str, Field(pattern=CONFIG_ID_PATTERN)], Annotated[int, Field(ge=ORDER_RANGE[0], le=ORDER_RANGE[1])]
    ] = Field(
        examples=[{"12": 1, "15": 2}],
        description="plugin config id -> new order",
        json_schema_extra={"additionalProperties": False},
    )


def plugin_config_body(row: dict[str, Any], *, delivery_rate: float | None, with_info: bool) -> dict[str, Any]:
    """The response shape of a stored config; ``with_info`` embeds the plugin (retrieve, not list)."""
    plugin: Plugin | None = get_plugin(int(row["plugin_id"]))
    secrets = plugin.secret_keys() if plugin else frozenset()
    return {
        "id": row["id"],
        "plugin": row["plugin_id"],
        "enabled": row["enabled"],
        "order": row["order"],
        "config": mask_config(secrets, row["config"]),
        "error": row["error"],
        "team_id": row["project_id"],
        "plugin_info": plugin_info(plugin) if with_info and plugin else None,
        "delivery_rate_24h": delivery_rate,
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
        "name": row["name"] if row["name"] is not None else (plugin.name if plugin else ""),
        "description": row["description"] if row["description"] is not None else (plugin.description if plugin else ""),
        "deleted": row["deleted"],
    }
