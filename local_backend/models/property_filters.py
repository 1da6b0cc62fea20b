"""Property filters as typed values: parsing every shape PostHog accepts, validating each condition once.

Shapes: a flat list ``[{key, value, operator, type}, ...]`` (AND), a group ``{"type": "AND"|"OR", "values":
[...]}`` nesting groups or conditions, a single condition, and the old dict form ``{"$browser": "Chrome",
"$current_url__icontains": "/docs"}`` (event properties, the operator after ``__``).

A condition's ``type`` is ``event`` (default), ``person``, ``cohort`` (``key: "id"``, ``value``: the cohort id),
``group`` (with ``group_type_index``), ``session`` (``$session_duration``), ``element`` (``tag_name``, ``text``,
``href``, ``selector``) or ``hogql`` (``key`` is an expression, see :mod:`.hogql`); ``static-cohort`` and
``precalculated-cohort`` are PostHog's other names for ``cohort``. ``operator`` and ``type`` take their default
only when absent or null; ``group_type_index`` is null or 0 to 4 whatever the type, as PostHog checks it.
``negation: true`` flips the operator. Bad values are 400s whose ``attr`` is the path to the condition
(``properties__0__operator``). The schema of :class:`Property` states all of this but the rules a grammar or
another field decides (a regex, a HogQL key, a date; element and session keys, numbers for gt/lt, cohort ids).

Sizes are bounded (:mod:`local_backend.limits`): the key's length, each value's length (``icontains`` texts
tighter), the values of an ``exact`` list, and the conditions of one filter, nested groups included.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from ..clock import has_iso_date_form
from ..errors import ValidationError
from ..limits import (
    MAX_CONDITIONS_PER_GROUP,
    MAX_EXACT_VALUES,
    MAX_EXPRESSION_LENGTH,
    MAX_ICONTAINS_LENGTH,
    MAX_INT64,
    MAX_PATTERN_LENGTH,
    MAX_PROPERTY_GROUP_DEPTH,
    MAX_PROPERTY_KEY_LENGTH,
    MAX_PROPERTY_VALUE_LENGTH,
    MIN_INT64,
)
from ..safe_regex import compile_pattern
from .fields import Integer, encodable, key_problem, text_problem
from .hogql import check_expression

__all__ = [
    "Operator",
    "OPERATORS",
    "PropertyType",
    "PROPERTY_TYPES",
    "Property",
    "PropertyGroup",
    "PropertyFilter",
    "UnparsedPropertyFilter",
    "StepPropertyFilter",
    "parse_properties",
    "parse_property_date",
    "EMPTY_GROUP",
    "count_conditions",
    "MAX_FILTER_DEPTH",
    "check_person_filters",
    "on_own_properties",
    "validate_person_filters",
]

Operator = Literal[
    "exact",
    "is_not",
    "icontains",
    "not_icontains",
    "regex",
    "not_regex",
    "gt",
    "gte",
    "lt",
    "lte",
    "is_set",
    "is_not_set",
    "is_date_exact",
    "is_date_before",
    "is_date_after",
    "in",
    "not_in",
]
OPERATORS: tuple[str, ...] = get_args(Operator)
# static-cohort and precalculated-cohort are PostHog's other names for a cohort condition, read as cohort
PropertyType = Literal[
    "event",
    "person",
    "cohort",
    "static-cohort",
    "precalculated-cohort",
    "group",
    "session",
    "element",
    "hogql",
]
PROPERTY_TYPES: tuple[str, ...] = get_args(PropertyType)
MAX_GROUP_TYPE_INDEX = 4
ELEMENT_KEYS = ("tag_name", "text", "href", "selector")
_NEGATED = {
    "exact": "is_not",
    "is_not": "exact",
    "icontains": "not_icontains",
    "not_icontains": "icontains",
    "regex": "not_regex",
    "not_regex": "regex",
    "gt": "lte",
    "gte": "lt",
    "lt": "gte",
    "lte": "gt",
    "is_set": "is_not_set",
    "is_not_set": "is_set",
    "is_date_before": "is_date_after",
    "is_date_after": "is_date_before",
    "in": "not_in",
    "not_in": "in",
}
_NUMERIC = ("gt", "gte", "lt", "lte")
_DATES = ("is_date_exact", "is_date_before", "is_date_after")
_COHORT_TYPES = ("cohort", "static-cohort", "precalculated-cohort")


_SCALAR_SCHEMAS: list[dict[str, Any]] = [
    {"type": "string", "maxLength": MAX_PROPERTY_VALUE_LENGTH},
    {"type": "number"},
    {"type": "boolean"},
    {"type": "null"},
]
# What a condition's value may be, as read (a cohort id, a number for gt/gte/lt/lte once validated).
_VALUE_SCHEMA: dict[str, Any] = {
    "anyOf": [*_SCALAR_SCHEMAS, {"type": "array", "items": {"anyOf": _SCALAR_SCHEMAS}, "maxItems": MAX_EXACT_VALUES}],
    "description": f"A value or a list of at most {MAX_EXACT_VALUES}; texts of at most {MAX_PROPERTY_VALUE_LENGTH}"
    f" characters ({MAX_ICONTAINS_LENGTH} for icontains, {MAX_PATTERN_LENGTH} for a regex)",
}


def _or_null(default: str, description: str) -> dict[str, Any]:
    """``json_schema_extra`` of a field read with a default when absent or null: the schema admits null too."""

    def extra(schema: dict[str, Any]) -> None:
        declared = {key: schema.pop(key) for key in ("enum", "type") if key in schema}
        schema["anyOf"] = [declared, {"type": "null"}]
        schema["default"] = default
        schema["description"] = description

    return extra  # type: ignore[return-value]


class Property(BaseModel):
    """One condition, validated: ``value`` is a cohort id (int) for cohorts, a float for gt/gte/lt/lte.

    The schema states the condition as a client writes it (the parser, :func:`parse_properties`, reads that
    into this model): ``operator`` and ``type`` may be null for their defaults, ``group_type_index`` is null or
    0 to 4 whatever the type, and is required by type ``group``."""

    model_config = ConfigDict(frozen=True)

    key: str = Field(
        min_length=1,
        max_length=MAX_EXPRESSION_LENGTH,
        pattern=r"^[^\x00]*$",
        description=f"A property name of at most {MAX_PROPERTY_KEY_LENGTH} characters, without NUL (for type"
        f" hogql: an expression of at most {MAX_EXPRESSION_LENGTH}; for cohorts: id)",
    )
    value: Annotated[Any, WithJsonSchema(_VALUE_SCHEMA)] = None
    operator: Operator = Field(
        "exact",
        json_schema_extra=_or_null("exact", "exact when absent or null (in for cohorts); in and not_in for cohorts"),
    )
    type: PropertyType = Field("event", json_schema_extra=_or_null("event", "event when absent or null"))
    group_type_index: Integer | None = Field(
        None, ge=0, le=MAX_GROUP_TYPE_INDEX, description="The group type, required with type group"
    )


class PropertyGroup(BaseModel):
    """Conditions and nested groups joined by AND or OR. An empty group matches everything."""

    model_config = ConfigDict(frozen=True)

    type: Literal["AND", "OR"] = Field("AND", json_schema_extra=_or_null("AND", "AND when absent or null"))
    values: tuple[Property | PropertyGroup, ...] = Field(
        (), max_length=MAX_CONDITIONS_PER_GROUP, description=f"At most {MAX_CONDITIONS_PER_GROUP} conditions in all"
    )

    def is_empty(self) -> bool:
        return all(isinstance(value, PropertyGroup) and value.is_empty() for value in self.values)


EMPTY_GROUP = PropertyGroup()


def _read_already(value: Any) -> Any:
    """The models holding a ``PropertyFilter`` read the raw filter first (:func:`parse_properties`, whose 400s
    name the field); this validator only carries the schema of what a client may send."""
    return value


# What a ``properties`` field admits in the schema: a group, the flat list of conditions and groups (a group's
# ``values`` on their own) or null (no filter). The old dict form is left undeclared: as a schema it would admit
# every object.
_PROPERTY_SHAPES = (
    PropertyGroup | Annotated[list[Property | PropertyGroup], Field(max_length=MAX_CONDITIONS_PER_GROUP)] | None
)
# A ``properties`` field read into a group before the model validates it (trends, funnels).
PropertyFilter = Annotated[PropertyGroup, BeforeValidator(_read_already, json_schema_input_type=_PROPERTY_SHAPES)]
# A ``properties`` field kept as sent and read by :func:`parse_properties` when the calculation compiles it.
UnparsedPropertyFilter = Annotated[Any, BeforeValidator(_read_already, json_schema_input_type=_PROPERTY_SHAPES)]
# An action step's ``properties``: a flat list only.
StepPropertyFilter = Annotated[list[Property | PropertyGroup], Field(max_length=MAX_CONDITIONS_PER_GROUP)] | None


def count_conditions(group: PropertyGroup, operators: tuple[str, ...] | None = None) -> int:
    """How many conditions ``group`` holds at any depth (only those with one of ``operators`` when given)."""
    total = 0
    for value in group.values:
        if isinstance(value, PropertyGroup):
            total += count_conditions(value, operators)
        elif operators is None or value.operator in operators:
            total += 1
    return total


def parse_property_date(value: Any) -> tuple[datetime, bool] | None:
    """A date condition's value as (naive UTC instant, whether it was a bare date), None when unreadable."""
    if not isinstance(value, str) or not has_iso_date_form(value):
        return None
    text = value.strip().replace("Z", "+00:00")
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is not None:
        parsed = parsed.replace(tzinfo=None) - (parsed.utcoffset() or timedelta(0))
    return parsed, len(text) <= 10


