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

import json
import json.encoder
import os
import random
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from ..clock import format_instant
from ..plugins.pipeline import PipelineResult, load_enabled_plugins, record_pipeline_outcomes, run_pipeline
from ..store.events import from_micros
from ..store.persons import PersonBook
from .definitions import GROUP, PERSON, DefinitionsWriter
from .groups import GroupBook
from .timestamps import to_micros
from .wire import InvalidEvent, SentAtCache, WireEvent, read_event
from .writer import write_transaction

__all__ = ["CheckedEvents", "IngestReport", "check_events", "ingest_events", "store_events", "MAX_REJECTIONS"]

MAX_REJECTIONS = 100
_CHUNK = 500
_MERGING_EVENTS = frozenset({"$identify", "$create_alias", "$merge_dangerously"})
_SPECIAL_EVENTS = _MERGING_EVENTS | {"$groupidentify"}
_MILLIS_MASK = (1 << 48) - 1
_LOW_62 = (1 << 62) - 1


def _make_encoder() -> Callable[[Any], str]:
    """Compact JSON, non-ASCII kept, NaN refused, unknown types as text; the C encoder directly when present.

    ``json.dumps`` with options builds a new encoder per call, which costs more than encoding a small event.
    """
    fallback = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=str).encode
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return fallback
    # No circular-reference markers: a shared marker table keeps stale entries after a failed encode, and a
    # circular object (only a Python caller can make one) ends in RecursionError instead.
    encoder = make(None, str, json.encoder.encode_basestring, None, ":", ",", False, False, False)

    def encode(value: Any) -> str:
        if not isinstance(value, dict):
            return fallback(value)
        return "".join(encoder(value, 0))

    return encode


_encode = _make_encoder()


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
    stored: set[str] = set()
    for start in range(0, len(given), _CHUNK):
        chunk = given[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        stored.update(
            row[0]
            for row in conn.execute(
                f"SELECT uuid FROM events WHERE project_id = ? AND uuid IN ({marks})", [project_id, *chunk]
            )
        )
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
    uuids = []
    for micros in timestamps:
        noise = bits(74)
        value = (
            ((micros // 1000) & _MILLIS_MASK) << 80 | 0x7 << 76 | (noise >> 62) << 64 | 0x2 << 62 | (noise & _LOW_62)
        )
        text = f"{value:032x}"
        uuids.append(f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}")
    return uuids


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
                "timestamp": format_instant(from_micros(event.timestamp)),
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
            encoded.append((event, _encode(event.properties)))
        except (ValueError, TypeError) as error:
            # NaN and Infinity are not JSON: SQLite's JSON functions would fail on every query that reads them.
            report.reject(index, f"properties are not valid JSON: {error}")
        except RecursionError:
            report.reject(index, "properties are not valid JSON: nested too deeply or circular")
    return encoded


def _store(conn: sqlite3.Connection, project_id: int, encoded: list[tuple[WireEvent, str]], created_at: int) -> None:
    """Persons, groups and definitions in event order, then every write."""
    persons = PersonBook(conn, project_id)
    groups = GroupBook(conn, project_id)
    definitions = DefinitionsWriter(project_id)
    persons.prefetch(event.distinct_id for event, _ in encoded)
    # The common event (no person changes, no groups, a known or new distinct id) takes the inlined path below;
    # it runs once per event of every bulk load.
    known = persons.known
    count_event = definitions.add_event
    add_properties = definitions.add_properties
    seen_keys = definitions.seen_event_keys()
    rows: list[tuple[Any, ...]] = []
    append = rows.append
    for event, properties_json in encoded:
        name, distinct_id, timestamp, properties = event.event, event.distinct_id, event.timestamp, event.properties
        if (
            name in _SPECIAL_EVENTS
            or "$set" in properties
            or "$set_once" in properties
            or "$unset" in properties
            or "$groups" in properties
        ):
            person_id, (g0, g1, g2, g3, g4) = _person_and_groups(event, persons, groups, definitions)
        else:
            person_id = None if persons.merged else known.get(distinct_id)
            if person_id is None:
                person_id = persons.person_for(distinct_id, timestamp)
            g0 = g1 = g2 = g3 = g4 = None
        count_event(name, timestamp)
        if not properties.keys() <= seen_keys:
            add_properties(properties)
        append((event.uuid, project_id, name, distinct_id, person_id, timestamp, properties_json, g0, g1, g2, g3, g4,
                created_at))  # fmt: skip
    if persons.merged:
        resolve = persons.resolve
        rows = [(*row[:4], resolve(row[4]), *row[5:]) for row in rows]
    persons.flush()
    groups.flush()
    conn.executemany(
        "INSERT INTO events (uuid, project_id, event, distinct_id, person_id, timestamp, properties,"
        " group_0, group_1, group_2, group_3, group_4, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    definitions.flush(conn)


def _person_and_groups(
    event: WireEvent, persons: PersonBook, groups: GroupBook, definitions: DefinitionsWriter
) -> tuple[int, tuple[str | None, ...]]:
    """The slow path: merges, person property updates, group identification and group columns."""
    name, distinct_id, timestamp, properties = event.event, event.distinct_id, event.timestamp, event.properties
    process_person = properties.get("$process_person_profile") is not False
    other = None
    if process_person and name == "$identify":
        other = properties.get("$anon_distinct_id")
    elif process_person and name in ("$create_alias", "$merge_dangerously"):
        other = properties.get("alias")
    if other is not None and other != "" and not isinstance(other, dict | list | bool):
        person_id = persons.merge(str(other), distinct_id, timestamp, dangerous=name == "$merge_dangerously")
    else:
        person_id = persons.person_for(distinct_id, timestamp)
    if process_person:
        set_, set_once, unset = properties.get("$set"), properties.get("$set_once"), properties.get("$unset")
        if set_ or set_once or unset:
            persons.update_properties(person_id, set_, set_once, unset)
            for bag in (set_once, set_):
                if isinstance(bag, Mapping):
                    definitions.add_properties(bag, PERSON)
    if name == "$groupidentify":
        group_type, group_key = properties.get("$group_type"), properties.get("$group_key")
        if isinstance(group_type, str) and group_type and group_key is not None and group_key != "":
            group_set = properties.get("$group_set")
            index = groups.identify(group_type, str(group_key), group_set, timestamp)
            if index is not None and isinstance(group_set, Mapping):
                definitions.add_properties(group_set, GROUP, index)
    return person_id, groups.columns(properties.get("$groups"))
