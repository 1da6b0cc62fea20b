"""Bulk load, reading side: numbered records -> one batch of events ready to store, without the database.

Preparing is the per-row part of a bulk load (reading the record, the checks ingestion makes, the content uuid,
the properties' JSON text). It needs no database, so ``load-events`` runs it in a second process beside the
writer (:mod:`.pipe`), and the writer (:func:`local_backend.ingestion.bulk.store_prepared`) only deduplicates,
finds persons and inserts.

The checks and their rejection reasons are those of the capture path (:func:`~local_backend.ingestion.wire.
read_event`) for the events a file can hold: a name over 400 characters or a blank distinct id is rejected, a
distinct id over 200 characters is cut, a time more than 23 hours after the load is stored as the load's time;
a name, distinct id or properties holding a lone UTF-16 surrogate, or properties nesting deeper than
``MAX_JSON_DEPTH``, reject that event only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..ingestion.bulk import EventColumns, changes_persons
from ..ingestion.definitions import DefinitionsWriter
from ..ingestion.person_events import PERSON_KEYS
from ..ingestion.timestamps import FUTURE_LIMIT_MICROS, to_micros
from ..ingestion.wire import (
    MAX_DISTINCT_ID_LENGTH,
    MAX_EVENT_NAME_LENGTH,
    SURROGATE_PROPERTIES,
    properties_problem,
    surrogate_problem,
)
from ..store.event_rows import from_micros
from .records import RecordError, event_parts, stored_form, wire_event

__all__ = [
    "BatchReading",
    "PreparedBatch",
    "WireBatch",
    "prepare_batch",
    "wire_batch",
    "wire_events",
    "MAX_BATCH_REJECTIONS",
]

MAX_BATCH_REJECTIONS = 20


@dataclass
class BatchReading:
    """What reading a batch of consecutive records found: records read, the row of each event, rejections."""

    first_row: int = 0
    last_row: int = 0
    read: int = 0
    rows: list[int] = field(default_factory=list)  # the record number of each event
    rejected: int = 0
    rejections: list[tuple[int, str]] = field(default_factory=list)  # the first reasons, by record number

    def count(self, row: int) -> None:
        """One more record read."""
        if not self.read:
            self.first_row = row
        self.read += 1
        self.last_row = row

    def reject(self, row: int, reason: str) -> None:
        self.rejected += 1
        if len(self.rejections) < MAX_BATCH_REJECTIONS:
            self.rejections.append((row, reason))


@dataclass
class PreparedBatch(EventColumns, BatchReading):
    """The events of consecutive records as columns ready for the bulk writer."""


@dataclass
class WireBatch(BatchReading):
    """The events of consecutive records as wire-format objects, for the plugin pipeline (``ingest_events``)."""

    events: list[dict[str, Any]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.events)


def wire_batch(records: Iterable[tuple[int, Mapping[str, Any] | RecordError]]) -> WireBatch:
    """Read ``records`` as wire-format events; ingestion makes the checks past reading."""
    batch = WireBatch()
    for number, record in records:
        batch.count(number)
        try:
            if isinstance(record, RecordError):
                raise record
            batch.events.append(wire_event(record))  # ingestion checks names and properties as capture does
        except RecordError as error:
            batch.reject(number, str(error))
            continue
        batch.rows.append(number)
    return batch


def prepare_batch(records: Iterable[tuple[int, Mapping[str, Any] | RecordError]], received: int) -> PreparedBatch:
    """Read and check ``records``; ``received`` (UTC microseconds) is the load's time, the cap on event times."""
    batch = PreparedBatch()
    samples = DefinitionsWriter(0)
    seen_keys = samples.seen_event_keys()
    add_samples = samples.add_properties
    latest = received + FUTURE_LIMIT_MICROS
    for number, record in records:
        batch.count(number)
        try:
            if isinstance(record, RecordError):
                raise record
            parts = event_parts(record)
        except RecordError as error:
            batch.reject(number, str(error))
            continue
        name, distinct_id, properties = parts.event, parts.distinct_id, parts.properties
        if len(name) > MAX_EVENT_NAME_LENGTH:
            batch.reject(number, f"event name is longer than {MAX_EVENT_NAME_LENGTH} characters")
            continue
        if not distinct_id.strip():
            batch.reject(number, "no distinct_id")
            continue
        problem = surrogate_problem("event name", name) or surrogate_problem("distinct_id", distinct_id)
        if problem:
            batch.reject(number, problem)
            continue
        try:
            event_uuid, properties_json = stored_form(parts)
        except UnicodeEncodeError:  # hashing the content found a lone surrogate in the properties
            batch.reject(number, SURROGATE_PROPERTIES)
            continue
        except (ValueError, TypeError) as error:
            batch.reject(number, f"properties are not valid JSON: {error}")
            continue
        except RecursionError:
            batch.reject(number, "properties are not valid JSON: nested too deeply or circular")
            continue
        problem = properties_problem(properties, properties_json)
        if problem:
            batch.reject(number, problem)
            continue
        timestamp = to_micros(parts.moment)
        if timestamp > latest:
            timestamp = received
        if changes_persons(name, properties):
            batch.person_updates[len(batch.uuids)] = {k: properties[k] for k in PERSON_KEYS if k in properties}
        if not properties.keys() <= seen_keys:
            add_samples(properties)
        batch.rows.append(number)
        batch.uuids.append(event_uuid)
        batch.names.append(name)
        batch.distinct_ids.append(distinct_id[:MAX_DISTINCT_ID_LENGTH])
        batch.timestamps.append(timestamp)
        batch.properties.append(properties_json)
    batch.property_samples = samples.samples()
    return batch


def wire_events(batch: PreparedBatch) -> list[dict[str, Any]]:
    """The batch's events in wire format, for ingestion paths that need events as objects (plugins)."""
    return [
        {
            "uuid": batch.uuids[i],
            "event": batch.names[i],
            "distinct_id": batch.distinct_ids[i],
            "timestamp": from_micros(batch.timestamps[i]).isoformat(),
            "properties": json.loads(batch.properties[i]),
        }
        for i in range(len(batch))
    ]
