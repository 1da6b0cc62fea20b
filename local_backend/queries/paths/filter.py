"""The filter ``insights/path/`` reads: which events make path items, where paths start or end, how
many steps and edges.

Without ``include_event_types`` (or with an empty list) every event is a path item, as in PostHog; the
legacy ``include_custom_events`` names further events to include by name (alone, only those).

``funnel_paths`` (after, before or between funnel steps) with ``funnel_filter`` (a funnel's legacy filter) and
``funnel_step`` (here or inside ``funnel_filter``) keeps only the paths of a funnel step's people around that step
(:mod:`.funnel`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from ...errors import ValidationError
from ...models.fields import Flag, Integer
from ...models.property_filters import UnparsedPropertyFilter
from ..filter_parsing import decode_json_text

__all__ = [
    "PathFilter",
    "EVENT_TYPES",
    "LEGACY_PATH_TYPES",
    "MAX_STEP_LIMIT",
    "PAGEVIEW",
    "SCREEN",
    "CUSTOM_EVENT",
    "without_trailing_slash",
    "FUNNEL_PATHS",
    "AFTER_STEP",
    "BEFORE_STEP",
    "BETWEEN_STEPS",
]

PAGEVIEW = "$pageview"
SCREEN = "$screen"
CUSTOM_EVENT = "custom_event"
EVENT_TYPES = (PAGEVIEW, SCREEN, CUSTOM_EVENT)
# The older single ``path_type`` parameter, as the event types it stands for.
LEGACY_PATH_TYPES = {PAGEVIEW: [PAGEVIEW], SCREEN: [SCREEN], CUSTOM_EVENT: [CUSTOM_EVENT]}
MAX_STEP_LIMIT = 50
AFTER_STEP = "funnel_path_after_step"
BEFORE_STEP = "funnel_path_before_step"
BETWEEN_STEPS = "funnel_path_between_steps"
FUNNEL_PATHS = (AFTER_STEP, BEFORE_STEP, BETWEEN_STEPS)
MAX_GROUPINGS = 50


def without_trailing_slash(text: str) -> str:
    """``/pricing/`` -> ``/pricing``; ``/`` itself stays (pageview items and path points are read so)."""
    return text[:-1] if len(text) > 1 and text.endswith("/") else text


def _path_type_schema(schema: dict[str, Any]) -> None:
    """path_type names one of the event types (its own validator words the refusal)."""
    schema["anyOf"] = [{"enum": list(LEGACY_PATH_TYPES)}, {"type": "null"}]


class PathFilter(BaseModel):
    """The legacy paths filter. Unknown keys are ignored; ``path_type`` is read when no event types are given."""

    model_config = ConfigDict(extra="ignore")

    include_event_types: list[Literal["$pageview", "$screen", "custom_event"]] | None = None
    include_custom_events: list[str] = Field(default_factory=list)
    path_type: str | None = Field(None, json_schema_extra=_path_type_schema)
    start_point: str | None = None
    end_point: str | None = None
    step_limit: Integer = Field(5, ge=2, le=MAX_STEP_LIMIT)
    path_groupings: list[str] = Field(default_factory=list, max_length=MAX_GROUPINGS)
    exclude_events: list[str] = Field(default_factory=list)
    edge_limit: Integer | None = Field(None, ge=1)
    min_edge_weight: Integer | None = Field(None, ge=0)
    max_edge_weight: Integer | None = Field(None, ge=0)
    date_from: str | None = "-7d"
    date_to: str | None = None
    properties: UnparsedPropertyFilter = None
    filter_test_accounts: Flag = False
    funnel_paths: Literal["funnel_path_after_step", "funnel_path_before_step", "funnel_path_between_steps"] | None = (
        None
    )
    funnel_filter: dict[str, Any] | None = None
    funnel_step: Integer | None = None

    @field_validator(
        "include_event_types",
        "include_custom_events",
        "path_groupings",
        "exclude_events",
        "properties",
        "funnel_filter",
        mode="before",
    )
    @classmethod
    def _json_text(cls, value: Any) -> Any:
        return decode_json_text(value)

    @field_validator("funnel_paths", mode="before")
    @classmethod
    def _funnel_paths_any_case(cls, value: Any) -> Any:
        # PostHog's own constants once spelled two of them funneL_path_...
        return value.lower() if isinstance(value, str) and value.lower() in FUNNEL_PATHS else value

    @model_validator(mode="after")
    def _funnel_needs(self) -> PathFilter:
        if self.funnel_filter in ({}, None):
            self.funnel_filter = None
        if self.funnel_paths is None and self.funnel_filter is None:
            return self
        if self.funnel_paths is None:
            raise ValidationError(
                "funnel_filter restricts paths with funnel_paths (after, before or between steps).",
                attr="funnel_paths",
                code="required",
            )
        if self.funnel_filter is None:
            raise ValidationError("funnel_paths needs the funnel's filter in funnel_filter.", attr="funnel_filter",
                                  code="required")  # fmt: skip
        if self.step_of_funnel is None:
            raise ValidationError("funnel_paths needs funnel_step.", attr="funnel_step", code="required")
        return self

    @property
    def step_of_funnel(self) -> int | None:
        """``funnel_step``, or the one inside ``funnel_filter`` (where PostHog's legacy front end puts it)."""
        if self.funnel_step is not None:
            return self.funnel_step
        inner = (self.funnel_filter or {}).get("funnel_step")
        if isinstance(inner, bool) or not isinstance(inner, int | str):
            return None
        try:
            return int(inner)
        except ValueError:
            return None

    @field_validator("start_point", "end_point", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        return None if value == "" else value

    @field_validator("start_point", "end_point")
    @classmethod
    def _point_without_trailing_slash(cls, value: str | None) -> str | None:
        return None if value is None else without_trailing_slash(value)

    @field_validator("include_custom_events")
    @classmethod
    def _not_with_every_custom_event(cls, names: list[str], info: ValidationInfo) -> list[str]:
        if names and CUSTOM_EVENT in (info.data.get("include_event_types") or []):
            raise ValueError("include_custom_events names events already included by custom_event")
        return names

    @property
    def every_event(self) -> bool:
        """No event types and no event names given: every event is a path item."""
        return not self.include_event_types and not self.include_custom_events

    @field_validator("path_type")
    @classmethod
    def _known_path_type(cls, value: str | None) -> str | None:
        if value is not None and value not in LEGACY_PATH_TYPES:
            raise ValueError(f"Unknown path_type '{value}': expected one of {', '.join(EVENT_TYPES)}")
        return value

    @model_validator(mode="before")
    @classmethod
    def _path_type_as_event_types(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("path_type") and not data.get("include_event_types"):
            kind = data["path_type"]
            if isinstance(kind, str) and kind in LEGACY_PATH_TYPES:
                return {**data, "include_event_types": LEGACY_PATH_TYPES[kind]}
        return data

    @field_validator("max_edge_weight")
    @classmethod
    def _weights_in_order(cls, high: int | None, info: ValidationInfo) -> int | None:
        low = info.data.get("min_edge_weight")
        if low is not None and high is not None and low > high:
            raise ValueError("max_edge_weight is smaller than min_edge_weight")
        return high
