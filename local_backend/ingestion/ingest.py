"""Events in: one call checks, deduplicates, runs the plugin pipeline, updates persons and groups, stores.

Every way events arrive (the capture API, bulk load, the demo dataset) goes through :func:`ingest_events`.
A call is one transaction through the single writer path: all of its events are stored, or none. Within a
call, the stages run in this order::

    read (wire format -> checked event, skew-corrected time)   invalid events: rejected, with a reason
    deduplicate on uuid (in the call and against stored)       resent events: duplicates
    plugin pipeline (enabled configs, in order)                dropped by a plugin: dropped
    encode properties as JSON                                  NaN/Infinity: rejected
    persons, groups, definitions, in event order
    store the events, then the persons, groups, definitions and plugin outcomes
"""

from __future__ import annotations

import os
import random
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from ..clock import format_micros
from ..json_text import compact_encoder
from ..plugins.pipeline import PipelineResult, load_enabled_plugins, record_pipeline_outcomes, run_pipeline
from ..store.ids import time_ordered_uuid
from .bulk import EventColumns, changes_persons, store_columns, stored_uuids
from .definitions import DefinitionsWriter
from .timestamps import to_micros
from .wire import InvalidEvent, SentAtCache, WireEvent, properties_problem, read_event
from .writer import write_transaction

__all__ = ["CheckedEvents", "IngestReport", "check_events", "ingest_events", "store_events", "MAX_REJECTIONS"]

MAX_REJECTIONS = 100


# Compact JSON, non-ASCII kept, NaN refused, unknown types as text.
_encode = compact_encoder(allow_nan=False)


@dataclass
class IngestReport:
    """What one call did with its events. ``rejections`` lists the first :data:`MAX_REJECTIONS` reasons."""

    accepted: int = 0  # stored now
    duplicates: int = 0  # a uuid already stored, or repeated in the call
    rejected: int = 0  # invalid: no name, no distinct id, bad timestamp or uuid ...
    dropped: int = 0  # dropped by a plugin
    rejections: list[dict[str, Any]] = field(default_factory=list)  # {"index", "reason"}

    def reject(self, index: int, reason: str) -> None:
        self.rejected += 1
        if len(self.rejections) < MAX_REJECTIONS:
            self.rejections.append({"index": index, "reason": reason})

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def ingest_events(
    conn: sqlite3.Connection,
    project: Mapping[str, Any],
    events: Iterable[Mapping[str, Any]],
    *,
    now: datetime,
    received_at: datetime | None = None,
    run_plugins: bool = True,
    sent_at: Any = None,
    historical_migration: bool = False,
) -> IngestReport:
    """Store wire-format ``events`` in ``project`` in one transaction; returns the counts.

    ``now`` is the server clock (the events' ``created_at`` and the plugin metrics' hour); ``received_at``
    the real time of receipt that client clock skew is measured against (``now`` when omitted). ``sent_at``
    is the batch's send time, used for events that carry none of their own. ``historical_migration`` keeps
    timestamps exactly as sent.
    """
    checked = check_events(
        events, received_at=received_at if received_at is not None else now, sent_at=sent_at,
        historical_migration=historical_migration,
    )  # fmt: skip
    return store_events(conn, project, checked, now=now, run_plugins=run_plugins)


@dataclass
class CheckedEvents:
    """Events read from the wire format, before anything touches the database (see :func:`check_events`)."""

    # Indexes into the caller's sequence, kept beside each event so rejection reports point at the input.
    events: list[tuple[int, WireEvent]]
    report: IngestReport


def check_events(
    events: Iterable[Mapping[str, Any]],
    *,
    received_at: datetime,
    sent_at: Any = None,
    historical_migration: bool = False,
) -> CheckedEvents:
    """The read stage of :func:`ingest_events` alone: it needs no connection, so it runs outside the writer lock."""
    report = IngestReport()
    received = to_micros(received_at)
    sent_cache = SentAtCache(sent_at)
    checked: list[tuple[int, WireEvent]] = []
    for index, raw in enumerate(events):
        try:
            checked.append((index, read_event(raw, sent_cache, received, historical=historical_migration)))
        except InvalidEvent as error:
            report.reject(index, str(error))
    return CheckedEvents(checked, report)


