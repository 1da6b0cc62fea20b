"""Property filter: drop listed properties from every event (e.g. ``$ip`` or an email that must not be kept).

Schema version 2 splits the one list of version 1 into event properties and person properties. Version 1
wrote person properties as ``$set.email`` / ``$set_once.email`` in the same list.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from .base import Event, Plugin
from .jobs import REPROCESS_JOB
from .schema import ConfigField

__all__ = ["PLUGIN", "process_event", "split_names", "migrate_v1_to_v2"]

PERSON_PROPERTY_BAGS = ("$set", "$set_once")


def split_names(text: Any) -> tuple[str, ...]:
    """The names of a comma-separated list, trimmed, empty entries left out."""
    return _split(str(text or ""))


@lru_cache(maxsize=256)  # the same few config strings are split for every event
def _split(text: str) -> tuple[str, ...]:
    return tuple(name.strip() for name in text.split(",") if name.strip())


def process_event(event: Event, config: Mapping[str, Any]) -> Event:
    drop_event = split_names(config.get("event_properties"))
    drop_person = split_names(config.get("person_properties"))
    properties = {key: value for key, value in event.get("properties", {}).items() if key not in drop_event}
    for bag in PERSON_PROPERTY_BAGS:
        if drop_person and isinstance(properties.get(bag), dict):
            properties[bag] = {key: value for key, value in properties[bag].items() if key not in drop_person}
    return {**event, "properties": properties}


def migrate_v1_to_v2(config: dict[str, Any]) -> dict[str, Any]:
    """``properties`` (``$set.x`` entries naming person properties) -> ``event_properties`` + ``person_properties``."""
    event_names: list[str] = []
    person_names: list[str] = []
    for name in split_names(config.get("properties")):
        bag, dot, rest = name.partition(".")
        if dot and bag in PERSON_PROPERTY_BAGS and rest:
            if rest not in person_names:
                person_names.append(rest)
        elif name not in event_names:
            event_names.append(name)
    upgraded = {key: value for key, value in config.items() if key != "properties"}
    upgraded["event_properties"] = ",".join(event_names)
    upgraded["person_properties"] = ",".join(person_names)
    return upgraded


PLUGIN = Plugin(
    id=1,
    slug="property-filter",
    name="Property Filter",
    description="Drop the properties you list from every event before it is stored, e.g. $ip or email.",
    tag="2.0.0",
    process_event=process_event,
    config_schema=(
        ConfigField(
            key="event_properties",
            name="Event properties to drop",
            hint="Comma-separated property names, e.g. $ip,email",
        ),
        ConfigField(
            key="person_properties",
            name="Person properties to drop",
            hint="Comma-separated names removed from $set and $set_once, e.g. email,phone",
        ),
    ),
    config_schema_version=2,
    migrations={1: migrate_v1_to_v2},
    jobs={REPROCESS_JOB.name: REPROCESS_JOB},
)
