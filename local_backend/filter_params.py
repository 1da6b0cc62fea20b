"""The filter of a legacy calculation endpoint, read from the query string and the body.

PostHog's calculation endpoints (``insights/retention/``, ``insights/path/``, ...) take the same filter on GET
and POST: on GET, arrays and objects travel as JSON text in the query string (``target_entity={"id": ...}``);
on POST they are native JSON in the body. Both are merged, the body winning over the query string.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

import pydantic
from fastapi import Request

from .errors import ValidationError
from .models.fields import json_problem
from .request_bodies import check_decoded, read_body

__all__ = ["read_filter_params", "decode_json_text", "parse_filter", "IGNORED_PARAMS"]

M = TypeVar("M", bound=pydantic.BaseModel)

# Parameters that steer the request rather than the calculation.
IGNORED_PARAMS = frozenset({"personal_api_key", "format", "refresh", "client_query_id", "limit", "offset"})


def decode_json_text(value: Any, attr: str | None = None) -> Any:
    """A string that holds a JSON array or object, decoded; anything else unchanged.

    Invalid JSON is a ValidationError on ``attr``; without ``attr`` (inside a pydantic validator) a
    ValueError, so that pydantic names the field.
    """
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            decoded = json.loads(value)
        except (ValueError, RecursionError):
            if attr is None:
                raise ValueError("Enter valid JSON") from None
            raise ValidationError("Enter valid JSON.", attr=attr) from None
        if attr is not None:
            check_decoded(decoded, attr)
        else:
            found = json_problem(decoded)
            if found is not None:
                raise ValueError(f"JSON {found[0]}")
        return decoded
    return value


async def read_filter_params(request: Request) -> dict[str, Any]:
    """Query string then body, JSON text decoded, request-steering parameters left out."""
    params: dict[str, Any] = {
        key: decode_json_text(value, key) for key, value in request.query_params.items() if key not in IGNORED_PARAMS
    }
    if request.method in ("POST", "PUT", "PATCH"):
        body = await read_body(request)
        params.update({key: decode_json_text(value, key) for key, value in body.items() if key not in IGNORED_PARAMS})
    return params


def parse_filter(model: type[M], data: dict[str, Any]) -> M:
    """``data`` as ``model``, or a ValidationError naming the first bad field (nested path joined by ``__``).

    Usable outside a request (saved insights computed in the background) as well as in one.
    """
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        attr = "__".join(str(part) for part in first["loc"]) or None
        message = str(first["msg"]).removeprefix("Value error, ")
        raise ValidationError(message if message.endswith(".") else message + ".", attr=attr) from None
