"""Field types every request model reuses, so one bound holds everywhere (limits in :mod:`..limits`).

* :data:`Flag`: a boolean of a request body, declared as read: JSON true/false, 0/1 and their text forms (form
  fields carry text; PostHog's serializers are as lenient).
* :data:`Integer`, :data:`Int64` / :data:`ObjectId`: integers (true and false refused), and those SQLite can
  bind (beyond 64 bits ``sqlite3`` raises OverflowError).
* :data:`PropertyKey`: a property name: non-empty, at most 400 characters, no NUL.
* :data:`JSONObject`: a free-form JSON object (saved filters, query nodes) that can be stored and sent back:
  no lone UTF-16 surrogate (``"\\ud800"`` decodes to a string UTF-8 cannot encode) anywhere inside, and
  nested at most ``MAX_JSON_DEPTH`` deep.

The plain functions (:func:`key_problem`, :func:`json_problem`) serve the parsers that read raw JSON
without pydantic (request bodies, property filters, capture).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, WithJsonSchema

from ..errors import ValidationError
from ..limits import MAX_FILTER_PARAM_NESTING, MAX_INT64, MAX_JSON_DEPTH, MAX_PROPERTY_KEY_LENGTH, MIN_INT64

__all__ = [
    "any_case",
    "check_nesting",
    "Flag",
    "Int64",
    "Integer",
    "not_null",
    "NON_BLANK",
    "non_blank",
    "non_blank_not_null",
    "or_absent",
    "ObjectId",
    "NameOrId",
    "check_int64",
    "PropertyKey",
    "JSONObject",
    "key_problem",
    "text_problem",
    "json_problem",
    "encodable",
    "check_json_text",
]


def any_case(*words: str) -> str:
    """A regex alternation matching each of ``words`` in any letter case (JSON Schema patterns have no flags)."""
    return "|".join("".join(f"[{c.upper()}{c}]" if c.isalpha() else c for c in word) for word in words)


# pydantic's lax bool, letter for letter: its words in any case, 0/1 as numbers or text
_FLAG_WORDS = any_case("true", "false", "yes", "no", "on", "off", "t", "f", "y", "n", "1", "0")
Flag = Annotated[
    bool,
    WithJsonSchema(
        {"anyOf": [{"type": "boolean"}, {"enum": [0, 1]}, {"type": "string", "pattern": f"^(?:{_FLAG_WORDS})$"}]}
    ),
]


def _not_a_bool(value: Any) -> Any:
    """pydantic reads true as 1; an integer field declared as such refuses it."""
    if isinstance(value, bool):
        raise ValueError("Input should be a valid integer")
    return value


def not_null(schema: dict[str, Any]) -> None:
    """``json_schema_extra`` of an optional field a route refuses to set to null: the schema leaves null out
    (the field is still optional; validation is unchanged, so the route's own 400 names the field)."""
    alternatives = [item for item in schema.pop("anyOf", []) if item != {"type": "null"}]
    if len(alternatives) == 1:
        schema.update(alternatives[0])
    elif alternatives:
        schema["anyOf"] = alternatives
    if schema.get("default", ...) is None:
        del schema["default"]


# A name holds a character that is not white space (routes refuse a blank one with code blank).
NON_BLANK = r"\S"


def non_blank(schema: dict[str, Any]) -> None:
    """``json_schema_extra`` of a name: its text holds a character that is not white space."""
    for alternative in schema.get("anyOf", [schema]):
        if alternative.get("type") == "string":
            alternative["pattern"] = NON_BLANK


def non_blank_not_null(schema: dict[str, Any]) -> None:
    """:func:`non_blank` for an optional name that may be left out but not set to null."""
    not_null(schema)
    non_blank(schema)


def or_absent(schema: dict[str, Any]) -> None:
    """``json_schema_extra`` of a field whose null or empty text reads as absent (its default): the schema
    admits both beside the declared type."""
    declared = {key: schema.pop(key) for key in list(schema) if key not in ("default", "title", "description")}
    schema["anyOf"] = [declared, {"type": "null"}, {"type": "string", "maxLength": 0}]


Integer = Annotated[int, BeforeValidator(_not_a_bool)]
Int64 = Annotated[int, BeforeValidator(_not_a_bool), Field(ge=MIN_INT64, le=MAX_INT64)]
ObjectId = Annotated[
    int, BeforeValidator(_not_a_bool), Field(ge=MIN_INT64, le=MAX_INT64, description="An object id (a 64-bit integer)")
]


def check_int64(value: Any) -> Any:
    """``value`` unchanged unless it is (or a list holding) an integer beyond 64 bits: then a ValueError.

    For fields that take a name or an id, where a bound inside the union would make pydantic name the union
    member (``id__str``) instead of the field."""
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, int) and not isinstance(item, bool) and not MIN_INT64 <= item <= MAX_INT64:
            raise ValueError("Integers must fit in 64 bits")
    return value