def _condition(raw: dict[str, Any], attr: str) -> Property:
    kind = "event" if raw.get("type") is None else raw["type"]
    if kind not in PROPERTY_TYPES:
        known = ", ".join(PROPERTY_TYPES)
        raise ValidationError(f"Unknown property type '{kind}': use one of {known}.", attr=f"{attr}__type")
    key = raw.get("key")
    value = raw.get("value")
    if kind in _COHORT_TYPES:
        kind = "cohort"
    if not isinstance(key, str) or not key:
        raise ValidationError("A property filter's key must be a non-empty string.", attr=f"{attr}__key")
    problem = text_problem(key) if kind == "hogql" else key_problem(key)
    if problem is not None:
        raise ValidationError(f"A property filter's key {problem}.", attr=f"{attr}__key")
    operator = raw.get("operator")
    _check_value(value, operator=operator if isinstance(operator, str) else "", attr=f"{attr}__value")
    if operator is None:
        operator = "in" if kind == "cohort" else "exact"
    if operator not in OPERATORS:
        raise ValidationError(
            f"Unknown operator '{operator}': use one of {', '.join(OPERATORS)}.", attr=f"{attr}__operator"
        )
    if raw.get("negation") in (True, "true"):
        operator = _NEGATED.get(operator, operator)
    group_type_index = _group_type_index(raw.get("group_type_index"), required=kind == "group", attr=attr)
    if kind == "cohort":
        if operator == "exact":
            operator = "in"
        elif operator == "is_not":
            operator = "not_in"
        if operator not in ("in", "not_in"):
            raise ValidationError("Cohort filters take the operator in or not_in.", attr=f"{attr}__operator")
        try:
            value = int(value)
        except (TypeError, ValueError, OverflowError):
            raise ValidationError("A cohort filter's value is the cohort id.", attr=f"{attr}__value") from None
        if not MIN_INT64 <= value <= MAX_INT64:
            raise ValidationError("A cohort filter's value is the cohort id.", attr=f"{attr}__value")
    elif operator in ("in", "not_in"):
        raise ValidationError(f"Operator '{operator}' applies to cohort filters only.", attr=f"{attr}__operator")
    if kind != "group":
        group_type_index = None  # read (and bounded) for any type, as PostHog does, but only groups use it
    if kind == "element" and key not in ELEMENT_KEYS:
        raise ValidationError(f"Element filters use the keys {', '.join(ELEMENT_KEYS)}.", attr=f"{attr}__key")
    if kind == "session" and key != "$session_duration":
        raise ValidationError("Session filters support the key $session_duration.", attr=f"{attr}__key")
    if operator in _NUMERIC:
        try:
            value = float(str(value[0] if isinstance(value, list) and value else value).strip())
        except (TypeError, ValueError):
            raise ValidationError(f"Operator '{operator}' compares with a number.", attr=f"{attr}__value") from None
    elif operator in ("regex", "not_regex"):
        compile_pattern(value, attr=f"{attr}__value")
    elif operator in _DATES and parse_property_date(value) is None:
        raise ValidationError(f"Operator '{operator}' needs a date (YYYY-MM-DD or a date-time).", attr=f"{attr}__value")
    if kind == "hogql":
        check_expression(key, attr=f"{attr}__key")
    return Property(key=key, value=value, operator=operator, type=kind, group_type_index=group_type_index)


