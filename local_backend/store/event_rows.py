"""Low-level writes of events and persons: rows in, rows stored.

Ingestion (capture, bulk load, the plugin pipeline, person merges) builds on these; tests use them to lay
down hand-written events. Times are UTC microseconds since the epoch.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .ids import new_uuid

__all__ = ["EventRow", "insert_events", "to_micros", "from_micros", "ensure_person", "earliest_event_time"]

# PostHog ignores events before 2015-01-01 when ``date_from`` is ``all``: such stamps come from broken client clocks.
EARLIEST_PLAUSIBLE_MICROS = 1_420_070_400_000_000


def to_micros(value: datetime) -> int:
    """An aware datetime as integer UTC microseconds since the epoch."""
    delta = value.astimezone(UTC) - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_micros(micros: int) -> datetime:
    from datetime import timedelta

    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=micros)


def earliest_event_time(conn: sqlite3.Connection, project_id: int) -> datetime | None:
    """When the project's first plausible event happened (the start of ``date_from: all``), or None."""
    row = conn.execute(
        "SELECT min(timestamp) FROM events WHERE project_id = ? AND timestamp >= ?",
        (project_id, EARLIEST_PLAUSIBLE_MICROS),
    ).fetchone()
    return from_micros(row[0]) if row and row[0] is not None else None


@dataclass
class EventRow:
    """One event as stored. ``person_id`` must already exist (see :func:`ensure_person`)."""

    project_id: int
    event: str
    distinct_id: str
    person_id: int
    timestamp: int
    properties: Mapping[str, Any] = field(default_factory=dict)
    uuid: str = field(default_factory=new_uuid)
    elements_chain: str = ""
    groups: tuple[str | None, str | None, str | None, str | None, str | None] = (None, None, None, None, None)
    created_at: int | None = None


def insert_events(conn: sqlite3.Connection, rows: Iterable[EventRow]) -> int:
    """Insert events, skipping any whose (project, uuid) is already stored; returns how many were new.

    The caller owns the transaction, so a batch is stored whole or not at all.
    """
    before = conn.total_changes
    conn.executemany(
        "INSERT OR IGNORE INTO events (uuid, project_id, event, distinct_id, person_id, timestamp, properties,"
        " elements_chain, group_0, group_1, group_2, group_3, group_4, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            (
                row.uuid,
                row.project_id,
                row.event,
                row.distinct_id,
                row.person_id,
                row.timestamp,
                json.dumps(row.properties, separators=(",", ":")),
                row.elements_chain,
                *row.groups,
                row.created_at if row.created_at is not None else row.timestamp,
            )
            for row in rows
        ),
    )
    return conn.total_changes - before


def ensure_person(
    conn: sqlite3.Connection,
    *,
    project_id: int,
    distinct_id: str,
    created_at: int,
    properties: Mapping[str, Any] | None = None,
) -> int:
    """The person a distinct id belongs to, created (with ``properties``) if the id is new."""
    row = conn.execute(
        "SELECT person_id FROM person_distinct_ids WHERE project_id = ? AND distinct_id = ?",
        (project_id, distinct_id),
    ).fetchone()
    if row is not None:
        return int(row[0])
    cursor = conn.execute(
        "INSERT INTO persons (project_id, uuid, properties, created_at) VALUES (?, ?, ?, ?)",
        (project_id, new_uuid(), json.dumps(dict(properties or {})), created_at),
    )
    person_id = int(cursor.lastrowid or 0)
    conn.execute(
        "INSERT INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES (?, ?, ?)",
        (project_id, distinct_id, person_id),
    )
    return person_id
