"""Trends: the shapes ``insights/trend/`` answers with (its filter is :mod:`..queries.trends.filter`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .analysis import CalculationEnvelope
from .people import PeopleUrl

__all__ = ["TrendSeries", "TrendsResponse"]


class TrendSeries(BaseModel):
    """One series. Time-series displays fill ``data``/``days``/``labels``; aggregated ones ``aggregated_value``.
    Stickiness series count actors by their number of active intervals (``days`` 1..N); lifecycle series carry
    their ``status``."""

    model_config = ConfigDict(extra="allow")

    action: dict[str, Any] | None = Field(None, description="The entity (absent for formula series)")
    label: str
    count: int | float
    data: list[int | float]
    days: list[str] | list[int] = Field(
        description="Bucket starts, YYYY-MM-DD (hourly: with the time); stickiness: the numbers of intervals 1..N"
    )
    labels: list[str]
    filter: dict[str, Any] | None = None
    breakdown_value: Any = None
    aggregated_value: int | float | None = None
    compare: bool | None = None
    compare_label: str | None = None
    status: str | None = Field(None, description="Lifecycle: new, returning, resurrecting or dormant")
    persons_urls: list[PeopleUrl] | None = Field(None, description="Each point's people, in the order of days")
    persons: PeopleUrl | None = Field(None, description="An aggregated display's people, over the whole range")


class TrendsResponse(CalculationEnvelope):
    result: list[TrendSeries]
    next: str | None = Field(None, description="The next page of breakdown values, when there are more")
