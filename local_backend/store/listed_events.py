"""Reading stored events back as the events list shows them, with the person each belongs to.

The events come from the event store of the connection (:meth:`~.engine.interface.EventStore.list_events`), the
persons from SQLite, where they stay whatever the event engine.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from .engine.choice import event_store
from .engine.interface import EventListing, Fragment, StoredEvent
from .event_rows import from_micros
from .person_lookup import persons_by_id

__all__ = ["list_events", "find_event"]


def _shape(conn: sqlite3.Connection, project_id: int, rows: list[StoredEvent]) -> list[dict[str, Any]]:
    persons = persons_by_id(conn, project_id, sorted({row.person_id for row in rows}))
    events = []
    for row in rows:
        person = persons.get(row.person_id)
        moment = from_micros(row.timestamp)
        events.append(
            {
                "id": row.uuid,
                "distinct_id": row.distinct_id,
                "properties": json.loads(row.properties),
                "event": row.event,
                "timestamp": moment.isoformat().replace("+00:00", "Z"),
                "person": (
                    {key: person[key] for key in ("is_identified", "distinct_ids", "properties")} if person else None
                ),
                "elements": [],
                "elements_chain": row.elements_chain,
                "moment": moment,
                "row_id": row.key,
            }
        )
    return events


def list_events(
    conn: sqlite3.Connection,
    project_id: int,
    *,
    where: list[Fragment],
    limit: int,
    before: int | None = None,
    before_key: int | None = None,
) -> list[dict[str, Any]]:
    """Up to ``limit`` of the project's events meeting every condition (fragments over ``e`` in the store's
    dialect), newest first; ``before``/``before_key`` continue a page (``moment``, ``row_id`` say where the
    page ended)."""
    request = EventListing(project_id, where, limit, before=before, before_key=before_key)
    return _shape(conn, project_id, event_store(conn).list_events(request))


def find_event(conn: sqlite3.Connection, project_id: int, event_uuid: str) -> dict[str, Any] | None:
    row = event_store(conn).get_event(project_id, event_uuid)
    return _shape(conn, project_id, [row])[0] if row else None
