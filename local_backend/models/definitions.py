"""Event and property definition shapes (PostHog's ``EventDefinition`` and ``PropertyDefinition`` records)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from ..store.event_rows import from_micros

__all__ = ["EventDefinition", "PropertyDefinition", "event_definition_body", "property_definition_body"]


def _iso(micros: int) -> str:
    return from_micros(micros).isoformat().replace("+00:00", "Z")


class EventDefinition(BaseModel):
    id: str = Field(description="Stable id derived from the project and the event name")
    name: str
    description: str | None = None
    tags: list[str] = Field(default_factory=list)
    volume_30_day: int = Field(description="Events of this name in the 30 days up to the server's now")
    query_usage_30_day: int | None = Field(None, description="Not tracked: always null")
    created_at: str = Field(description="When the event was first seen")
    last_seen_at: str
    is_action: bool = False
    action_id: int | None = None


class PropertyDefinition(BaseModel):
    id: str = Field(description="Stable id derived from the project, kind and property name")
    name: str
    description: str | None = None
    tags: list[str] = Field(default_factory=list)
    type: Literal["event", "person", "group"]
    group_type_index: int | None = Field(description="The group type of a group property, else null")
    property_type: str | None = Field(description="Numeric, String, Boolean or DateTime; null when not yet known")
    is_numerical: bool
    is_seen_on_filtered_events: bool | None = Field(
        description="With `event_names`: whether the property was found on those events; else null"
    )
    query_usage_30_day: int | None = Field(None, description="Not tracked: always null")


def event_definition_body(row: dict[str, Any]) -> dict[str, Any]:
    return EventDefinition(
        id=row["id"],
        name=row["name"],
        volume_30_day=row["volume_30_day"],
        created_at=_iso(row["created_at"]),
        last_seen_at=_iso(row["last_seen_at"]),
    ).model_dump()


def property_definition_body(row: dict[str, Any]) -> dict[str, Any]:
    return PropertyDefinition(**row).model_dump()
