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

from .errors import ParseError, UnsupportedMediaType, ValidationError

__all__ = ["read_body", "parse_model", "FORM_JSON_FIELDS", "body_openapi", "add_body_schemas"]

M = TypeVar("M", bound=pydantic.BaseModel)
FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")
# Form fields whose value is a JSON document rather than plain text.
FORM_JSON_FIELDS = ("config",)
# Nested models of bodies documented through ``openapi_extra``: their references point into the document's
# components (a ``#/$defs/...`` reference would point at nothing once the body sits inside a path item), so
# :func:`add_body_schemas` copies them there.
BODY_REF_TEMPLATE = "#/components/schemas/{model}"
_BODY_SCHEMAS: dict[str, dict[str, Any]] = {}


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
                except ValueError:
                    raise ValidationError("Enter valid JSON.", attr=key) from None
        return data
    if content_type and content_type != "application/json" and not content_type.endswith("+json"):
        raise UnsupportedMediaType(f'Unsupported media type "{content_type}" in request.')
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise ParseError(f"JSON parse error - {exc}") from None
    except RecursionError:
        raise ParseError("JSON parse error - nested too deeply") from None
    if not isinstance(body, dict):
        raise ValidationError(f"Invalid data. Expected a dictionary, but got {type(body).__name__}.")
    return body


def parse_model(model: type[M], data: dict[str, Any]) -> M:
    """``data`` as ``model``; problems become the same 400 envelope as a declared body parameter gives."""
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        errors = [{**error, "loc": ("body", *error["loc"])} for error in exc.errors()]
        raise RequestValidationError(errors) from None


def body_openapi(model: type[pydantic.BaseModel], *, form: bool) -> dict[str, Any]:
    """``openapi_extra`` documenting a body read with :func:`read_body`."""
    schema = model.model_json_schema(ref_template=BODY_REF_TEMPLATE)
    _BODY_SCHEMAS.update(schema.pop("$defs", {}))
    content: dict[str, Any] = {"application/json": {"schema": schema}}
    if form:
        form_schema = json.loads(json.dumps(schema))
        for key in FORM_JSON_FIELDS:
            if key in form_schema.get("properties", {}):
                form_schema["properties"][key] = {"type": "string", "description": "A JSON object, as text"}
        content["multipart/form-data"] = {"schema": form_schema}
    return {"requestBody": {"required": True, "content": content}}


def add_body_schemas(openapi: dict[str, Any]) -> dict[str, Any]:
    """``openapi`` with the nested models of the documented bodies among its component schemas."""
    schemas = openapi.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in _BODY_SCHEMAS.items():
        schemas.setdefault(name, schema)
    return openapi
