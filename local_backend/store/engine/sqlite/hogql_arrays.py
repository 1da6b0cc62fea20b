"""HogQL's array functions on SQLite, where an array is JSON text (registered per connection).

SQLite's own ``json_array``, ``json_group_array`` and ``json_array_length`` build and measure arrays; these read
them as ClickHouse does: ``indexOf`` (1-based, 0 when absent; NULL finds NULL), ``arr[i]`` (1-based, negative
from the end, the given default out of range or for a NULL index), ``splitByChar``, ``arrayStringConcat``
(NULLs left out) and ``arraySort`` (ascending, NULLs last). Arrays they make are written as SQLite writes JSON
(no spaces), so that equal arrays are equal texts.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

__all__ = [
    "array_element",
    "array_index",
    "array_join",
    "array_sort",
    "register_array_functions",
    "split_by_char",
]


def _items(array: str | None) -> list[Any]:
    return [] if array is None else list(json.loads(array))


def _json(items: list[Any]) -> str:
    return json.dumps(items, ensure_ascii=False, separators=(",", ":"))


def array_index(array: str | None, value: Any) -> int | None:
    if array is None:
        return None
    for position, item in enumerate(_items(array), start=1):
        if item == value and (item is None) == (value is None) and isinstance(item, str) == isinstance(value, str):
            return position
    return 0


def array_element(array: str | None, index: int | None, default: Any) -> Any:
    if array is None:
        return None
    if index is None:  # no position: the default, as any index out of range
        return default
    items = _items(array)
    if 1 <= index <= len(items):
        return items[index - 1]
    if -len(items) <= index <= -1:
        return items[index]
    return default


def split_by_char(separator: str, text: str | None) -> str:
    return _json([] if text is None else str(text).split(separator))


def array_join(array: str | None, separator: str | None) -> str | None:
    if array is None:
        return None
    return (separator or "").join(str(item) for item in _items(array) if item is not None)


def array_sort(array: str | None) -> str | None:
    if array is None:
        return None
    items = _items(array)
    present = [item for item in items if item is not None]
    return _json(sorted(present) + [None] * (len(items) - len(present)))


def register_array_functions(conn: sqlite3.Connection) -> None:
    conn.create_function("il_array_index", 2, array_index, deterministic=True)
    conn.create_function("il_array_element", 3, array_element, deterministic=True)
    conn.create_function("il_split_by_char", 2, split_by_char, deterministic=True)
    conn.create_function("il_array_join", 2, array_join, deterministic=True)
    conn.create_function("il_array_sort", 1, array_sort, deterministic=True)
