"""Person property filters (a cohort's rules, the persons list's ``properties``) as SQL over persons.

The operators themselves are compiled by :class:`~local_backend.queries.properties.PropertyCompiler`, the one
place their meaning lives (the same as in trends and funnels, regexes included); this module only checks that
every filter is about person properties and that groups are well formed, then runs the result over a row source
where ``e`` is a person (:func:`persons_as_events`).

The persons list and cohort counts read the persons table of the SQLite file directly (persons stay there
whatever the event engine), so their SQL is written in the SQLite store's dialect (:func:`persons_dialect`).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from ..errors import ValidationError
from ..store.engine.interface import Dialect
from ..store.engine.sqlite.event_store import SQLiteEventStore
from .properties import PropertyCompiler
from .property_model import parse_properties

__all__ = [
    "persons_as_events",
    "persons_dialect",
    "person_properties_condition",
    "validate_person_filters",
    "check_person_filters",
    "MAX_FILTER_DEPTH",
]

MAX_FILTER_DEPTH = 5
_GROUP_TYPES = ("AND", "OR")


def persons_dialect(conn: sqlite3.Connection) -> Dialect:
    """The dialect of statements over the persons table of ``conn`` (the SQLite store's; it makes its functions
    available on ``conn``)."""
    return SQLiteEventStore(conn).dialect


def persons_as_events(conn: sqlite3.Connection) -> str:
    """The project's persons (one bound parameter: the project id) shaped like the ``events e`` rows the filter
    compiler expects: ``e.properties`` holds the person's properties and ``e.person_id`` is the person itself."""
    return persons_dialect(conn).persons_as_events()


def check_person_filters(node: Any, attr: str, *, depth: int = 0) -> Any:
    """``node`` with each leaf's ``type`` defaulted to person; anything but person filters is a 400 on ``attr``."""
    if depth > MAX_FILTER_DEPTH:
        raise ValidationError(f"Property groups may nest at most {MAX_FILTER_DEPTH} deep.", attr=attr)
    if isinstance(node, list):
        return [check_person_filters(item, f"{attr}__{i}", depth=depth + 1) for i, item in enumerate(node)]
    if not isinstance(node, dict):
        raise ValidationError("Expected a property filter or a group of them.", attr=attr)
    if "values" in node and "key" not in node:
        kind = node.get("type", "AND")
        if not isinstance(kind, str) or kind.upper() not in _GROUP_TYPES:
            raise ValidationError("A property group's type must be AND or OR.", attr=f"{attr}__type")
        if not isinstance(node["values"], list):
            raise ValidationError("A property group's values must be a list.", attr=f"{attr}__values")
        values = [
            check_person_filters(item, f"{attr}__values__{i}", depth=depth + 1) for i, item in enumerate(node["values"])
        ]
        return {"type": kind.upper(), "values": values}
    if not isinstance(node.get("key"), str):
        raise ValidationError("Each property filter needs a 'key'.", attr=attr)
    kind = node.get("type") or "person"
    if kind != "person":
        raise ValidationError(
            f"Only person property filters are supported here, not '{kind}'.", attr=f"{attr}__type", code="unsupported"
        )
    return {**node, "type": "person"}


def _on_own_properties(node: Any) -> Any:
    """The checked filters re-aimed at ``e.properties``: rows of :func:`persons_as_events` carry the person's own
    properties there, so reading them directly spares a lookup of the same row for every filter."""
    if isinstance(node, list):
        return [_on_own_properties(item) for item in node]
    if "values" in node and "key" not in node:
        return {**node, "values": [_on_own_properties(item) for item in node["values"]]}
    return {**node, "type": "event"}


def validate_person_filters(properties: Any, attr: str) -> None:
    """Refuse, with a 400 naming the filter, anything :func:`person_properties_condition` could not run."""
    parse_properties(_on_own_properties(check_person_filters(properties, attr)), attr)


def person_properties_condition(
    conn: sqlite3.Connection, project_id: int, properties: Any, attr: str
) -> tuple[str, list[Any]]:
    """SQL over :func:`persons_as_events` rows (``e``) holding for persons that match ``properties``; it runs on
    ``conn``, where the functions it calls are registered."""
    dialect = persons_dialect(conn)
    # persons have no hot columns
    compiler = PropertyCompiler(conn=conn, project_id=project_id, dialect=dialect, hot_columns=False)
    return compiler.compile(_on_own_properties(check_person_filters(properties, attr)), attr)
