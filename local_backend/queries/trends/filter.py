"""The filter ``insights/trend/`` reads: the shared filter (:class:`..filters.BaseFilter`) plus display, compare
and formula."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, field_validator, model_validator

from ...errors import ValidationError
from ..filters import BaseFilter

__all__ = [
    "DISPLAYS",
    "AGGREGATE_DISPLAYS",
    "NON_BREAKDOWN_DISPLAYS",
    "CUMULATIVE_DISPLAY",
    "TrendsFilter",
]

DISPLAYS = (
    "ActionsLineGraph",
    "ActionsLineGraphCumulative",
    "ActionsAreaGraph",
    "ActionsBar",
    "ActionsStackedBar",
    "ActionsTable",
    "ActionsPie",
    "ActionsDonut",
    "ActionsBarValue",
    "WorldMap",
    "BoldNumber",
)
AGGREGATE_DISPLAYS = frozenset(
    {"ActionsTable", "ActionsPie", "ActionsDonut", "ActionsBarValue", "WorldMap", "BoldNumber"}
)
NON_BREAKDOWN_DISPLAYS = frozenset({"BoldNumber"})
CUMULATIVE_DISPLAY = "ActionsLineGraphCumulative"


class TrendsFilter(BaseFilter):
    """The legacy trends filter (see :class:`..queries.filters.BaseFilter` for the shared fields)."""

    model_config = ConfigDict(extra="ignore")

    display: str = "ActionsLineGraph"
    compare: bool = False
    compare_to: str | None = None
    formula: str | None = None

    @field_validator("display", mode="before")
    @classmethod
    def _known_display(cls, value: Any) -> Any:
        if value in (None, ""):
            return "ActionsLineGraph"
        if value not in DISPLAYS:
            raise ValueError(f"Unknown display '{value}': use one of {', '.join(DISPLAYS)}")
        return value

    @field_validator("formula", "compare_to", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        return None if value == "" else value

    @model_validator(mode="after")
    def _needs_a_series(self) -> TrendsFilter:
        if not self.events and not self.actions:
            raise ValidationError("A trend needs at least one of events or actions.", attr="events")
        return self

    @property
    def is_aggregate(self) -> bool:
        return self.display in AGGREGATE_DISPLAYS

    @property
    def uses_breakdown(self) -> bool:
        return self.breakdown is not None and self.display not in NON_BREAKDOWN_DISPLAYS
