"""The filter of a legacy calculation endpoint, read from the query string and the body.

Both are merged, the body winning over the query string; JSON text is decoded and checked by
:mod:`.queries.filter_parsing`, which also turns the merged dict into the typed filter (``parse_filter``).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from fastapi import Request

from ..queries.filter_parsing import decode_json_text
from .request_bodies import read_body

__all__ = ["read_filter_params", "IGNORED_PARAMS"]

# Parameters that steer the request rather than the calculation.
IGNORED_PARAMS = frozenset({"personal_api_key", "format", "refresh", "client_query_id", "limit", "offset"})


async def read_filter_params(request: Request, route_params: Collection[str] = ()) -> dict[str, Any]:
    """Query string then body, JSON text decoded, request-steering parameters left out.

    ``route_params`` are the parameters the route reads itself (an event name, say, which may well begin with
    ``[``): they are no field of the filter, so they are left out rather than read as JSON.
    """
    left_out = IGNORED_PARAMS.union(route_params)
    params: dict[str, Any] = {
        key: decode_json_text(value, key) for key, value in request.query_params.items() if key not in left_out
    }
    if request.method in ("POST", "PUT", "PATCH"):
        body = await read_body(request)
        params.update({key: decode_json_text(value, key) for key, value in body.items() if key not in left_out})
    return params
