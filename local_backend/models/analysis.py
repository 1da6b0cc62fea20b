"""What every legacy calculation endpoint answers around its ``result``."""

from __future__ import annotations

from pydantic import BaseModel, Field

__all__ = ["Timing", "CalculationEnvelope"]


class Timing(BaseModel):
    k: str = Field(description="Phase of the calculation", examples=["./query"])
    t: float = Field(description="Seconds spent in it")


class CalculationEnvelope(BaseModel):
    timezone: str = Field(examples=["UTC"])
    last_refresh: str = Field(description="When the result was computed (app clock)")
    is_cached: bool = Field(description="Always false: these endpoints compute on every request")
    timings: list[Timing]
