"""The filter of a legacy calculation endpoint, read from the query string and the body.

PostHog's calculation endpoints (``insights/retention/``, ``insights/path/``, ...) take the same filter on GET
and POST: on GET, arrays and objects travel as JSON text in the query string (``target_entity={"id": ...}``);
on POST they are native JSON in the body. Both are merged, the body winning over the query string.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request

from .errors import ValidationError
from .request_bodies import read_body

__all__ = ["read_filter_params", "decode_json_text", "IGNORED_PARAMS"]

# Parameters that steer the request rather than the calculation.
IGNORED_PARAMS = frozenset({"personal_api_key", "format", "refresh", "client_query_id", "limit", "offset"})


def decode_json_text(value: Any, attr: str) -> Any:
    """A string that holds a JSON array or object, decoded; anything else unchanged."""
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except ValueError:
            raise ValidationError("Enter valid JSON.", attr=attr) from None
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
