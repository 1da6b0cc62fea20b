"""The ClickHouse store's reads for the events list and property-value suggestions (:class:`.ClickHouseEventStore`
delegates here), answering as :mod:`..sqlite.listing` does.

ClickHouse keeps no insertion order, so the row key that orders events sharing a timestamp is a hash of the
uuid (63 bits, so it stays a non-negative ``Int64``): unique among a project's events in practice, and the same
on every read, so a page cursor of ``(timestamp, key)`` neither skips nor repeats an event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ..interface import EventListing, PropertyValues, StoredEvent
from .dialect import ClickHouseDialect

__all__ = [
    "list_clickhouse_events",
    "get_clickhouse_event",
    "clickhouse_property_values",
    "clickhouse_has_events",
    "clickhouse_property_keys",
]


class EventReader(Protocol):
    """What these reads need of :class:`~.event_store.ClickHouseEventStore`: its dialect, the project's event
    rows as a statement's source (merges applied), and running a statement."""

    @property
    def dialect(self) -> ClickHouseDialect: ...

    def _events(self, project_id: int, statement: str) -> tuple[str, list[Any]]: ...

    def _rows(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]: ...


_KEY = "toInt64(intDiv(cityHash64(e.uuid), 2))"
_COLUMNS = f"{_KEY} AS __key, e.uuid, e.event, e.distinct_id, e.person_id, e.timestamp, e.properties, e.elements_chain"


def _stored(row: tuple[Any, ...]) -> StoredEvent:
    key, uuid, event, distinct_id, person_id, timestamp, properties, elements_chain = row
    return StoredEvent(int(key), uuid, event, distinct_id, int(person_id), int(timestamp), properties, elements_chain)


def list_clickhouse_events(store: EventReader, request: EventListing) -> list[StoredEvent]:
    conditions = ["1", *(f"({sql})" for sql, _ in request.where)]
    params: list[Any] = [p for _, ps in request.where for p in ps]
    if request.before is not None and request.before_key is not None:
        conditions.append("(e.timestamp < ? OR (e.timestamp = ? AND __key < ?))")
        params += [request.before, request.before, request.before_key]
    elif request.before is not None:
        conditions.append("e.timestamp < ?")
        params.append(request.before)
    head = f"SELECT {_COLUMNS} FROM "
    tail = f" WHERE {' AND '.join(conditions)} ORDER BY e.timestamp DESC, __key DESC LIMIT ?"
    source, source_params = store._events(request.project_id, head + tail)
    rows = store._rows(head + source + tail, [*source_params, *params, request.limit])
    return [_stored(row) for row in rows]


def get_clickhouse_event(store: EventReader, project_id: int, event_uuid: str) -> StoredEvent | None:
    head = f"SELECT {_COLUMNS} FROM "
    tail = " WHERE e.uuid = ? LIMIT 1"
    source, source_params = store._events(project_id, head + tail)
    rows = store._rows(head + source + tail, [*source_params, event_uuid])
    return _stored(rows[0]) if rows else None


def clickhouse_property_values(store: EventReader, request: PropertyValues) -> list[str]:
    dialect = store.dialect
    value_sql, value_params = dialect.text("recent.properties", request.key)
    where = ["project_id = ?"]
    params: list[Any] = [request.project_id]
    if request.event_names:
        where.append(f"event IN ({', '.join('?' for _ in request.event_names)})")
        params.extend(request.event_names)
    sample = (
        f"SELECT properties, timestamp FROM {dialect.table('events')} WHERE {' AND '.join(where)}"
        " ORDER BY timestamp DESC LIMIT ?"
    )
    matching = f"AND {dialect.find('__value')}" if request.search else ""
    sql = (
        f"SELECT __value, count(*) AS __seen FROM (SELECT {value_sql} AS __value FROM ({sample}) AS recent)"
        f" WHERE __value NOT IN ('', 'null') {matching} GROUP BY __value ORDER BY __seen DESC, __value LIMIT ?"
    )
    search = [request.search] if request.search else []
    rows = store._rows(sql, [*value_params, *params, request.sample, *search, request.limit])
    return [str(row[0]) for row in rows]


def clickhouse_has_events(store: EventReader, project_id: int) -> bool:
    return bool(
        store._rows(f"SELECT 1 FROM {store.dialect.table('events')} WHERE project_id = ? LIMIT 1", [project_id])
    )


def clickhouse_property_keys(store: EventReader, project_id: int, event_name: str, sample: int) -> set[str]:
    # JSONExtractKeys gives no keys for text that is not a JSON object, as SQLite's json_each of '{}'
    rows = store._rows(
        "SELECT DISTINCT arrayJoin(JSONExtractKeys(properties)) FROM (SELECT properties, timestamp FROM"
        f" {store.dialect.table('events')} WHERE project_id = ? AND event = ? ORDER BY timestamp DESC LIMIT ?)",
        [project_id, event_name, sample],
    )
    return {str(row[0]) for row in rows}
