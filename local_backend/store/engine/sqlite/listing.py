"""The SQLite store's reads for the events list and property-value suggestions (:class:`.SQLiteEventStore`
delegates here): the statements the events list and ``events/values`` ran before the store interface had them.

The row key of an event is its row id: events sharing a timestamp are listed in reverse insertion order.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ....json_values import NUL_ESCAPE
from ..interface import EventListing, PropertyValues, StoredEvent
from .dialect import DIALECT

__all__ = [
    "list_sqlite_events",
    "get_sqlite_event",
    "sqlite_property_values",
    "sqlite_has_events",
    "sqlite_property_keys",
]

_COLUMNS = "e.id, e.uuid, e.event, e.distinct_id, e.person_id, e.timestamp, e.properties, e.elements_chain"


def _stored(row: tuple[Any, ...]) -> StoredEvent:
    return StoredEvent(*row)


def list_sqlite_events(conn: sqlite3.Connection, request: EventListing) -> list[StoredEvent]:
    conditions = ["e.project_id = ?", *(sql for sql, _ in request.where)]
    params: list[Any] = [request.project_id, *(p for _, ps in request.where for p in ps)]
    if request.before is not None and request.before_key is not None:
        conditions.append("(e.timestamp < ? OR (e.timestamp = ? AND e.id < ?))")
        params += [request.before, request.before, request.before_key]
    elif request.before is not None:
        conditions.append("e.timestamp < ?")
        params.append(request.before)
    cursor = conn.cursor()
    cursor.row_factory = None
    rows = cursor.execute(
        f"SELECT {_COLUMNS} FROM events e WHERE {' AND '.join(conditions)}"
        " ORDER BY e.timestamp DESC, e.id DESC LIMIT ?",
        [*params, request.limit],
    )
    return [_stored(row) for row in rows]


def get_sqlite_event(conn: sqlite3.Connection, project_id: int, event_uuid: str) -> StoredEvent | None:
    cursor = conn.cursor()
    cursor.row_factory = None
    row = cursor.execute(
        f"SELECT {_COLUMNS} FROM events e WHERE e.project_id = ? AND e.uuid = ?", (project_id, event_uuid)
    ).fetchone()
    return _stored(row) if row else None


def sqlite_property_values(conn: sqlite3.Connection, request: PropertyValues) -> list[str]:
    value_sql, value_params = DIALECT.text("recent.properties", request.key)
    where = ["project_id = ?"]
    params: list[object] = [request.project_id]
    if request.event_names:
        where.append(f"event IN ({', '.join('?' for _ in request.event_names)})")
        params.extend(request.event_names)
    sample = f"SELECT properties FROM events WHERE {' AND '.join(where)} ORDER BY timestamp DESC LIMIT ?"
    matching = f"AND {DIALECT.find('value')}" if request.search else ""
    sql = (
        f"SELECT value, count(*) AS seen FROM (SELECT {value_sql} AS value FROM ({sample}) AS recent)"
        f" WHERE value NOT IN ('', 'null') {matching} GROUP BY value ORDER BY seen DESC, value LIMIT ?"
    )
    search = [request.search] if request.search else []
    rows = conn.execute(sql, [*value_params, *params, request.sample, *search, request.limit]).fetchall()
    return [str(row[0]) for row in rows]


def sqlite_has_events(conn: sqlite3.Connection, project_id: int) -> bool:
    return conn.execute("SELECT 1 FROM events WHERE project_id = ? LIMIT 1", (project_id,)).fetchone() is not None


def sqlite_property_keys(conn: sqlite3.Connection, project_id: int, event_name: str, sample: int) -> set[str]:
    sample_sql = "SELECT properties FROM events WHERE project_id = ? AND event = ? ORDER BY timestamp DESC LIMIT ?"
    # json_each ends a key at an escaped NUL ("a\u0000b" would list as "a"): such texts are read in Python
    rows = conn.execute(
        f"SELECT DISTINCT keys.key FROM ({sample_sql}) AS recent, json_each(CASE WHEN json_valid(recent.properties)"
        f" AND instr(recent.properties, '{NUL_ESCAPE}') = 0 THEN recent.properties ELSE '{{}}' END) AS keys",
        (project_id, event_name, sample),
    )
    keys = {str(row[0]) for row in rows}
    for (text,) in conn.execute(
        f"SELECT properties FROM ({sample_sql}) WHERE instr(properties, '{NUL_ESCAPE}') > 0 AND json_valid(properties)",
        (project_id, event_name, sample),
    ):
        parsed = json.loads(text)
        keys.update(parsed if isinstance(parsed, dict) else ())
    return keys
