"""Typed reading of list-endpoint query parameters that PostHog sends as text: booleans and JSON lists.

Routes read such parameters as text and check them here, with messages naming the parameter; the OpenAPI schema
still declares what they accept (:func:`integer_text`, :func:`enum_text`, :data:`BOOL_TEXT`), so a client or a
fuzzer knows which values are valid. An empty value counts as absent, as in PostHog. Their bounds (names in a
list, nesting of a property filter) are in :mod:`.limits` with the others.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import WithJsonSchema

from ..errors import ValidationError
from ..limits import MAX_NAME_LIST_ITEMS
from ..models.fields import check_nesting

__all__ = [
    "parse_bool_param",
    "parse_json_list_param",
    "parse_filter_param",
    "integer_text",
    "enum_text",
    "BOOL_TEXT",
    "JSON_TEXT",
]

_EMPTY: dict[str, Any] = {"type": "string", "maxLength": 0}


def integer_text(minimum: int, maximum: int) -> Any:
    """The type of a parameter read as text and declared as the integers ``minimum..maximum`` (or empty)."""
    integer = {"type": "integer", "minimum": minimum, "maximum": maximum}
    return Annotated[str, WithJsonSchema({"anyOf": [integer, _EMPTY]})]


def enum_text(*values: str, empty: bool = True) -> Any:
    """The type of a parameter read as text and declared as one of ``values`` (or empty, when ``empty``)."""
    return Annotated[str, WithJsonSchema({"type": "string", "enum": [*values, *([""] if empty else [])]})]


_TRUE = {"true", "1", "yes"}
_FALSE = {"false", "0", "no"}
BOOL_TEXT: Any = enum_text(*sorted(_TRUE | _FALSE))
# A JSON document (a list or object), read and checked by the route.
JSON_TEXT: Any = Annotated[str, WithJsonSchema({"type": "string", "contentMediaType": "application/json"})]


def parse_bool_param(value: str | None, *, name: str) -> bool | None:
    """``true``/``false`` (also 1/0, yes/no) or None when absent; anything else is a 400 naming ``name``."""
    if value is None or value == "":
        return None
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValidationError(f"'{name}' must be true or false.", attr=name)


def parse_json_list_param(value: str | None, *, name: str) -> list[str] | None:
    """A JSON list of strings (``["a","b"]``) or None when absent; anything else is a 400 naming ``name``."""
    if value is None or value == "":
        return None
    try:
        items: Any = json.loads(value)
    except (ValueError, RecursionError):
        raise ValidationError(f"'{name}' must be a JSON list of strings, e.g. [\"$pageview\"].", attr=name) from None
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise ValidationError(f"'{name}' must be a JSON list of strings, e.g. [\"$pageview\"].", attr=name)
    if len(items) > MAX_NAME_LIST_ITEMS:
        raise ValidationError(f"'{name}' may list at most {MAX_NAME_LIST_ITEMS} names.", attr=name)
    return items


def parse_filter_param(value: str | None, *, name: str) -> Any:
    """A JSON property-filter parameter (a list of filters or a group), or None when absent."""
    if value is None or value == "":
        return None
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):
        raise ValidationError(f"'{name}' must be JSON: a list of property filters.", attr=name) from None
    return check_nesting(parsed, attr=name)
