"""``toInt`` and ``toFloat`` of HogQL on SQLite, reading a value as ClickHouse's ``toInt64OrNull(toString(x))`` and
``toFloat64OrNull(toString(x))`` do (registered per connection): the text of the value must be a whole number
(``toInt``) or a number (``toFloat``), else NULL, where SQLite's CAST reads a number from the text's start
(``CAST('12abc' AS INTEGER)`` is 12, ``CAST('abc' AS INTEGER)`` is 0).
"""

from __future__ import annotations

import math
import re
import sqlite3

__all__ = ["register_number_functions", "to_int", "to_float"]

_WHOLE = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|nan)", re.IGNORECASE)
_INT64 = (-(2**63), 2**63 - 1)


def to_int(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        whole: int | None = value
    elif isinstance(value, float):  # ClickHouse writes a whole float without its point ("5"), else with it
        whole = int(value) if math.isfinite(value) and value.is_integer() else None
    elif isinstance(value, str) and _WHOLE.fullmatch(value):
        whole = int(value)
    else:
        return None
    return whole if whole is not None and _INT64[0] <= whole <= _INT64[1] else None


def to_float(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and _NUMBER.fullmatch(value):
        return float(value)
    return None


def register_number_functions(conn: sqlite3.Connection) -> None:
    conn.create_function("il_sql_to_int", 1, to_int, deterministic=True)
    conn.create_function("il_sql_to_float", 1, to_float, deterministic=True)
