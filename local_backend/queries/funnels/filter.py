"""The filter ``insights/funnel/`` reads: the shared filter plus steps, window, order, exclusions and visualisation."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import BeforeValidator, ConfigDict, Field, field_validator, model_validator

from ...errors import ValidationError
from ...limits import MAX_ENTITIES
from ...models.fields import Int64, Integer, any_case, check_int64, or_absent
from ...models.property_filters import PropertyGroup, parse_properties
from ..base_filter import NEEDS_A_SERIES, BaseFilter, Entity
from ..filter_parsing import decode_json_text

__all__ = [
    "FunnelExclusion",
    "FunnelFilter",
    "WINDOW_UNITS",
    "VIZ_TYPES",
    "ATTRIBUTION_TYPES",
    "ORDER_TYPES",
    "DEFAULT_BREAKDOWN_LIMIT",
]

WINDOW_UNITS = ("second", "minute", "hour", "day", "week", "month")
VIZ_TYPES = ("steps", "trends", "time_to_convert")
ATTRIBUTION_TYPES = ("first_touch", "last_touch", "all_events", "step")
ORDER_TYPES = ("ordered", "strict", "unordered")
DEFAULT_BREAKDOWN_LIMIT = 10
MAX_BREAKDOWN_LIMIT = 1000


def _lower_choice(value: Any, choices: tuple[str, ...], what: str) -> Any:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or value.lower() not in choices:
        raise ValueError(f"'{value}' is not a {what}: use one of {', '.join(choices)}")
    return value.lower()


def _choice_schema(choices: tuple[str, ...]) -> Any:
    """``json_schema_extra`` of a field read by :func:`_lower_choice`: one of ``choices`` in any case, empty or
    null (the default)."""

    def extra(schema: dict[str, Any]) -> None:
        schema.pop("type", None)
        schema["anyOf"] = [{"type": "string", "pattern": f"^(?:{any_case(*choices)}|)$"}, {"type": "null"}]

    return extra


class FunnelExclusion(Entity):
    """An event that, between steps ``funnel_from_step`` and ``funnel_to_step``, removes the attempt."""

    funnel_from_step: Integer | None = None
    funnel_to_step: Integer | None = None


def _prepare_exclusions(data: dict[str, Any]) -> None:
    items = decode_json_text(data.get("exclusions"), "exclusions")
    if items is None:
        return
    if not isinstance(items, list):
        raise ValidationError("Expected a list of exclusions.", attr="exclusions")
    if len(items) > MAX_ENTITIES:
        raise ValidationError(f"A funnel holds at most {MAX_ENTITIES} exclusions.", attr="exclusions")
    prepared = []
    for index, item in enumerate(items):
        if isinstance(item, dict):
            item = {**item, "type": "events" if item.get("type") is None else item["type"]}
            item["properties"] = parse_properties(item.get("properties"), f"exclusions__{index}__properties")
        prepared.append(item)
    data["exclusions"] = prepared


class FunnelFilter(BaseFilter):
    """The legacy funnel filter: the shared base filter plus the funnel's own fields.

    Unknown keys are ignored; a bad value of a known key is a 400 naming it.
    """

    model_config = ConfigDict(json_schema_extra=NEEDS_A_SERIES)  # a funnel has a step
    breakdown_lists: ClassVar[bool] = True

    exclusions: list[FunnelExclusion] = Field(default_factory=list, max_length=MAX_ENTITIES)
    insight: str | None = None
    display: str | None = None
    breakdown: Annotated[str | Int64 | list[str | Int64] | None, BeforeValidator(check_int64)] = None
    breakdown_limit: Integer = Field(DEFAULT_BREAKDOWN_LIMIT, ge=1, le=MAX_BREAKDOWN_LIMIT, json_schema_extra=or_absent)
    breakdown_attribution_type: str = Field("first_touch", json_schema_extra=_choice_schema(ATTRIBUTION_TYPES))
    breakdown_attribution_value: Integer | None = Field(None, ge=0)
    funnel_order_type: str = Field("ordered", json_schema_extra=_choice_schema(ORDER_TYPES))
    funnel_viz_type: str | None = Field(None, json_schema_extra=_choice_schema(VIZ_TYPES))
    funnel_window_interval: Integer | None = Field(None, ge=1)
    funnel_window_interval_type: str | None = Field(None, json_schema_extra=_choice_schema(WINDOW_UNITS))
    funnel_window_interval_unit: str | None = Field(None, json_schema_extra=_choice_schema(WINDOW_UNITS))
    funnel_window_days: Integer | None = Field(None, ge=1)
    funnel_from_step: Integer | None = Field(None, ge=0)
    funnel_to_step: Integer | None = Field(None, ge=0)
    bin_count: Integer | None = None
    funnel_step: Integer | None = None
    funnel_step_breakdown: Any = None

    @model_validator(mode="before")
    @classmethod
    def _read_funnel(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        _prepare_exclusions(data)
        data["funnel_step_breakdown"] = decode_json_text(data.get("funnel_step_breakdown"), "funnel_step_breakdown")
        return data

    @field_validator("funnel_order_type", mode="before")
    @classmethod
    def _order_type(cls, value: Any) -> Any:
        return _lower_choice(value, ORDER_TYPES, "funnel order type") or "ordered"

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

    def property_groups(self) -> list[PropertyGroup]:
        return [*super().property_groups(), *(exclusion.properties for exclusion in self.exclusions)]

    @property
    def steps(self) -> list[Entity]:
        """The entities in funnel order (actions then events, stably by ``order``)."""
        return self.entities

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
