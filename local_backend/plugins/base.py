"""What a built-in plugin is: metadata, a config schema, an event function, and optionally jobs and a site app.

A plugin is plain data plus a pure function. The catalog (:mod:`local_backend.plugins.catalog`) lists them
with ids fixed in code, so a config made in one database points at the same plugin in every other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .schema import ConfigField, field_defaults

__all__ = ["Event", "ProcessEvent", "ConfigMigration", "Job", "Plugin"]

# {"uuid", "event", "distinct_id", "properties": {...}, "timestamp": ISO text, "team_id"}
Event = dict[str, Any]
# (event, config) -> the event to keep (possibly changed) or None to drop it. Must not mutate its input.
ProcessEvent = Callable[[Event, Mapping[str, Any]], Event | None]
# config at schema version N -> config at version N + 1
ConfigMigration = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Job:
    """A named action a user can trigger on one config; ``payload`` maps payload keys to their schema."""

    name: str
    description: str
    payload: Mapping[str, Mapping[str, Any]]


@dataclass(frozen=True, kw_only=True)
class Plugin:
    """A built-in plugin. ``migrations[n]`` turns a version-``n`` config into a version ``n + 1`` one."""

    id: int
    slug: str
    name: str
    description: str
    tag: str
    process_event: ProcessEvent
    config_schema: tuple[ConfigField, ...] = ()
    config_schema_version: int = 1
    migrations: Mapping[int, ConfigMigration] = field(default_factory=dict)
    jobs: Mapping[str, Job] = field(default_factory=dict)
    frontend: str | None = None
    # Site apps only serve browser code; they are not run on ingested events.
    processes_events: bool = True
    # Extra checks across fields (e.g. a number in a string field); raises ValueError(key, message).
    check_config: Callable[[Mapping[str, Any]], None] | None = None

    @property
    def url(self) -> str:
        return f"builtin://{self.slug}"

    def default_config(self) -> dict[str, Any]:
        return field_defaults(self.config_schema)

    def secret_keys(self) -> frozenset[str]:
        return frozenset(f.key for f in self.config_schema if f.secret)

    def upgrade_config(self, config: Mapping[str, Any], version: int) -> dict[str, Any]:
        """``config`` stored at schema ``version``, brought to the current version (unchanged if current)."""
        upgraded = dict(config)
        for step in range(version, self.config_schema_version):
            upgraded = self.migrations[step](upgraded)
        return upgraded