def _group_type_index(value: Any, *, required: bool, attr: str) -> int | None:
    """A condition's group_type_index: null or 0 to 4 whatever the type; a group condition needs one."""
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_GROUP_TYPE_INDEX:
        need = "A group filter needs" if required else "A property filter's"
        raise ValidationError(f"{need} group_type_index 0 to {MAX_GROUP_TYPE_INDEX}.", attr=f"{attr}__group_type_index")
    return value


def _check_value(value: Any, *, operator: str, attr: str) -> None:
    """A condition's value: text, numbers, booleans and null, or a list of them, each of bounded size."""
    items = value if isinstance(value, list) else [value]
    if len(items) > MAX_EXACT_VALUES:
        raise ValidationError(f"A property filter takes at most {MAX_EXACT_VALUES} values.", attr=attr)
    limit = MAX_ICONTAINS_LENGTH if operator in ("icontains", "not_icontains") else MAX_PROPERTY_VALUE_LENGTH
    for item in items:
        if isinstance(item, dict | list):
            raise ValidationError(
                "A property filter's value is a text, number, boolean or null, or a list of them.", attr=attr
            )
        if isinstance(item, str):
            if len(item) > limit:
                raise ValidationError(f"A value of this filter is limited to {limit} characters.", attr=attr)
            if not encodable(item):
                raise ValidationError("A property filter's value must not contain a lone UTF-16 surrogate.", attr=attr)


