"""Paths: the edges ``insights/path/`` answers with (the filter is :mod:`..queries.paths.filter`)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from .analysis import CalculationEnvelope

__all__ = ["PathEdgeOut", "PathsResponse"]


class PathEdgeOut(BaseModel):
    source: str = Field(examples=["1_/home"])
    target: str = Field(examples=["2_/pricing"])
    value: int = Field(description="How many sessions made this step")
    average_conversion_time: float = Field(description="Mean time between the two, in milliseconds")


class PathsResponse(CalculationEnvelope):
    result: list[PathEdgeOut]
