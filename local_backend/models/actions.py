"""Action shapes: an action is a named set of steps, and an event that matches any step counts as the action."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from ..safe_regex import compile_pattern
from .common import UserBasic, user_basic
from .fields import Flag, JSONObject, check_nesting, non_blank, non_blank_not_null, not_null
from .property_filters import StepPropertyFilter, parse_properties

__all__ = [
    "Matching",
    "ActionStep",
    "ActionWrite",
    "ActionUpdate",
    "Action",
    "validate_steps",
    "action_body",
    "MAX_PATTERN_LENGTH",
    "MAX_STEPS",
]

Matching = Literal["contains", "regex", "exact"]
# A pattern longer than this is refused: matchers run on every scanned event.
MAX_PATTERN_LENGTH = 1000
MAX_STEPS = 100


def _as_sent(value: Any) -> Any:
    """Step properties are read by the filter parser (:func:`validate_steps`, whose 400s name the condition);
    the schema states the conditions they must be."""
    return value


class ActionStep(BaseModel):
    """One way to match an event; every field given must hold. Unknown keys are ignored."""

    model_config = ConfigDict(extra="ignore")

    event: str | None = Field(None, max_length=400, description="Event name; null matches any event")
    url: str | None = Field(None, max_length=MAX_PATTERN_LENGTH, description="Matched against $current_url")
    url_matching: Matching | None = Field("contains", description="How `url` matches (default contains)")
    properties: Annotated[
        list[JSONObject] | None, BeforeValidator(_as_sent, json_schema_input_type=StepPropertyFilter)
    ] = Field(None, description="Property filters, all of which must hold")
    text: str | None = Field(None, max_length=MAX_PATTERN_LENGTH, description="Autocapture element text")
    text_matching: Matching | None = None
    href: str | None = Field(None, max_length=MAX_PATTERN_LENGTH, description="Autocapture link target")
    href_matching: Matching | None = None
    selector: str | None = Field(None, max_length=MAX_PATTERN_LENGTH, description="CSS selector of the element")
    tag_name: str | None = Field(None, max_length=400)


class ActionWrite(BaseModel):
    """Create and update body. ``name`` is required on create; read-only fields are ignored."""

    model_config = ConfigDict(extra="ignore")

    name: str | None = Field(None, max_length=400, json_schema_extra=non_blank)
    description: str | None = Field(None, max_length=4000)
    steps: list[ActionStep] | None = Field(None, max_length=MAX_STEPS)
    tags: list[str] | None = None
    deleted: Flag | None = None


class ActionUpdate(ActionWrite):
    """As :class:`ActionWrite`; these fields may be left out but not set to null (refused with code ``null``)."""

    name: str | None = Field(None, max_length=400, json_schema_extra=non_blank_not_null)
    steps: list[ActionStep] | None = Field(None, max_length=MAX_STEPS, json_schema_extra=not_null)
    tags: list[str] | None = Field(None, json_schema_extra=not_null)
    deleted: Flag | None = Field(None, json_schema_extra=not_null)


class Action(BaseModel):
    id: int
    name: str
    description: str
    tags: list[str]
    post_to_slack: bool = False
    slack_message_format: str = ""
    steps: list[ActionStep]
    created_at: str
    created_by: UserBasic | None
    updated_at: str
    deleted: bool
    is_calculating: bool = False
    last_calculated_at: str | None = None
    team_id: int
    is_action: bool = True


def _check_pattern(value: str | None, matching: str | None, attr: str) -> None:
    if value is None or matching != "regex":
        return
    compile_pattern(value, attr=attr)  # the engine the calculations match with (RE2)


def validate_steps(steps: list[ActionStep]) -> list[dict[str, Any]]:
    """The steps as stored, after checking each regex and property filter; errors name the field."""
    stored: list[dict[str, Any]] = []
    for index, step in enumerate(steps):
        prefix = f"steps__{index}"
        if step.url is not None and step.url_matching is None:
            step = step.model_copy(update={"url_matching": "contains"})
        _check_pattern(step.url, step.url_matching, f"{prefix}__url")
        _check_pattern(step.text, step.text_matching, f"{prefix}__text")
        _check_pattern(step.href, step.href_matching, f"{prefix}__href")
        # Compiling the filters refuses what the calculations cannot run, with the filter's path in attr.
        check_nesting(step.properties, attr=f"{prefix}__properties")
        parse_properties(step.properties or [], f"{prefix}__properties")
        stored.append(step.model_dump())
    return stored


def action_body(action: dict[str, Any], *, created_by: dict[str, Any] | None) -> dict[str, Any]:
    """The body of a stored action; ``created_by`` is its creator's user row, if any."""
    return Action(
        id=action["id"],
        name=action["name"],
        description=action["description"],
        tags=action["tags"],
        steps=action["steps"],
        created_at=action["created_at"],
        created_by=user_basic(created_by),
        updated_at=action["updated_at"],
        deleted=action["deleted"],
        team_id=action["project_id"],
    ).model_dump()
