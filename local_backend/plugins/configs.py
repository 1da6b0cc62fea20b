"""Managing a project's plugin configs: create, update, soft delete, rearrange, migrate, run jobs.

Every change is validated first and then written in one transaction together with its activity-log entries
(scope ``PluginConfig``, item = the config id), so nothing is ever half-stored.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping
from typing import Any

from ..errors import ValidationError
from ..store.activity import log_activity
from ..store.db import transaction
from ..store.ids import new_uuid
from ..store.plugin_configs import insert_plugin_config, list_enabled_plugin_configs, update_plugin_config
from .base import Plugin
from .catalog import get_plugin
from .jobs import JOB_OPERATIONS, run_plugin_job, validate_job_payload
from .schema import config_changes, merge_secrets, validate_config

__all__ = [
    "ACTIVITY_SCOPE",
    "resolve_plugin",
    "clean_config",
    "create_config",
    "update_config",
    "soft_delete_config",
    "rearrange_configs",
    "CONFIG_ID_PATTERN",
    "migrate_config",
    "run_job",
]

ACTIVITY_SCOPE = "PluginConfig"
ORDER_RANGE = (-(2**31), 2**31 - 1)
# A plugin config id as a key of rearrange's orders: ASCII digits (int() would also read " 7", "1_0" or "٧").
CONFIG_ID_PATTERN = r"^[0-9]{1,19}$"


def resolve_plugin(plugin_id: int) -> Plugin:
    plugin = get_plugin(plugin_id)
    if plugin is None:
        raise ValidationError(
            f'Invalid pk "{plugin_id}" - object does not exist.', attr="plugin", code="does_not_exist"
        )
    return plugin


def clean_config(plugin: Plugin, submitted: Mapping[str, Any] | None) -> dict[str, Any]:
    """A complete, valid config for ``plugin`` at its current schema version."""
    config = validate_config(plugin.config_schema, submitted)
    if plugin.check_config is not None:
        try:
            plugin.check_config(config)
        except ValueError as exc:
            key, message = exc.args if len(exc.args) == 2 else ("", str(exc))
            raise ValidationError(message, attr=f"config__{key}" if key else "config") from None
    return config


def _log(
    conn: sqlite3.Connection, row: Mapping[str, Any], activity: str, user_id: int | None, now: str, **detail: Any
) -> None:
    plugin = get_plugin(int(row["plugin_id"]))
    log_activity(
        conn,
        project_id=int(row["project_id"]),
        scope=ACTIVITY_SCOPE,
        item_id=int(row["id"]),
        activity=activity,
        user_id=user_id,
        detail={"name": row.get("name") or (plugin.name if plugin else None), **detail},
        now=now,
    )


def _change(field: str, before: Any, after: Any) -> dict[str, Any]:
    action = "changed" if before is not None else "created"
    return {"type": ACTIVITY_SCOPE, "action": action, "field": field, "before": before, "after": after}


def create_config(
    conn: sqlite3.Connection, *, project_id: int, user_id: int, fields: Mapping[str, Any], now: str
) -> int:
    """A new config (not an upsert: a project may configure one plugin several times)."""
    plugin = resolve_plugin(int(fields["plugin"]))
    config = clean_config(plugin, fields.get("config"))
    deleted = bool(fields.get("deleted", False))
    enabled = bool(fields.get("enabled", False)) and not deleted
    with transaction(conn):
        config_id = insert_plugin_config(
            conn,
            project_id=project_id,
            plugin_id=plugin.id,
            order=int(fields["order"]),
            config=config,
            config_schema_version=plugin.config_schema_version,
            now=now,
            enabled=enabled,
            name=fields.get("name"),
            description=fields.get("description"),
            deleted=deleted,
        )
        row = {"id": config_id, "project_id": project_id, "plugin_id": plugin.id, "name": fields.get("name")}
        _log(conn, row, "created", user_id, now, changes=config_changes(plugin.secret_keys(), {}, config))
        if enabled:
            _log(conn, row, "enabled", user_id, now)
    return config_id


def update_config(
    conn: sqlite3.Connection, *, row: Mapping[str, Any], user_id: int, fields: Mapping[str, Any], now: str
) -> None:
    """Apply the given fields (a PATCH). ``deleted: true`` also disables; secrets left out are kept."""
    plugin = resolve_plugin(int(row["plugin_id"]))
    if fields.get("plugin") is not None and int(fields["plugin"]) != plugin.id:
        resolve_plugin(int(fields["plugin"]))
        raise ValidationError("The plugin of a config cannot be changed; create a new config.", attr="plugin")
    changes: dict[str, Any] = {}
    for key in ("order", "name", "description", "enabled", "deleted"):
        if fields.get(key) is not None and fields[key] != row[key]:
            changes[key] = fields[key]
    if changes.get("deleted", row["deleted"]):  # a deleted config never runs
        changes["enabled"] = False
    if "enabled" in changes and changes["enabled"] == row["enabled"]:
        del changes["enabled"]
    old_config = plugin.upgrade_config(row["config"], row["config_schema_version"])
    if fields.get("config") is not None:
        new_config = clean_config(plugin, merge_secrets(plugin.secret_keys(), old_config, fields["config"]))
        if new_config != row["config"] or row["config_schema_version"] != plugin.config_schema_version:
            changes["config"] = new_config
            changes["config_schema_version"] = plugin.config_schema_version
    if not changes:
        return
    with transaction(conn):
        update_plugin_config(conn, int(row["id"]), changes, now)
        if "config" in changes:
            diff = config_changes(plugin.secret_keys(), row["config"], changes["config"])
            _log(conn, row, "config_updated", user_id, now, changes=diff)
        if "enabled" in changes:
            _log(conn, row, "enabled" if changes["enabled"] else "disabled", user_id, now)
        if "order" in changes:
            _log(conn, row, "order_changed", user_id, now, changes=[_change("order", row["order"], changes["order"])])
        edits = [_change(key, row[key], changes[key]) for key in ("name", "description") if key in changes]
        if edits:
            _log(conn, row, "updated", user_id, now, changes=edits)
        if "deleted" in changes:
            _log(conn, row, "deleted" if changes["deleted"] else "restored", user_id, now)


def soft_delete_config(conn: sqlite3.Connection, *, row: Mapping[str, Any], user_id: int, now: str) -> None:
    """DELETE: the config is flagged deleted and disabled, never removed (PATCH ``deleted: false`` restores it)."""
    update_config(conn, row=row, user_id=user_id, fields={"deleted": True}, now=now)


def _parse_orders(orders: Any, enabled_ids: set[int]) -> dict[int, int]:
    if orders is None:
        raise ValidationError("This field is required.", attr="orders", code="required")
    if not isinstance(orders, dict):
        raise ValidationError('Expected an object of {"<plugin config id>": <order>}.', attr="orders")
    parsed: dict[int, int] = {}
    for key, value in orders.items():
        if not isinstance(key, str) or re.fullmatch(CONFIG_ID_PATTERN, key) is None:
            raise ValidationError(f'"{key}" is not a plugin config id.', attr="orders")
        config_id = int(key)
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # 2.0 is the integer 2 in JSON, as DRF's IntegerField reads it
        if isinstance(value, bool) or not isinstance(value, int) or not ORDER_RANGE[0] <= value <= ORDER_RANGE[1]:
            raise ValidationError("A valid integer is required.", attr=f"orders__{key}")
        if config_id not in enabled_ids:
            raise ValidationError(
                f"No enabled plugin config with id {config_id} in this project.",
                attr=f"orders__{key}",
                code="does_not_exist",
            )
        parsed[config_id] = value
    return parsed


def rearrange_configs(conn: sqlite3.Connection, *, project_id: int, user_id: int, orders: Any, now: str) -> None:
    """Set the ``order`` of enabled configs from ``{"<config id>": order}``; each change is logged."""
    enabled = {int(row["id"]): row for row in list_enabled_plugin_configs(conn, project_id)}
    parsed = _parse_orders(orders, set(enabled))
    with transaction(conn):
        for config_id, order in parsed.items():
            row = enabled[config_id]
            if row["order"] == order:
                continue
            update_plugin_config(conn, config_id, {"order": order}, now)
            _log(conn, row, "order_changed", user_id, now, changes=[_change("order", row["order"], order)])


def migrate_config(conn: sqlite3.Connection, *, row: Mapping[str, Any], user_id: int, now: str) -> None:
    """Upgrade a config stored at an older schema version to the plugin's current one."""
    plugin = resolve_plugin(int(row["plugin_id"]))
    version = int(row["config_schema_version"])
    if version >= plugin.config_schema_version:
        raise ValidationError(
            f"Nothing to migrate: this config already uses version {version} of the {plugin.name} config schema,"
            " the current one.",
            code="no_migration",
        )
    upgraded = clean_config(plugin, plugin.upgrade_config(row["config"], version))
    with transaction(conn):
        update_plugin_config(
            conn, int(row["id"]), {"config": upgraded, "config_schema_version": plugin.config_schema_version}, now
        )
        diff = config_changes(plugin.secret_keys(), row["config"], upgraded)
        migration = {"from_version": version, "to_version": plugin.config_schema_version}
        _log(conn, row, "config_updated", user_id, now, changes=diff, migration=migration)


