"""Retention: the filter ``insights/retention/`` reads and the shapes it answers with."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..filter_params import decode_json_text
from ..queries.property_model import UnparsedPropertyFilter
from .analysis import CalculationEnvelope
from .fields import Flag, NameOrId

__all__ = [
    "RetentionEntity",
    "RetentionFilter",
    "RetentionValue",
    "RetentionRow",
    "RetentionResponse",
    "RetentionPerson",
    "RetentionPeoplePage",
    "PERIODS",
    "MAX_TOTAL_INTERVALS",
]

PERIODS = ("Hour", "Day", "Week", "Month")
MAX_TOTAL_INTERVALS = 120


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
    breakdowns: list[Any] | None = None

    @field_validator("target_entity", "returning_entity", "properties", "breakdowns", mode="before")
    @classmethod
    def _json_text(cls, value: Any) -> Any:
        return decode_json_text(value)

    @field_validator("period", mode="before")
    @classmethod
    def _period_any_case(cls, value: Any) -> Any:
        if isinstance(value, str) and value.capitalize() in PERIODS:
            return value.capitalize()
        return value

    @field_validator("breakdowns")
    @classmethod
    def _no_breakdowns(cls, value: list[Any] | None) -> list[Any] | None:
        if value:
            raise ValueError("Retention breakdowns are not supported by this backend")
        return value

    @property
    def returning(self) -> RetentionEntity:
        return self.returning_entity or self.target_entity


class RetentionValue(BaseModel):
    count: int
    people: list[Any] = Field(default_factory=list, description="Always empty; follow people_url.")
    people_url: str


class RetentionRow(BaseModel):
    values: list[RetentionValue] = Field(description="total_intervals - i cells: cohort size, then returners")
    label: str = Field(examples=["Day 0"])
    date: str = Field(description="Cohort start in the project timezone", examples=["2026-01-05T00:00:00Z"])
    people_url: str


class RetentionResponse(CalculationEnvelope):
    result: list[RetentionRow]


class RetentionPerson(BaseModel):
    person: dict[str, Any]
    appearances: list[int] = Field(description="1 where the person came back in that period of the cohort")


class RetentionPeoplePage(BaseModel):
    count: int
    next: str | None
    previous: str | None
    result: list[RetentionPerson]
