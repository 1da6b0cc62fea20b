"""A property read in Python, as SQLite's JSON functions read it, for the texts they cannot read.

SQLite (3.40, the version ``sqlite3`` links here) ends every JSON string at an escaped NUL (``\\u0000``): a key
``"a\\u0000b"`` reads as ``a`` and a value ``"x\\u0000y"`` as ``x``, so such a value would equal ``x`` and
never itself. The dialect hands the properties of a row holding that escape to these functions instead
(registered as ``il_json_value``, ``il_json_type`` and ``il_json_text``); every other row is read by SQLite's
own functions. Each answers exactly what its SQLite counterpart answers for a text without the escape:

=========================  ==========================================================================
``il_json_value(doc, k)``  ``json_extract``: text, integer, real, 1/0 for booleans, containers as
                           minified JSON; NULL for null, a missing key or a text that is not an object
``il_json_type(doc, k)``   ``json_type``: ``null``, ``true``, ``false``, ``text``, ``integer``, ``real``,
                           ``object``, ``array``; NULL when missing
``il_json_text(doc, k)``   the property text of :meth:`Dialect.text <.dialect.Dialect.text>`
``il_json_property(d, k)`` that text, but NULL for a JSON null or a missing key (HogQL's ``properties.k``)
=========================  ==========================================================================
"""

from __future__ import annotations

import json
import math
from typing import Any

from .limits import MAX_INT64, MIN_INT64

__all__ = ["NUL_ESCAPE", "json_value", "json_type", "json_text", "json_property"]

NUL_ESCAPE = "\\u0000"
"""How a NUL is written in the stored JSON text (JSON has no other spelling of it)."""

_MISSING = object()


def _lookup(doc: str | bytes | None, key: str) -> Any:
    if doc is None or key is None:
        return _MISSING
    try:
        parsed = json.loads(doc)
    except (TypeError, ValueError):
        return _MISSING
    if not isinstance(parsed, dict):
        return _MISSING
    return parsed.get(key, _MISSING)


def _scalar(value: Any) -> Any:
    """``value`` as SQLite returns a JSON value to SQL."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        # SQLite reads an integer literal beyond 64 bits as a real
        return value if MIN_INT64 <= value <= MAX_INT64 else float(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, list | dict):
        return json.dumps(value, separators=(",", ":"))
    return value


def json_value(doc: str | bytes | None, key: str) -> Any:
    """``json_extract(doc, '$."key"')`` of a text SQLite would read short (see the module docstring)."""
    value = _lookup(doc, key)
    return None if value is _MISSING or value is None else _scalar(value)


def json_type(doc: str | bytes | None, key: str) -> str | None:
    """``json_type(doc, '$."key"')`` of a text SQLite would read short."""
    value = _lookup(doc, key)
    if value is _MISSING:
        return None
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int):
        return "integer"  # beyond 64 bits too, though its value reads as a real
    if isinstance(value, float):
        return "real"
    if isinstance(value, str):
        return "text"
    return "array" if isinstance(value, list) else "object"


def json_text(doc: str | bytes | None, key: str) -> str:
    """The property text (``''`` when missing; ``true``/``false``/``null``; numbers as SQLite prints them)."""
    value = _lookup(doc, key)
    if value is _MISSING:
        return ""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    scalar = _scalar(value)
    if isinstance(scalar, float):
        return _real_text(scalar)
    return "" if scalar is None else str(scalar)


def json_property(doc: str | bytes | None, key: str) -> str | None:
    """A HogQL query's ``properties.key``: the property text of :func:`json_text`, None when missing or null."""
    value = _lookup(doc, key)
    if value is _MISSING or value is None:
        return None
    if isinstance(value, bool):
        return json.dumps(value)
    scalar = _scalar(value)
    if isinstance(scalar, float):
        return _real_text(scalar)
    return None if scalar is None else str(scalar)


def _real_text(number: float) -> str:
    """A real as SQLite's ``CAST(... AS TEXT)`` prints it: 15 significant digits, always a decimal point, no
    sign on zero."""
    text = f"{number:.15g}" if number else "0"
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa and mantissa not in ("inf", "-inf", "nan"):
        mantissa += ".0"
    return mantissa + (f"e{exponent}" if exponent else "")
