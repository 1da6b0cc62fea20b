"""Retention: the shapes ``insights/retention/`` and ``persons/retention/`` answer with (the filter is
:mod:`..queries.retention.filter`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from .analysis import CalculationEnvelope

__all__ = ["RetentionValue", "RetentionRow", "RetentionResponse", "RetentionPerson", "RetentionPeoplePage"]


class RetentionValue(BaseModel):
    count: int
    people: list[Any] = Field(default_factory=list, description="Always empty; follow people_url.")
    people_url: str


class RetentionRow(BaseModel):
    values: list[RetentionValue] = Field(description="total_intervals - i cells: cohort size, then returners")
    label: str = Field(examples=["Day 0"])
    date: str = Field(description="Cohort start in the project timezone", examples=["2026-01-05T00:00:00Z"])
    people_url: str
    breakdown_value: str | int | None = Field(
        None, description="Broken down only: the value (or cohort id) whose cohorts these rows are"
    )


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
