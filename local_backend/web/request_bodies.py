"""Reading request bodies that may come as JSON or as a form, and validating them with a pydantic model.

Most routes declare their body as a pydantic parameter. Routes that also take multipart form data (plugin
configs, whose ``config`` travels as a JSON string in a form field) read the body here, so both forms end
in the same model and the same error envelope.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

import pydantic
from fastapi import Request
from fastapi.exceptions import RequestValidationError
from starlette.datastructures import UploadFile

from ..errors import ParseError, UnsupportedMediaType, ValidationError
from ..queries.filter_parsing import check_decoded

__all__ = [
    "read_body",
    "parse_model",
    "loads_body",
    "check_decoded",
    "FORM_JSON_FIELDS",
    "body_openapi",
    "hoist_body_definitions",
    "standard_bounds",
]

M = TypeVar("M", bound=pydantic.BaseModel)
FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")
# Form fields whose value is a JSON document rather than plain text.
FORM_JSON_FIELDS = ("config",)
COMPONENT_REF = "#/components/schemas/{model}"
DEFINITIONS_KEY = "x-definitions"


async def read_body(request: Request) -> dict[str, Any]:
    """The body as a dict: a JSON object, or the fields of a form (JSON fields decoded). Empty body: ``{}``."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type in FORM_TYPES:
        try:
            form = await request.form()
        except Exception:  # a body that does not parse as the declared form
            raise ParseError("Multipart form parse error.") from None
        data: dict[str, Any] = {}
        for key, value in form.multi_items():
            if isinstance(value, UploadFile):
                raise ValidationError("File uploads are not supported here.", attr=key)
            data[key] = value
        for key in FORM_JSON_FIELDS:
            if isinstance(data.get(key), str):
                try:
                    data[key] = json.loads(data[key]) if data[key].strip() else None
                except (ValueError, RecursionError):
                    raise ValidationError("Enter valid JSON.", attr=key) from None
        check_decoded(data)
        return data
    if content_type and content_type != "application/json" and not content_type.endswith("+json"):
        raise UnsupportedMediaType(f'Unsupported media type "{content_type}" in request.')
    raw = await request.body()
    if not raw.strip():
        return {}
    body = loads_body(raw)
    if not isinstance(body, dict):
        raise ValidationError(f"Invalid data. Expected a dictionary, but got {type(body).__name__}.")
    check_decoded(body)
    return body


def loads_body(raw: bytes | str) -> Any:
    """A request body's JSON; anything that does not decode (nesting too deep included) is a 400 parse error."""
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise ParseError(f"JSON parse error - {exc}") from None
    except RecursionError:
        raise ParseError("JSON parse error - nested too deeply") from None


def parse_model(model: type[M], data: dict[str, Any]) -> M:
    """``data`` as ``model``; problems become the same 400 envelope as a declared body parameter gives."""
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        errors = [{**error, "loc": ("body", *error["loc"])} for error in exc.errors()]
        raise RequestValidationError(errors) from None


def body_openapi(model: type[pydantic.BaseModel], *, form: bool, required: bool = True) -> dict[str, Any]:
    """``openapi_extra`` documenting a body read with :func:`read_body`; not ``required`` when the route takes
    an empty body as ``{}`` (every field at its default).

    The models the body refers to travel in ``x-definitions``; the app moves them into
    ``components/schemas`` (see :func:`hoist_body_definitions`), where the refs point.
    """
    schema = model.model_json_schema(ref_template=COMPONENT_REF)
    definitions = schema.pop("$defs", {})
    content: dict[str, Any] = {"application/json": {"schema": schema}}
    if form:
        form_schema = json.loads(json.dumps(schema))
        # a JSON field keeps its schema: the form part holds it as JSON text (an empty part: not given)
        encoding = {
            key: {"contentType": "application/json"}
            for key in FORM_JSON_FIELDS
            if key in form_schema.get("properties", {})
        }
        content["multipart/form-data"] = {"schema": form_schema, "encoding": encoding}
    return {"requestBody": {"required": required, "content": content}, DEFINITIONS_KEY: definitions}


def hoist_body_definitions(schema: dict[str, Any]) -> dict[str, Any]:
    """Move every operation's ``x-definitions`` into ``components/schemas`` so that each ``$ref`` resolves."""
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            if isinstance(operation, dict):
                for name, definition in operation.pop(DEFINITIONS_KEY, {}).items():
                    components.setdefault(name, definition)
    return schema


# pydantic writes a bound it applies after a validator (``Integer | None = Field(None, ge=0)``, ``Int64``) under
# its own keyword; JSON Schema, and every client reading the schema, know these names.
_BOUND_KEYWORDS = {"ge": "minimum", "le": "maximum", "gt": "exclusiveMinimum", "lt": "exclusiveMaximum"}


def standard_bounds(schema: dict[str, Any]) -> dict[str, Any]:
    """Rename the numeric bounds pydantic left as ``ge``/``le``/``gt``/``lt`` to their JSON Schema keywords."""
    stack: list[Any] = [schema]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if item.get("type") in ("integer", "number"):
                for keyword, standard in _BOUND_KEYWORDS.items():
                    if isinstance(item.get(keyword), int | float) and not isinstance(item[keyword], bool):
                        item[standard] = item.pop(keyword)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return schema
