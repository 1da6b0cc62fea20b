"""Event and property definitions: the names ingestion has seen, for pickers and filters.

Ingestion fills both tables; this module only reads them. ``event_definitions`` holds each event name's
all-time volume and first/last sighting (UTC microseconds); ``property_definitions`` each property key by
kind (1 event, 2 person, 3 group with its ``group_type_index``, else -1) with its detected type.

An event definition's ``volume_30_day`` is counted from the event store at read time: the events of that name
in the 30 days up to the server clock's now (what PostHog's `volume_30_day` counts), on
whichever engine holds the events.

Definitions have no id column, so each gets a stable UUID derived from its project, kind and name.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from .engine.choice import event_store
from .engine.interface import COUNT, SpanAggregate
from .event_rows import to_micros
from .text_search import search_condition

__all__ = [
    "PROPERTY_KINDS",
    "HIDDEN_PROPERTIES",
    "EVENT_SAMPLE_SIZE",
    "VOLUME_WINDOW",
    "definition_id",
    "event_volumes",
    "list_event_definitions",
    "find_event_definition",
    "list_property_definitions",
    "find_property_definition",
    "properties_seen_on_events",
]

PROPERTY_KINDS = {"event": 1, "person": 2, "group": 3}
_KIND_NAMES = {number: name for name, number in PROPERTY_KINDS.items()}
# Keys ingestion uses for its own bookkeeping; they are never offered as filter choices (as PostHog hides them).
HIDDEN_PROPERTIES = (
    "distinct_id",
    "$set",
    "$set_once",
    "$groups",
    "$group_type",
    "$group_key",
    "$group_set",
    *(f"$group_{index}" for index in range(5)),
)
# How many of the newest events of each name are read to learn which properties they carry.
EVENT_SAMPLE_SIZE = 10_000
# The window of ``volume_30_day``, ending at now.
VOLUME_WINDOW = timedelta(days=30)
_NAMESPACE = uuid.UUID("5b3c1d5e-3a52-4f7e-9d1e-7c1f6a0b2e41")


def definition_id(project_id: int, kind: str, name: str, group_type_index: int = -1) -> str:
    """The stable id of a definition: the same project, kind and name always give the same UUID."""
    return str(uuid.uuid5(_NAMESPACE, json.dumps([project_id, kind, group_type_index, name])))


def event_volumes(conn: sqlite3.Connection, project_id: int, now: datetime) -> dict[str, int]:
    """``{event name: events}`` in the 30 days up to ``now`` (both ends included); names without any are absent."""
    end = to_micros(now)
    request = SpanAggregate(
        project_id=project_id,
        spans=[(to_micros(now - VOLUME_WINDOW), end + 1)],
        where=("1 = 1", []),
        measure=COUNT,
        group=("e.event", []),
    )
    return {str(name): int(count) for (_, name), count in event_store(conn).aggregate_spans(request).items()}


def _event_row(project_id: int, row: sqlite3.Row, volumes: dict[str, int]) -> dict[str, Any]:
    return {
        "id": definition_id(project_id, "event", row["name"]),
        "name": row["name"],
        "volume_30_day": volumes.get(row["name"], 0),
        "created_at": int(row["created_at"]),
        "last_seen_at": int(row["last_seen_at"]),
    }


def list_event_definitions(
    conn: sqlite3.Connection, project_id: int, *, search: str | None, limit: int, offset: int, now: datetime
) -> tuple[list[dict[str, Any]], int]:
    """One page of the project's event names, by 30-day volume (highest first) then name, and the total count."""
    condition, params = search_condition(["name"], search)
    rows = conn.execute(
        f"SELECT name, created_at, last_seen_at FROM event_definitions WHERE project_id = ? AND {condition}",
        [project_id, *params],
    ).fetchall()
    volumes = event_volumes(conn, project_id, now)
    found = sorted(
        (_event_row(project_id, row, volumes) for row in rows), key=lambda d: (-d["volume_30_day"], d["name"])
    )
    return found[offset : offset + limit], len(found)


