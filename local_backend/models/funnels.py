"""Funnels: the shapes ``insights/funnel/`` and its people and correlation endpoints answer with (the filter is
:mod:`..queries.funnels.filter`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from .analysis import CalculationEnvelope

__all__ = [
    "FunnelStep",
    "FunnelTrendSeries",
    "TimeToConvert",
    "FunnelResponse",
    "FunnelPeopleGroup",
    "FunnelPeoplePage",
    "CorrelatedEvent",
    "CorrelationEntry",
    "CorrelationResult",
    "CorrelationResponse",
]


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
    breakdown: Any = Field(None, description="As on the steps: a cohort's name beside its id, else the value")
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


class CorrelatedEvent(BaseModel):
    event: str = Field(description="Event name, or 'property::value' for property correlation")
    properties: dict[str, Any] = Field(default_factory=dict)
    elements: list[Any] = Field(default_factory=list)


class CorrelationEntry(BaseModel):
    event: CorrelatedEvent
    success_count: int = Field(description="Converted persons who did it")
    failure_count: int = Field(description="Persons who dropped off and did it")
    odds_ratio: float
    correlation_type: Literal["success", "failure"]
    success_people_url: str
    failure_people_url: str


class CorrelationResult(BaseModel):
    events: list[CorrelationEntry] = Field(description="10 most positive (odds ratio descending), then 10 negative")
    skewed: bool = Field(description="One side outnumbers the other more than 10 to 1 (or one side is empty)")


class CorrelationResponse(BaseModel):
    result: CorrelationResult
    last_refresh: str
    is_cached: bool