def store_events(
    conn: sqlite3.Connection,
    project: Mapping[str, Any],
    checked: CheckedEvents,
    *,
    now: datetime,
    run_plugins: bool = True,
) -> IngestReport:
    """The stages of :func:`ingest_events` after reading, in one transaction; returns the completed report.

    ``checked`` is used once: its events are changed in place (fresh uuids, plugin results).
    """
    report = checked.report
    project_id = int(project["id"])
    with write_transaction(conn):
        kept = _deduplicate(conn, project_id, checked.events, report)
        outcomes: list[PipelineResult] = []
        if run_plugins and kept:
            plugins = load_enabled_plugins(conn, project_id)
            if plugins:
                kept = _run_plugins(kept, plugins, project_id, outcomes, report)
        encoded = _encode_properties(kept, report)
        _store(conn, project_id, encoded, to_micros(now))
        report.accepted = len(encoded)
        if outcomes:
            record_pipeline_outcomes(conn, outcomes, now)
    return report


def _deduplicate(
    conn: sqlite3.Connection, project_id: int, checked: list[tuple[int, WireEvent]], report: IngestReport
) -> list[tuple[int, WireEvent]]:
    """Events whose uuid is neither stored nor earlier in the call; events without one get a fresh uuid."""
    given = list({event.uuid for _, event in checked if event.uuid is not None})
    stored = stored_uuids(conn, project_id, given)
    missing = [event for _, event in checked if event.uuid is None]
    for event, fresh in zip(missing, _time_ordered_uuids([event.timestamp for event in missing]), strict=True):
        event.uuid = fresh
    if not given:  # nothing the client named can be a duplicate
        return checked
    kept = []
    for item in checked:
        event_uuid = item[1].uuid
        if event_uuid in stored:
            report.duplicates += 1
            continue
        stored.add(event_uuid)  # a generated uuid is never repeated, so adding it costs nothing but a set entry
        kept.append(item)
    return kept


def _time_ordered_uuids(timestamps: list[int]) -> list[str]:
    """Version 7 UUIDs from the events' times: a bulk load in time order appends to the uuid index."""
    bits = random.Random(os.urandom(16)).getrandbits  # seeded per call: forked processes never share a stream
    return [time_ordered_uuid(micros // 1000, bits(74)) for micros in timestamps]


def _run_plugins(
    kept: list[tuple[int, WireEvent]],
    plugins: list[Any],
    project_id: int,
    outcomes: list[PipelineResult],
    report: IngestReport,
) -> list[tuple[int, WireEvent]]:
    survivors = []
    for index, event in kept:
        result = run_pipeline(
            {
                "uuid": event.uuid,
                "event": event.event,
                "distinct_id": event.distinct_id,
                "properties": event.properties,
                "timestamp": format_micros(event.timestamp),
                "team_id": project_id,
            },
            plugins,
        )
        outcomes.append(result)
        after = result.event
        if after is None:
            report.dropped += 1
            continue
        # A plugin may rename the event, change its properties or its distinct id; nothing else.
        name, properties, distinct_id = after.get("event"), after.get("properties"), after.get("distinct_id")
        if isinstance(name, str) and name:
            event.event = name
        if isinstance(properties, dict):
            event.properties = properties
        if isinstance(distinct_id, str) and distinct_id.strip():
            event.distinct_id = distinct_id
        survivors.append((index, event))
    return survivors


def _encode_properties(kept: list[tuple[int, WireEvent]], report: IngestReport) -> list[tuple[WireEvent, str]]:
    encoded = []
    for index, event in kept:
        try:
            text = _encode(event.properties)
        except (ValueError, TypeError) as error:
            # NaN and Infinity are not JSON: SQLite's JSON functions would fail on every query that reads them.
            report.reject(index, f"properties are not valid JSON: {error}")
            continue
        except RecursionError:
            report.reject(index, "properties are not valid JSON: nested too deeply or circular")
            continue
        problem = properties_problem(event.properties, text)
        if problem:
            report.reject(index, problem)
            continue
        encoded.append((event, text))
    return encoded


def _store(conn: sqlite3.Connection, project_id: int, encoded: list[tuple[WireEvent, str]], created_at: int) -> None:
    """Persons, groups and definitions in event order, then every write (the bulk writer's rules)."""
    columns = EventColumns()
    samples = DefinitionsWriter(project_id)
    seen_keys = samples.seen_event_keys()
    for position, (event, properties_json) in enumerate(encoded):
        properties = event.properties
        if changes_persons(event.event, properties):
            columns.person_updates[position] = properties
        if not properties.keys() <= seen_keys:
            samples.add_properties(properties)
        columns.uuids.append(event.uuid)  # type: ignore[arg-type]  # every kept event has one by now
        columns.names.append(event.event)
        columns.distinct_ids.append(event.distinct_id)
        columns.timestamps.append(event.timestamp)
        columns.properties.append(properties_json)
    columns.property_samples = samples.samples()
    store_columns(conn, project_id, columns, list(range(len(encoded))), created_at)
