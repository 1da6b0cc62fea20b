"""The filter ``insights/trend/`` reads: the shared filter (:class:`..base_filter.BaseFilter`) plus display, compare
and formula."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field, field_validator, model_validator

from ...errors import ValidationError
from ...models.fields import Flag
from ..base_filter import NEEDS_A_SERIES, BaseFilter

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


def _display_schema(schema: dict[str, Any]) -> None:
    """One of the displays; null or empty for the default (its own validator words the refusal)."""
    schema.pop("type", None)
    schema["anyOf"] = [{"enum": list(DISPLAYS)}, {"type": "null"}, {"type": "string", "maxLength": 0}]


class TrendsFilter(BaseFilter):
    """The legacy trends filter (see :class:`..queries.filters.BaseFilter` for the shared fields)."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=NEEDS_A_SERIES)

    display: str = Field("ActionsLineGraph", json_schema_extra=_display_schema)
    compare: Flag = False
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
