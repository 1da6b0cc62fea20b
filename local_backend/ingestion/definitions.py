"""Event and property definitions, kept current by ingestion so pickers offer what the data holds.

``event_definitions``: one row per event name with ``volume`` (events stored under that name),
``created_at`` and ``last_seen_at`` (the earliest and latest event time stored, UTC microseconds).

``property_definitions``: one row per property name and kind. ``type`` is 1 for event properties, 2 for
person properties (keys of ``$set`` / ``$set_once``) and 3 for group properties (keys of ``$group_set``, with
``group_type_index``; -1 otherwise). ``property_type`` comes from the first value seen: ``Boolean`` for
booleans and the texts "true"/"false", ``Numeric`` for numbers (``is_numerical`` 1), ``DateTime`` for ISO 8601
dates and date-times, ``String`` otherwise (``utm_`` properties are always ``String``). A property first seen
as null, a list or an object gets its type from the first value that has one.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping
from typing import Any

__all__ = ["DefinitionsWriter", "property_type_of", "EVENT", "PERSON", "GROUP", "NOT_DEFINED"]

EVENT, PERSON, GROUP = 1, 2, 3
# Bags of other properties, not properties an analyst filters on (as in PostHog).
NOT_DEFINED = frozenset(
    {"$set", "$set_once", "$unset", "$groups", "$group_0", "$group_1", "$group_2", "$group_3", "$group_4"}
)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$")


def property_type_of(name: str, value: Any) -> str | None:
    """The definition type a first value implies, or None when the value says nothing (null, list, object)."""
    if isinstance(value, bool):
        return "Boolean"
    if isinstance(value, int | float):
        return "Numeric"
    if isinstance(value, str):
        if name.startswith("utm_"):
            return "String"
        lowered = value.strip().lower()
        if lowered in ("true", "false"):
            return "Boolean"
        if len(value) <= 40 and _DATE.match(value.strip()):
            return "DateTime"
        return "String"
    return None


class DefinitionsWriter:
    """Collects what one ingestion call stored and writes the definitions in :meth:`flush`."""

    def __init__(self, project_id: int) -> None:
        self.project_id = project_id
        self._events: dict[str, list[int]] = {}  # name -> [count, first time, last time]
        # (type, group_type_index) -> {name: first typed value}; untyped values wait for a typed one
        self._first: dict[tuple[int, int], dict[str, Any]] = {}
        self._typed: dict[tuple[int, int], set[str]] = {}

    def add_event(self, name: str, timestamp: int) -> None:
        span = self._events.get(name)
        if span is None:
            self._events[name] = [1, timestamp, timestamp]
        else:
            span[0] += 1
            if timestamp < span[1]:
                span[1] = timestamp
            elif timestamp > span[2]:
                span[2] = timestamp

    def add_event_span(self, name: str, count: int, first: int, last: int) -> None:
        """``count`` events of one name between ``first`` and ``last`` (a column-at-a-time load's aggregate)."""
        span = self._events.get(name)
        if span is None:
            self._events[name] = [count, first, last]
        else:
            span[0] += count
            span[1], span[2] = min(span[1], first), max(span[2], last)

    def seen_event_keys(self) -> set[str]:
        """The event property names already typed in this call (the live set, for a cheap subset check)."""
        return self._bucket(EVENT, -1)

    def _bucket(self, kind: int, group_type_index: int) -> set[str]:
        bucket = (kind, group_type_index)
        typed = self._typed.get(bucket)
        if typed is None:
            typed = self._typed[bucket] = set()
            self._first[bucket] = {}
        return typed

    def samples(self, kind: int = EVENT, group_type_index: int = -1) -> dict[str, Any]:
        """The value kept so far for each property name of a kind; :meth:`add_properties` of another writer
        given these ends with the same definitions (a batch prepared apart is merged this way)."""
        return dict(self._first.get((kind, group_type_index), {}))

    def add_properties(self, properties: Mapping[str, Any], kind: int = EVENT, group_type_index: int = -1) -> None:
        bucket = (kind, group_type_index)
        typed = self._bucket(kind, group_type_index)
        keys = properties.keys()
        if keys <= typed:  # the common case: nothing new, no per-key work
            return
        first = self._first[bucket]
        for key in keys - typed:
            if not isinstance(key, str) or (kind == EVENT and key in NOT_DEFINED):
                typed.add(key)
                continue
            value = properties[key]
            if key not in first or property_type_of(key, first[key]) is None:
                first[key] = value
            if property_type_of(key, value) is not None:
                typed.add(key)

    def flush(self, conn: sqlite3.Connection) -> None:
        """Upsert the definitions; the caller holds the transaction."""
        conn.executemany(
            "INSERT INTO event_definitions (project_id, name, volume, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (project_id, name) DO UPDATE SET volume = volume + excluded.volume,"
            " created_at = MIN(created_at, excluded.created_at),"
            " last_seen_at = MAX(last_seen_at, excluded.last_seen_at)",
            [(self.project_id, name, count, first, last) for name, (count, first, last) in self._events.items()],
        )
        rows = []
        for (kind, group_type_index), first in self._first.items():
            for name, value in first.items():
                kind_of = property_type_of(name, value)
                rows.append((self.project_id, kind, name, group_type_index, kind_of, int(kind_of == "Numeric")))
        conn.executemany(
            "INSERT INTO property_definitions (project_id, type, name, group_type_index, property_type, is_numerical)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (project_id, type, group_type_index, name) DO UPDATE"
            " SET property_type = excluded.property_type, is_numerical = excluded.is_numerical"
            " WHERE property_type IS NULL AND excluded.property_type IS NOT NULL",
            rows,
        )
        self._events.clear()
        self._first.clear()
        self._typed.clear()
