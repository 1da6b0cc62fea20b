"""The filter ``insights/retention/`` and ``persons/retention/`` read: the target and returning events, period
and number of cohorts, and the breakdown that splits the cohorts (an event, person or group property, a HogQL
expression, or cohorts)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ...errors import ValidationError
from ...models.fields import Flag, Integer, NameOrId, key_problem, or_absent
from ...models.property_filters import UnparsedPropertyFilter
from ..base_filter import BREAKDOWN_TYPES, DEFAULT_BREAKDOWN_LIMIT, MAX_BREAKDOWN_LIMIT
from ..filter_parsing import decode_json_text

__all__ = [
    "RetentionEntity",
    "RetentionFilter",
    "PERIODS",
    "MAX_TOTAL_INTERVALS",
    "RETENTION_BREAKDOWN_TYPES",
]

PERIODS = ("Hour", "Day", "Week", "Month")
MAX_TOTAL_INTERVALS = 120
# a session breakdown has no meaning for a cohort of persons (their start events may lie in many sessions)
_BREAKDOWN_ITEM_KEYS = {"property", "type", "group_type_index"}
RETENTION_BREAKDOWN_TYPES = tuple(kind for kind in BREAKDOWN_TYPES if kind != "session")


class RetentionEntity(BaseModel):
    """An event (``id`` is its name; null means any event) or an action (``id`` is the action's id)."""

    model_config = ConfigDict(extra="ignore")

    id: NameOrId | None = "$pageview"
    type: Literal["events", "actions"] = "events"
    name: str | None = None
    properties: UnparsedPropertyFilter = None

    @model_validator(mode="after")
    def _action_needs_an_id(self) -> RetentionEntity:
        if self.type == "actions" and not isinstance(self.id, int):
            if isinstance(self.id, str) and self.id.isascii() and self.id.isdigit() and len(self.id) < 19:
                self.id = int(self.id)
            else:
                raise ValueError("An action entity needs the action's integer id")
        if self.type == "events" and isinstance(self.id, int):
            self.id = str(self.id)
        return self


class RetentionFilter(BaseModel):
    """The legacy retention filter. Unknown keys (``insight``, ``display``, ``date_from``...) are ignored."""

    model_config = ConfigDict(extra="ignore")

    target_entity: RetentionEntity = Field(default_factory=RetentionEntity)
    returning_entity: RetentionEntity | None = None
    period: Literal["Hour", "Day", "Week", "Month"] = "Day"
    total_intervals: int = Field(11, ge=1, le=MAX_TOTAL_INTERVALS)
    retention_type: Literal["retention_recurring", "retention_first_time"] = "retention_recurring"
    date_to: str | None = None
    properties: UnparsedPropertyFilter = None
    filter_test_accounts: Flag = False
    breakdown: str | int | list[str | int] | None = None
    breakdown_type: Literal["event", "person", "cohort", "group", "hogql"] | None = None
    breakdown_limit: Integer = Field(DEFAULT_BREAKDOWN_LIMIT, ge=1, le=MAX_BREAKDOWN_LIMIT, json_schema_extra=or_absent)
    breakdown_group_type_index: Integer | None = Field(None, ge=0, le=4)
    breakdowns: list[Any] | None = None

    @field_validator("target_entity", "returning_entity", "properties", "breakdowns", "breakdown", mode="before")
    @classmethod
    def _json_text(cls, value: Any) -> Any:
        return decode_json_text(value)

    @field_validator("breakdown_limit", mode="before")
    @classmethod
    def _blank_limit(cls, value: Any) -> Any:
        return DEFAULT_BREAKDOWN_LIMIT if value in (None, "") else value

    @field_validator("breakdown_type", mode="before")
    @classmethod
    def _known_breakdown_type(cls, value: Any) -> Any:
        if value is not None and value not in RETENTION_BREAKDOWN_TYPES:
            raise ValueError(f"Unknown breakdown_type '{value}': use one of {', '.join(RETENTION_BREAKDOWN_TYPES)}")
        return value

    @model_validator(mode="after")
    def _breakdown_needs(self) -> RetentionFilter:
        """A property breakdown names one property (a non-empty text); a cohort breakdown lists cohort ids."""
        if self.breakdown in (None, "", []):
            self.breakdown = None
            return self
        kind = self.breakdown_type = self.breakdown_type or "event"
        if kind == "group" and self.breakdown_group_type_index is None:
            raise ValidationError(
                "A group breakdown needs breakdown_group_type_index.", attr="breakdown_group_type_index"
            )
        if kind == "cohort":
            return self
        if not isinstance(self.breakdown, str):
            raise ValidationError(f"A breakdown of type {kind} is a property name (a string).", attr="breakdown")
        problem = key_problem(self.breakdown) if kind != "hogql" else None
        if problem is not None:
            raise ValidationError(f"A breakdown property name {problem}.", attr="breakdown")
        return self

    @field_validator("period", mode="before")
    @classmethod
    def _period_any_case(cls, value: Any) -> Any:
        if isinstance(value, str) and value.capitalize() in PERIODS:
            return value.capitalize()
        return value

    @model_validator(mode="before")
    @classmethod
    def _one_of_breakdowns(cls, data: Any) -> Any:
        """``breakdowns`` of one item (PostHog's own spelling of a single retention breakdown) is that breakdown."""
        if not isinstance(data, dict):
            return data
        items = decode_json_text(data.get("breakdowns"), "breakdowns")
        if not isinstance(items, list) or len(items) != 1 or data.get("breakdown") not in (None, "", []):
            return data
        [item] = items
        if not isinstance(item, dict) or set(item) - _BREAKDOWN_ITEM_KEYS:
            return data
        return {
            **data,
            "breakdowns": None,
            "breakdown": item.get("property"),
            "breakdown_type": item.get("type"),
            "breakdown_group_type_index": item.get("group_type_index"),
        }

    @field_validator("breakdowns")
    @classmethod
    def _no_breakdowns(cls, value: list[Any] | None) -> list[Any] | None:
        if value:
            raise ValueError(
                "Retention breaks down by one property: give it as breakdown, or as breakdowns of one "
                "{property, type, group_type_index}"
            )
        return value

    @property
    def returning(self) -> RetentionEntity:
        """The returning entity; without one, the target's event or action alone (as PostHog's), so that the
        target's own ``properties`` choose who joins a cohort but not what counts as coming back."""
        if self.returning_entity is not None:
            return self.returning_entity
        return RetentionEntity(id=self.target_entity.id, type=self.target_entity.type)
