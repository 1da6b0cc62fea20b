"""Bulk load, writing side: store one prepared batch in one transaction.

A prepared batch (:class:`local_backend.loading.prepare.PreparedBatch`) has been read and checked apart from
the database, with its uuids and properties' JSON text made. What is left needs the database and is done here,
through the single writer path, with the same rules as :func:`~local_backend.ingestion.ingest_events`:

    deduplicate on uuid (against stored events and within the batch)
    persons and groups, in event order (the person rules of ``store/persons.py``)
    store the events, then persons, groups and definitions

Projects with enabled plugins do not come here: their events need the plugin pipeline, which works on events
as objects, and go through ``ingest_events``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..store.persons import PersonBook
from .definitions import DefinitionsWriter
from .groups import GroupBook
from .person_events import person_and_groups
from .wire import WireEvent
from .writer import write_transaction

if TYPE_CHECKING:
    from ..loading.prepare import PreparedBatch

__all__ = ["BatchOutcome", "store_prepared"]

_INSERT = (
    "INSERT INTO events (uuid, project_id, event, distinct_id, person_id, timestamp, properties,"
    " group_0, group_1, group_2, group_3, group_4, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


@dataclass
class BatchOutcome:
    accepted: int  # stored now
    duplicates: int  # already stored, or repeated in the batch


def _stored_among(conn: sqlite3.Connection, project_id: int, uuids: list[str]) -> set[str]:
    """The uuids already stored. Content uuids lead with the event's time, so a batch of a file in time order
    spans a range no stored event falls in, and one probe of the uuid index settles the whole batch."""
    if not uuids:
        return set()
    probe = conn.execute(
        "SELECT 1 FROM events WHERE project_id = ? AND uuid BETWEEN ? AND ? LIMIT 1",
        (project_id, min(uuids), max(uuids)),
    ).fetchone()
    if probe is None:
        return set()
    return {
        row[0]
        for row in conn.execute(
            "SELECT uuid FROM events WHERE project_id = ? AND uuid IN (SELECT value FROM json_each(?))",
            (project_id, json.dumps(uuids)),
        )
    }


def _new_positions(conn: sqlite3.Connection, project_id: int, uuids: list[str]) -> list[int]:
    """Positions of the uuids that are neither stored nor earlier in the batch."""
    stored = _stored_among(conn, project_id, uuids)
    if not stored and len(set(uuids)) == len(uuids):  # the common case: every event is new
        return list(range(len(uuids)))
    kept = []
    for position, event_uuid in enumerate(uuids):
        if event_uuid not in stored:
            stored.add(event_uuid)
            kept.append(position)
    return kept


def store_prepared(
    conn: sqlite3.Connection, project: Mapping[str, Any], batch: PreparedBatch, created_at: int
) -> BatchOutcome:
    """Store ``batch`` in ``project`` in one transaction; ``created_at`` is the load's time (UTC microseconds)."""
    project_id = int(project["id"])
    with write_transaction(conn):
        kept = _new_positions(conn, project_id, batch.uuids)
        persons = PersonBook(conn, project_id)
        groups = GroupBook(conn, project_id)
        definitions = DefinitionsWriter(project_id)
        uuids, names, distinct_ids = batch.uuids, batch.names, batch.distinct_ids
        timestamps, texts, updates = batch.timestamps, batch.properties, batch.person_updates
        persons.prefetch(distinct_ids[position] for position in kept)
        known = persons.known
        count_event = definitions.add_event
        rows: list[tuple[Any, ...]] = []
        append = rows.append
        for position in kept:
            name, distinct_id, timestamp = names[position], distinct_ids[position], timestamps[position]
            properties = updates.get(position) if updates else None
            if properties is not None:
                event = WireEvent(uuids[position], name, distinct_id, timestamp, properties)
                person_id, (g0, g1, g2, g3, g4) = person_and_groups(event, persons, groups, definitions)
            else:
                person_id = None if persons.merged else known.get(distinct_id)
                if person_id is None:
                    person_id = persons.person_for(distinct_id, timestamp)
                g0 = g1 = g2 = g3 = g4 = None
            count_event(name, timestamp)
            append((uuids[position], project_id, name, distinct_id, person_id, timestamp, texts[position],
                    g0, g1, g2, g3, g4, created_at))  # fmt: skip
        if persons.merged:
            resolve = persons.resolve
            rows = [(*row[:4], resolve(row[4]), *row[5:]) for row in rows]
        persons.flush()
        groups.flush()
        conn.executemany(_INSERT, rows)
        if rows:
            definitions.add_properties(batch.property_samples)
        definitions.flush(conn)
    return BatchOutcome(accepted=len(rows), duplicates=len(batch.uuids) - len(rows))
