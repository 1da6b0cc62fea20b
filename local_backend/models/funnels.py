"""Funnels: the filter ``insights/funnel/`` reads and the shapes it answers with."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..filter_params import decode_json_text
from .analysis import CalculationEnvelope

__all__ = [
    "FunnelEntity",
    "FunnelExclusion",
    "FunnelFilter",
    "FunnelStep",
    "FunnelTrendSeries",
    "TimeToConvert",
    "FunnelResponse",
    "FunnelPeopleGroup",
    "FunnelPeoplePage",
    "WINDOW_UNITS",
    "VIZ_TYPES",
    "ATTRIBUTION_TYPES",
    "BREAKDOWN_TYPES",
    "INTERVALS",
    "DEFAULT_BREAKDOWN_LIMIT",
]

WINDOW_UNITS = ("second", "minute", "hour", "day", "week", "month")
VIZ_TYPES = ("steps", "trends", "time_to_convert")
ATTRIBUTION_TYPES = ("first_touch", "last_touch", "all_events", "step")
BREAKDOWN_TYPES = ("event", "person", "group", "cohort", "session", "hogql")
INTERVALS = ("hour", "day", "week", "month")
DEFAULT_BREAKDOWN_LIMIT = 10
MAX_BREAKDOWN_LIMIT = 1000


def _lower_choice(value: Any, choices: tuple[str, ...], what: str) -> Any:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or value.lower() not in choices:
        raise ValueError(f"'{value}' is not a {what}: use one of {', '.join(choices)}")
    return value.lower()


class FunnelEntity(BaseModel):
    """A step: an event (``id`` is its name) or an action (``id`` is the action's id), with its own properties."""

    model_config = ConfigDict(extra="ignore")

    id: str | int | None = None
    type: Literal["events", "actions"] = "events"
    order: int | None = None
    name: str | None = None
    custom_name: str | None = None
    properties: Any = None

    @field_validator("properties", mode="before")
    @classmethod
    def _json_text(cls, value: Any) -> Any:
        return decode_json_text(value)

    @model_validator(mode="after")
    def _typed_id(self) -> FunnelEntity:
        if self.type == "actions":
            if isinstance(self.id, str) and self.id.isdigit():
                self.id = int(self.id)
            if not isinstance(self.id, int):
                raise ValueError("An action step needs the action's integer id")
        elif isinstance(self.id, int):
            self.id = str(self.id)
        return self


class FunnelExclusion(FunnelEntity):
    """An event that, between steps ``funnel_from_step`` and ``funnel_to_step``, removes the attempt."""

    funnel_from_step: int | None = None
    funnel_to_step: int | None = None


class FunnelFilter(BaseModel):
    """The legacy funnel filter. Unknown keys are ignored; bad values of known keys are a 400 naming them."""

    model_config = ConfigDict(extra="ignore")

    events: list[FunnelEntity] = Field(default_factory=list)
    actions: list[FunnelEntity] = Field(default_factory=list)
    exclusions: list[FunnelExclusion] = Field(default_factory=list)
    insight: str | None = None
    date_from: str | None = None
    date_to: str | None = None
    interval: str = "day"
    properties: Any = None
    filter_test_accounts: bool = False
    breakdown: str | int | list[Any] | None = None
    breakdown_type: str | None = None
    breakdown_limit: int = Field(DEFAULT_BREAKDOWN_LIMIT, ge=1, le=MAX_BREAKDOWN_LIMIT)
    breakdown_attribution_type: str = "first_touch"
    breakdown_attribution_value: int | None = Field(None, ge=0)
    breakdown_group_type_index: int | None = Field(None, ge=0, le=4)
    funnel_order_type: str = "ordered"
    funnel_viz_type: str | None = None
    display: str | None = None
    funnel_window_interval: int | None = Field(None, ge=1)
    funnel_window_interval_type: str | None = None
    funnel_window_interval_unit: str | None = None
    funnel_window_days: int | None = Field(None, ge=1)
    funnel_from_step: int | None = Field(None, ge=0)
    funnel_to_step: int | None = Field(None, ge=0)
    bin_count: int | None = None
    aggregation_group_type_index: int | None = Field(None, ge=0, le=4)
    funnel_step: int | None = None
    funnel_step_breakdown: Any = None

    @field_validator(
        "events", "actions", "exclusions", "properties", "breakdown", "funnel_step_breakdown", mode="before"
    )
    @classmethod
    def _json_text(cls, value: Any) -> Any:
        return decode_json_text(value)

    @field_validator("funnel_order_type", mode="before")
    @classmethod
    def _order_type(cls, value: Any) -> Any:
        return _lower_choice(value, ("ordered", "strict", "unordered"), "funnel order type") or "ordered"

    @field_validator("funnel_viz_type", mode="before")
    @classmethod
    def _viz_type(cls, value: Any) -> Any:
        return _lower_choice(value, VIZ_TYPES, "funnel visualisation")

    @field_validator("funnel_window_interval_type", "funnel_window_interval_unit", mode="before")
    @classmethod
    def _window_unit(cls, value: Any) -> Any:
        return _lower_choice(value, WINDOW_UNITS, "window unit")

    @field_validator("breakdown_attribution_type", mode="before")
    @classmethod
    def _attribution(cls, value: Any) -> Any:
        return _lower_choice(value, ATTRIBUTION_TYPES, "breakdown attribution type") or "first_touch"

    @field_validator("breakdown_type", mode="before")
    @classmethod
    def _breakdown_type(cls, value: Any) -> Any:
        return _lower_choice(value, BREAKDOWN_TYPES, "breakdown type")

    @field_validator("interval", mode="before")
    @classmethod
    def _interval(cls, value: Any) -> Any:
        return _lower_choice(value, INTERVALS, "interval") or "day"

    @property
    def steps(self) -> list[FunnelEntity]:
        """Events and actions by ``order`` (their position in the request breaks ties, events first)."""
        entities = [*self.events, *self.actions]
        return sorted(entities, key=lambda entity: entity.order if entity.order is not None else 0)

    @property
    def viz_type(self) -> str:
        if self.funnel_viz_type:
            return self.funnel_viz_type
        return "trends" if self.display == "ActionsLineGraph" else "steps"

    @property
    def window(self) -> tuple[int, str]:
        """``(amount, unit)``: the deprecated ``funnel_window_days`` only when the new fields are absent."""
        unit = self.funnel_window_interval_type or self.funnel_window_interval_unit
        if self.funnel_window_interval is None and unit is None and self.funnel_window_days is not None:
            return self.funnel_window_days, "day"
        return self.funnel_window_interval or 14, unit or "day"


class FunnelStep(BaseModel):
    action_id: str | int | None = Field(description="Event name or action id; null for unordered funnels")
    name: str | None
    custom_name: str | None
    order: int
    people: list[Any] = Field(default_factory=list, description="Always empty; follow the people URLs.")
    count: int
    type: str
    average_conversion_time: float | None = Field(description="Seconds from the previous step; null on step 0")
    median_conversion_time: float | None
    converted_people_url: str
    dropped_people_url: str | None = Field(description="Null on the first step")
    breakdown: Any = None
    breakdown_value: Any = None


class FunnelTrendSeries(BaseModel):
    count: int = Field(description="Number of periods")
    data: list[float] = Field(description="Conversion rate (percent) of those who entered in each period")
    days: list[str]
    labels: list[str]
    reached_from_step_count: list[int] = Field(default_factory=list)
    reached_to_step_count: list[int] = Field(default_factory=list)
    breakdown_value: Any = None


class TimeToConvert(BaseModel):
    bins: list[list[float]] = Field(description="[bin start in seconds, persons]")
    average_conversion_time: float | None


class FunnelResponse(CalculationEnvelope):
    result: list[FunnelStep] | list[list[FunnelStep]] | list[FunnelTrendSeries] | TimeToConvert


class FunnelPeopleGroup(BaseModel):
    people: list[dict[str, Any]] = Field(description="Persons (or groups, for group funnels) of this page")
    count: int = Field(description="How many are on this page")


class FunnelPeoplePage(BaseModel):
    results: list[FunnelPeopleGroup] = Field(description="One item, as PostHog's persons/funnel answers")
    count: int = Field(description="How many persons converted or dropped at the step in all")
    next: str | None
    previous: str | None