class _Budget:
    """Counts the conditions read so far, so an oversized filter stops being read at the first one too many."""

    def __init__(self, attr: str) -> None:
        self.attr = attr
        self.count = 0

    def take(self) -> None:
        self.count += 1
        if self.count > MAX_CONDITIONS_PER_GROUP:
            raise ValidationError(
                f"A property filter holds at most {MAX_CONDITIONS_PER_GROUP} conditions.", attr=self.attr
            )


def _legacy_dict(raw: dict[str, Any], attr: str, budget: _Budget) -> PropertyGroup:
    values: list[Property] = []
    for name, value in raw.items():
        budget.take()
        key, _, operator = str(name).partition("__")
        values.append(_condition({"key": key, "value": value, "operator": operator or "exact"}, f"{attr}__{name}"))
    return PropertyGroup(type="AND", values=tuple(values))


def parse_properties(raw: Any, attr: str = "properties") -> PropertyGroup:
    """Any accepted shape (module docstring) as a :class:`PropertyGroup`; a 400 naming the bad part."""
    if isinstance(raw, PropertyGroup):
        return raw
    return _group(raw, attr, 0, _Budget(attr))


def _group(raw: Any, attr: str, depth: int, budget: _Budget) -> PropertyGroup:
    if depth > MAX_PROPERTY_GROUP_DEPTH:
        raise ValidationError("Property groups nest too deeply.", attr=attr)
    if isinstance(raw, PropertyGroup):
        return raw
    if raw is None or raw == [] or raw == {} or raw == "":
        return EMPTY_GROUP
    if isinstance(raw, list):
        return PropertyGroup(
            type="AND",
            values=tuple(_item(value, f"{attr}__{index}", depth, budget) for index, value in enumerate(raw)),
        )
    if isinstance(raw, dict) and "values" in raw:
        joiner = "AND" if raw.get("type") is None else raw["type"]
        if joiner not in ("AND", "OR"):
            raise ValidationError("A property group's type is AND or OR.", attr=f"{attr}__type")
        values = raw["values"]
        if not isinstance(values, list):
            raise ValidationError("A property group's values must be a list.", attr=f"{attr}__values")
        items = tuple(_item(value, f"{attr}__values__{index}", depth, budget) for index, value in enumerate(values))
        return PropertyGroup(type=joiner, values=items)  # type: ignore[arg-type]
    if isinstance(raw, dict) and "key" in raw:
        budget.take()
        return PropertyGroup(type="AND", values=(_condition(raw, attr),))
    if isinstance(raw, dict):
        return _legacy_dict(raw, attr, budget)
    raise ValidationError("Expected a list of property filters or a property group.", attr=attr)