def find_event_definition(
    conn: sqlite3.Connection, project_id: int, definition: str, now: datetime
) -> dict[str, Any] | None:
    """The event definition with this id, or None."""
    for row in conn.execute(
        "SELECT name, created_at, last_seen_at FROM event_definitions WHERE project_id = ?", (project_id,)
    ):
        if definition_id(project_id, "event", row["name"]) == definition:
            volume = event_volumes(conn, project_id, now).get(row["name"], 0)
            return _event_row(project_id, row, {row["name"]: volume})
    return None


def _property_row(project_id: int, row: sqlite3.Row, seen: set[str] | None) -> dict[str, Any]:
    kind = _KIND_NAMES.get(int(row["type"]), "event")
    index = int(row["group_type_index"])
    return {
        "id": definition_id(project_id, kind, row["name"], index),
        "name": row["name"],
        "type": kind,
        "group_type_index": index if kind == "group" else None,
        "property_type": row["property_type"],
        "is_numerical": bool(row["is_numerical"]),
        "is_seen_on_filtered_events": (row["name"] in seen) if seen is not None else None,
    }


def list_property_definitions(
    conn: sqlite3.Connection,
    project_id: int,
    *,
    kind: str,
    group_type_index: int | None,
    search: str | None,
    is_numerical: bool | None,
    names: Sequence[str] | None,
    excluded: Sequence[str],
    seen: set[str] | None,
    only_seen: bool,
    limit: int,
    offset: int,
) -> tuple[list[dict[str, Any]], int]:
    """One page of property keys of one kind, and the total count.

    With ``seen`` (the keys found on the events asked about) those keys come first and each result says
    whether it is one of them; ``only_seen`` keeps only them. Then by name.
    """
    clauses = ["project_id = ?", "type = ?", "name NOT IN (SELECT value FROM json_each(?))"]
    params: list[Any] = [project_id, PROPERTY_KINDS[kind], json.dumps([*HIDDEN_PROPERTIES, *excluded])]
    if group_type_index is not None:
        clauses.append("group_type_index = ?")
        params.append(group_type_index)
    if is_numerical is not None:
        clauses.append("is_numerical = ?")
        params.append(int(is_numerical))
        if is_numerical:
            clauses.append("name NOT IN ('distinct_id', 'timestamp')")
    if names is not None:
        clauses.append("name IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(list(names)))
    condition, search_params = search_condition(["name"], search)
    clauses.append(condition)
    params.extend(search_params)
    seen_json = json.dumps(sorted(seen or ()))
    if only_seen:
        clauses.append("name IN (SELECT value FROM json_each(?))")
        params.append(seen_json)
    where = " AND ".join(clauses)
    total = int(conn.execute(f"SELECT count(*) FROM property_definitions WHERE {where}", params).fetchone()[0])
    rows = conn.execute(
        "SELECT name, type, group_type_index, property_type, is_numerical FROM property_definitions"
        f" WHERE {where} ORDER BY name IN (SELECT value FROM json_each(?)) DESC, name, group_type_index"
        " LIMIT ? OFFSET ?",
        [*params, seen_json, limit, offset],
    ).fetchall()
    return [_property_row(project_id, row, seen) for row in rows], total


def find_property_definition(conn: sqlite3.Connection, project_id: int, definition: str) -> dict[str, Any] | None:
    """The property definition with this id, or None."""
    for row in conn.execute(
        "SELECT name, type, group_type_index, property_type, is_numerical FROM property_definitions"
        " WHERE project_id = ?",
        (project_id,),
    ):
        found = _property_row(project_id, row, None)
        if found["id"] == definition:
            return found
    return None


def properties_seen_on_events(
    conn: sqlite3.Connection, project_id: int, event_names: Sequence[str], *, sample: int = EVENT_SAMPLE_SIZE
) -> set[str]:
    """The property keys found on the newest ``sample`` events of each name (a sample, not every event)."""
    store = event_store(conn)
    seen: set[str] = set()
    for name in dict.fromkeys(event_names):
        seen |= store.property_keys(project_id, name, sample)
    return seen