def run_job(conn: sqlite3.Connection, *, row: Mapping[str, Any], user_id: int, job: Any, now: str) -> dict[str, Any]:
    """Validate and run a job of the config's plugin; returns what it did. Logged as ``job_triggered``."""
    plugin = resolve_plugin(int(row["plugin_id"]))
    job = job if isinstance(job, Mapping) else {}
    job_type = job.get("type")
    if job_type is None or job_type == "":
        raise ValidationError("The job type is required (job.type).", attr="job__type", code="required")
    if not isinstance(job_type, str) or job_type not in plugin.jobs:
        available = ", ".join(sorted(plugin.jobs)) or "none"
        raise ValidationError(
            f'"{job_type}" is not a job of {plugin.name} (its jobs: {available}).',
            attr="job__type",
            code="invalid_choice",
        )
    operation = job.get("operation") or "start"
    if operation not in JOB_OPERATIONS:
        raise ValidationError(f'"{operation}" is not a valid choice.', attr="job__operation", code="invalid_choice")
    payload = validate_job_payload(plugin.jobs[job_type], job.get("payload"))
    config = plugin.upgrade_config(row["config"], int(row["config_schema_version"]))
    job_id = new_uuid()
    with transaction(conn):
        result = run_plugin_job(
            conn,
            job_name=job_type,
            project_id=int(row["project_id"]),
            process_event=plugin.process_event,
            config=config,
            payload=payload,
        )
        trigger = {"job_type": job_type, "job_id": job_id, "payload": payload, "result": result}
        _log(conn, row, "job_triggered", user_id, now, trigger=trigger)
    return {"job_id": job_id, "type": job_type, "operation": operation, "payload": payload, "result": result}