def _item(raw: Any, attr: str, depth: int, budget: _Budget) -> Property | PropertyGroup:
    if isinstance(raw, dict) and "values" in raw:
        return _group(raw, attr, depth + 1, budget)
    if isinstance(raw, dict):
        budget.take()
        return _condition(raw, attr)
    raise ValidationError("Each property filter must be an object.", attr=attr)


# -- person property filters (a cohort's rules, the persons list's ``properties``) ------------------------------

MAX_FILTER_DEPTH = 5
_GROUP_TYPES = ("AND", "OR")


def check_person_filters(node: Any, attr: str, *, depth: int = 0) -> Any:
    """``node`` with each leaf's ``type`` defaulted to person; anything but person filters is a 400 on ``attr``."""
    if depth > MAX_FILTER_DEPTH:
        raise ValidationError(f"Property groups may nest at most {MAX_FILTER_DEPTH} deep.", attr=attr)
    if isinstance(node, list):
        return [check_person_filters(item, f"{attr}__{i}", depth=depth + 1) for i, item in enumerate(node)]
    if not isinstance(node, dict):
        raise ValidationError("Expected a property filter or a group of them.", attr=attr)
    if "values" in node and "key" not in node:
        kind = node.get("type", "AND")
        if not isinstance(kind, str) or kind.upper() not in _GROUP_TYPES:
            raise ValidationError("A property group's type must be AND or OR.", attr=f"{attr}__type")
        if not isinstance(node["values"], list):
            raise ValidationError("A property group's values must be a list.", attr=f"{attr}__values")
        values = [
            check_person_filters(item, f"{attr}__values__{i}", depth=depth + 1) for i, item in enumerate(node["values"])
        ]
        return {"type": kind.upper(), "values": values}
    if not isinstance(node.get("key"), str):
        raise ValidationError("Each property filter needs a 'key'.", attr=attr)
    kind = node.get("type") or "person"
    if kind != "person":
        raise ValidationError(
            f"Only person property filters are supported here, not '{kind}'.", attr=f"{attr}__type", code="unsupported"
        )
    return {**node, "type": "person"}


def on_own_properties(node: Any) -> Any:
    """The checked filters re-aimed at ``e.properties``: rows of persons shaped as events
    (:func:`local_backend.queries.person_filters.persons_as_events`) carry the person's own properties there, so
    reading them directly spares a lookup of the same row for every filter."""
    if isinstance(node, list):
        return [on_own_properties(item) for item in node]
    if "values" in node and "key" not in node:
        return {**node, "values": [on_own_properties(item) for item in node["values"]]}
    return {**node, "type": "event"}


def validate_person_filters(properties: Any, attr: str) -> None:
    """Refuse, with a 400 naming the filter, anything
    :func:`local_backend.queries.person_filters.person_properties_condition` could not run."""
    parse_properties(on_own_properties(check_person_filters(properties, attr)), attr)
