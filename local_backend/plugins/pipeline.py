"""The plugin pipeline: a project's enabled plugin configs, run in order on each ingested event.

Ingestion calls the three functions in turn::

    plugins = load_enabled_plugins(conn, project_id)
    results = [run_pipeline(event, plugins) for event in batch]   # pure; result.event None = dropped
    record_pipeline_outcomes(conn, results, now)                  # delivery counts and latest errors

A plugin that raises does not stop the event: the failure is recorded against its config and the event goes
on, unchanged by that plugin, to the next one. An event a plugin drops reaches no later plugin.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NotRequired, TypedDict

from ..clock import format_instant, parse_instant
from ..store.db import transaction
from ..store.plugin_metrics import add_outcomes, delivery_rates, hour_number, set_config_errors
from .base import Event, Plugin
from .catalog import get_plugin

__all__ = [
    "ConfiguredPlugin",
    "PluginFailure",
    "PipelineResult",
    "load_enabled_plugins",
    "run_pipeline",
    "record_pipeline_outcomes",
    "delivery_rates",
]


@dataclass(frozen=True)
class ConfiguredPlugin:
    """One enabled config: its plugin and its config, already upgraded to the plugin's current schema."""

    config_id: int
    plugin: Plugin
    config: Mapping[str, Any]
    order: int = 0


class PluginFailure(TypedDict):
    config_id: int
    message: str
    event_uuid: str | None
    event: NotRequired[str | None]  # the event's name
    name: NotRequired[str]  # the kind of error, e.g. "ValueError"


@dataclass
class PipelineResult:
    """``event`` is the event to store, or None when a plugin dropped it."""

    event: Event | None
    processed: list[int] = field(default_factory=list)  # config ids that ran without raising, in order
    failures: list[PluginFailure] = field(default_factory=list)

    @property
    def dropped(self) -> bool:
        return self.event is None


def load_enabled_plugins(conn: sqlite3.Connection, project_id: int) -> list[ConfiguredPlugin]:
    """The project's enabled, not deleted configs of event-processing plugins, by ``order`` then id."""
    rows = conn.execute(
        'SELECT id, plugin_id, "order", config, config_schema_version FROM plugin_configs'
        ' WHERE project_id = ? AND enabled = 1 AND deleted = 0 ORDER BY "order", id',
        (project_id,),
    ).fetchall()
    configured = []
    for row in rows:
        plugin = get_plugin(int(row["plugin_id"]))
        if plugin is None or not plugin.processes_events:
            continue
        config = plugin.upgrade_config(json.loads(row["config"] or "{}"), int(row["config_schema_version"] or 1))
        configured.append(ConfiguredPlugin(config_id=int(row["id"]), plugin=plugin, config=config, order=row["order"]))
    return configured


def _own_copy(event: Event) -> Event:
    """A copy a plugin may change without touching what earlier plugins produced."""
    properties = event.get("properties")
    return {**event, "properties": dict(properties) if isinstance(properties, Mapping) else {}}


def run_pipeline(event: Event, plugins: Iterable[ConfiguredPlugin]) -> PipelineResult:
    """Run ``event`` through ``plugins`` in the order given. Pure: nothing is read or written."""
    result = PipelineResult(event=event)
    current = event
    for configured in plugins:
        try:
            output = configured.plugin.process_event(_own_copy(current), configured.config)
            if output is not None and not isinstance(output, dict):
                raise TypeError(f"plugin returned {type(output).__name__}, expected an event or None")
        except Exception as exc:  # any plugin error is recorded, never fatal to the event
            result.failures.append(
                {
                    "config_id": configured.config_id,
                    "message": str(exc) or type(exc).__name__,
                    "event_uuid": current.get("uuid"),
                    "event": current.get("event"),
                    "name": type(exc).__name__,
                }
            )
            continue
        result.processed.append(configured.config_id)
        if output is None:
            result.event = None
            return result
        current = output
    result.event = current
    return result


def record_pipeline_outcomes(conn: sqlite3.Connection, results: Iterable[PipelineResult], now: datetime | str) -> None:
    """Add each config's successes and failures to the current hour and store each config's latest error."""
    instant = parse_instant(now) if isinstance(now, str) else now
    counts: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    errors: dict[int, dict[str, Any]] = {}
    for result in results:
        for config_id in result.processed:
            counts[config_id][0] += 1
        for failure in result.failures:
            counts[failure["config_id"]][1] += 1
            errors[failure["config_id"]] = {
                "message": failure["message"],
                "time": format_instant(instant),
                "name": failure.get("name", "Error"),
                "event_uuid": failure["event_uuid"],
                "event": failure.get("event"),
            }
    if not counts:
        return
    with transaction(conn):
        # Outcomes of configs that are not stored (plugins built in code, say) have nowhere to go.
        ids = list(counts)
        known = {
            row[0]
            for row in conn.execute(f"SELECT id FROM plugin_configs WHERE id IN ({','.join('?' for _ in ids)})", ids)
        }
        counts = {key: value for key, value in counts.items() if key in known}
        errors = {key: value for key, value in errors.items() if key in known}
        add_outcomes(conn, hour_number(instant), {key: (ok, failed) for key, (ok, failed) in counts.items()})
        set_config_errors(conn, errors)