# An event name or an object id (series ``id``, breakdown values).
NameOrId = Annotated[str | Int64, BeforeValidator(check_int64)]


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot name a property or hold an expression (a NUL or a lone surrogate), or None."""
    if "\x00" in text:
        return "must not contain the NUL character"
    if not encodable(text):
        return "must not contain a lone UTF-16 surrogate"
    return None


def key_problem(key: Any) -> str | None:
    """Why ``key`` is not a usable property key, or None."""
    if not isinstance(key, str) or not key:
        return "must be a non-empty string"
    if len(key) > MAX_PROPERTY_KEY_LENGTH:
        return f"is limited to {MAX_PROPERTY_KEY_LENGTH} characters"
    return text_problem(key)


def _check_key(key: str) -> str:
    problem = key_problem(key)
    if problem is not None:
        raise ValueError(f"A property key {problem}")
    return key


PropertyKey = Annotated[
    str,
    Field(min_length=1, max_length=MAX_PROPERTY_KEY_LENGTH, pattern=r"^[^\x00]*$"),
    AfterValidator(_check_key),
]


def encodable(text: str) -> bool:
    """Whether UTF-8 can encode ``text`` (it cannot hold a lone surrogate such as ``"\\ud800"``)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def json_problem(value: Any) -> tuple[str, list[str | int]] | None:
    """``(problem, path)`` for the first string (key or value) UTF-8 cannot encode or the first value nested
    deeper than ``MAX_JSON_DEPTH``; None when there is none. Iterative: walks any depth without recursion."""
    stack: list[tuple[Any, list[str | int]]] = [(value, [])]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if not encodable(item):
                return "must not contain a lone UTF-16 surrogate", path
        elif isinstance(item, dict | list | tuple):
            if len(path) >= MAX_JSON_DEPTH:
                return f"must not nest more than {MAX_JSON_DEPTH} levels deep", path
            if isinstance(item, dict):
                for key, child in item.items():
                    if isinstance(key, str) and not encodable(key):
                        return "must not contain a lone UTF-16 surrogate", path
                    stack.append((child, [*path, key]))
            else:
                stack.extend((child, [*path, index]) for index, child in enumerate(item))
    return None


def check_json_text(value: Any) -> Any:
    """``value`` unchanged, or a ValueError saying what is wrong inside it and where."""
    found = json_problem(value)
    if found is not None:
        problem, path = found
        where = f" (at {'__'.join(str(part) for part in path)})" if path else ""
        raise ValueError(f"JSON {problem}{where}")
    return value


JSONObject = Annotated[dict[str, Any], AfterValidator(check_json_text)]


def check_nesting(value: Any, *, attr: str, limit: int = MAX_FILTER_PARAM_NESTING) -> Any:
    """``value`` unchanged if its lists and objects nest at most ``limit`` deep; else a 400 on ``attr``."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth >= limit:
                raise ValidationError(f"Filters may nest at most {limit} levels deep.", attr=attr)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return value
