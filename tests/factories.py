"""Hand-written events for calculation tests.

    add_events(conn, project_id, [
        ("$pageview", "alice", "2026-01-10T10:00:00Z", {"$browser": "Chrome"}),
        ("signup",    "alice", "2026-01-10T10:05:00Z"),
    ], persons={"alice": {"plan": "pro"}})

Every distinct id gets its own person unless ``same_person`` lists ids to join into one.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from local_backend.clock import parse_instant
from local_backend.store.db import transaction
from local_backend.store.event_rows import EventRow, ensure_person, insert_events, to_micros

# the instant every test's clock stands at
NOW = datetime(2026, 1, 15, 12, 0, 0, tzinfo=UTC)

__all__ = ["add_events"]

EventSpec = Sequence[Any]  # (event, distinct_id, iso timestamp[, properties])


def add_events(
    conn: sqlite3.Connection,
    project_id: int,
    events: Iterable[EventSpec],
    *,
    persons: Mapping[str, Mapping[str, Any]] | None = None,
    same_person: Iterable[Sequence[str]] = (),
) -> dict[str, int]:
    """Store the events; returns the person id of each distinct id."""
    persons = persons or {}
    person_ids: dict[str, int] = {}
    with transaction(conn):
        for group in same_person:
            first = ensure_person(
                conn, project_id=project_id, distinct_id=group[0], created_at=0, properties=persons.get(group[0])
            )
            for other in group[1:]:
                conn.execute(
                    "INSERT OR REPLACE INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES (?,?,?)",
                    (project_id, other, first),
                )
        rows = []
        for spec in events:
            name, distinct_id, when = spec[0], spec[1], spec[2]
            properties = spec[3] if len(spec) > 3 else {}
            if distinct_id not in person_ids:
                person_ids[distinct_id] = ensure_person(
                    conn,
                    project_id=project_id,
                    distinct_id=distinct_id,
                    created_at=0,
                    properties=persons.get(distinct_id),
                )
            rows.append(
                EventRow(
                    project_id=project_id,
                    event=name,
                    distinct_id=distinct_id,
                    person_id=person_ids[distinct_id],
                    timestamp=to_micros(parse_instant(when)),
                    properties=properties,
                )
            )
        insert_events(conn, rows)
        for distinct_id, props in persons.items():
            if distinct_id not in person_ids:
                continue
            conn.execute(
                "UPDATE persons SET properties = ? WHERE id = ?", (json.dumps(dict(props)), person_ids[distinct_id])
            )
    return person_ids
