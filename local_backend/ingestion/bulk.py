"""Bulk load, writing side: store one prepared batch in one transaction.

A prepared batch (:class:`local_backend.loading.prepare.PreparedBatch`) has been read and checked apart from
the database, with its uuids and properties' JSON text made. What is left needs the database and is done here,
through the single writer path, with the same rules as :func:`~local_backend.ingestion.ingest_events`:

    deduplicate on uuid (against stored events and within the batch)
    persons and groups, in event order (the person rules of ``store/person_book.py``)
    store the events, then persons, groups and definitions

Projects with enabled plugins do not come here: their events need the plugin pipeline, which works on events
as objects, and go through ``ingest_events``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..capture_rules import PERSON_EVENTS
from ..store.person_book import PersonBook
from .definitions import DefinitionsWriter
from .groups import GroupBook
from .person_events import person_and_groups
from .wire import WireEvent
from .writer import transaction_writes, write_transaction

__all__ = [
    "BatchOutcome",
    "EventColumns",
    "PERSON_EVENTS",
    "changes_persons",
    "store_columns",
    "store_prepared",
    "stored_uuids",
]


def changes_persons(name: str, properties: Mapping[str, Any]) -> bool:
    """Whether the event needs the person and group rules beyond "this distinct id has a person"."""
    return (
        name in PERSON_EVENTS
        or "$set" in properties
        or "$set_once" in properties
        or "$unset" in properties
        or "$groups" in properties
    )


@dataclass
class EventColumns:
    """Checked events ready to store, as columns: position ``i`` of each list is one event."""

    uuids: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    distinct_ids: list[str] = field(default_factory=list)
    timestamps: list[int] = field(default_factory=list)  # UTC microseconds
    properties: list[str] = field(default_factory=list)  # JSON text, as stored
    # position -> the properties the person rules read (``PERSON_KEYS``), for events that set person
    # properties, identify, alias or carry groups
    person_updates: dict[int, dict[str, Any]] = field(default_factory=dict)
    # the first value of each event property, for property definitions
    property_samples: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.uuids)


@dataclass
class BatchOutcome:
    accepted: int  # stored now
    duplicates: int  # already stored, or repeated in the batch


def stored_uuids(conn: sqlite3.Connection, project_id: int, uuids: list[str]) -> set[str]:
    """The uuids already stored (this write transaction's own included), as the event engine answers it."""
    if not uuids:
        return set()
    return transaction_writes(conn).stored_uuids(project_id, uuids)


def _new_positions(conn: sqlite3.Connection, project_id: int, uuids: list[str]) -> list[int]:
    """Positions of the uuids that are neither stored nor earlier in the batch."""
    stored = stored_uuids(conn, project_id, uuids)
    if not stored and len(set(uuids)) == len(uuids):  # the common case: every event is new
        return list(range(len(uuids)))
    kept = []
    for position, event_uuid in enumerate(uuids):
        if event_uuid not in stored:
            stored.add(event_uuid)
            kept.append(position)
    return kept


def store_columns(
    conn: sqlite3.Connection, project_id: int, columns: EventColumns, positions: list[int], created_at: int
) -> None:
    """Store the events at ``positions`` of ``columns``, with their persons, groups and definitions, in event
    order; the caller holds the transaction and has deduplicated."""
    persons = PersonBook(conn, project_id)
    groups = GroupBook(conn, project_id)
    definitions = DefinitionsWriter(project_id)
    uuids, names, distinct_ids = columns.uuids, columns.names, columns.distinct_ids
    timestamps, texts, updates = columns.timestamps, columns.properties, columns.person_updates
    persons.prefetch(distinct_ids[position] for position in positions)
    known = persons.known
    count_event = definitions.add_event
    rows: list[tuple[Any, ...]] = []
    append = rows.append
    for position in positions:
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
    person_changes = persons.flush()
    group_rows = groups.flush()
    # an engine that keeps copies of persons and groups is handed them with the events (merges become its
    # overrides); on SQLite they are the rows just written
    transaction_writes(conn).add_events(
        project_id, rows, persons=person_changes.persons, merges=person_changes.merges, groups=group_rows
    )
    if rows:
        definitions.add_properties(columns.property_samples)
    definitions.flush(conn)


def store_prepared(
    conn: sqlite3.Connection, project: Mapping[str, Any], columns: EventColumns, created_at: int
) -> BatchOutcome:
    """Store a prepared batch in ``project`` in one transaction, skipping events already stored;
    ``created_at`` is the load's time (UTC microseconds)."""
    project_id = int(project["id"])
    with write_transaction(conn):
        kept = _new_positions(conn, project_id, columns.uuids)
        if len(kept) < len(columns):  # the definitions come from the events stored, as capture's do
            columns.property_samples = _property_samples(columns, kept)
        store_columns(conn, project_id, columns, kept, created_at)
    return BatchOutcome(accepted=len(kept), duplicates=len(columns) - len(kept))


def _property_samples(columns: EventColumns, positions: list[int]) -> dict[str, Any]:
    """The first value of each event property among the events at ``positions`` (the batch's samples were
    taken over every row, repeats and events already stored included)."""
    samples = DefinitionsWriter(0)
    for position in positions:
        samples.add_properties(json.loads(columns.properties[position]))
    return samples.samples()
