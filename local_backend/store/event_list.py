"""Reading stored events back as the events list shows them, with the person each belongs to."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from .events import from_micros
from .person_lookup import persons_by_id

__all__ = ["list_events", "find_event"]

_COLUMNS = "e.id, e.uuid, e.event, e.distinct_id, e.person_id, e.timestamp, e.properties, e.elements_chain"


def _shape(conn: sqlite3.Connection, project_id: int, rows: list[sqlite3.Row]) -> list[dict[str, Any]]:
    persons = persons_by_id(conn, project_id, sorted({row["person_id"] for row in rows}))
    events = []
    for row in rows:
        person = persons.get(row["person_id"])
        moment = from_micros(row["timestamp"])
        events.append(
            {
                "id": row["uuid"],
                "distinct_id": row["distinct_id"],
                "properties": json.loads(row["properties"]),
                "event": row["event"],
                "timestamp": moment.isoformat().replace("+00:00", "Z"),
                "person": (
                    {key: person[key] for key in ("is_identified", "distinct_ids", "properties")} if person else None
                ),
                "elements": [],
                "elements_chain": row["elements_chain"],
                "moment": moment,
                "row_id": row["id"],
            }
        )
    return events


def list_events(
    conn: sqlite3.Connection, project_id: int, *, where: list[tuple[str, list[Any]]], limit: int
) -> list[dict[str, Any]]:
    """Up to ``limit`` of the project's events meeting every condition, newest first (``moment``, ``row_id``
    say where the page ended)."""
    condition = " AND ".join(["e.project_id = ?", *(sql for sql, _ in where)])
    params: list[Any] = [project_id, *(p for _, ps in where for p in ps)]
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM events e WHERE {condition} ORDER BY e.timestamp DESC, e.id DESC LIMIT ?",
        [*params, limit],
    ).fetchall()
    return _shape(conn, project_id, rows)


def find_event(conn: sqlite3.Connection, project_id: int, event_uuid: str) -> dict[str, Any] | None:
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM events e WHERE e.project_id = ? AND e.uuid = ?", (project_id, event_uuid)
    ).fetchone()
    return _shape(conn, project_id, [row])[0] if row else None
