"""Compact JSON text for storage: the C encoder made once, instead of once per call as ``json.dumps`` does.

For the small objects events carry, building the encoder costs more than encoding; ingestion and bulk load
encode every event's properties, so they keep one encoder each. Non-ASCII text is kept as it is, values JSON
has no type for are written as their text, and with ``allow_nan=False`` NaN and Infinity raise ``ValueError``.
"""

from __future__ import annotations

import json
import json.encoder
from collections.abc import Callable
from typing import Any

__all__ = ["compact_encoder"]


def compact_encoder(*, sort_keys: bool = False, allow_nan: bool = False) -> Callable[[Any], str]:
    """A function giving the same text as ``json.dumps(value, separators=(",", ":"), ensure_ascii=False,
    default=str, sort_keys=..., allow_nan=...)``, for objects without reference cycles."""
    fallback = json.JSONEncoder(
        separators=(",", ":"), ensure_ascii=False, allow_nan=allow_nan, sort_keys=sort_keys, default=str
    ).encode
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return fallback
    # No circular-reference markers: a shared marker table keeps stale entries after a failed encode, and a
    # circular object (only a Python caller can make one) ends in RecursionError instead.
    encoder = make(None, str, json.encoder.encode_basestring, None, ":", ",", sort_keys, False, allow_nan)

    def encode(value: Any) -> str:
        if not isinstance(value, dict | list):
            return fallback(value)
        return "".join(encoder(value, 0))

    return encode
