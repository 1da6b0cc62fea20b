"""Plugin jobs: actions a user triggers on one config, outside the flow of new events.

The one job the built-in plugins share re-runs a date range of stored events through a config, so a
property filter or a naming convention set up today also applies to last month's events: changed events
are rewritten, dropped ones deleted, all or none, on the event engine the database records, through its writer
(:meth:`~local_backend.store.engine.interface.EventWriter.rewrite_events`: SQLite in one transaction, ClickHouse
staged and applied at once). This module decides each event; the counts are the same on every engine.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from ..clock import format_micros, parse_instant
from ..errors import ValidationError
from ..store.db import transaction
from ..store.engine.choice import event_writer
from ..store.engine.interface import EventRewrite, Rewritten, StoredRow
from ..store.event_rows import to_micros
from .base import Event, Job, ProcessEvent

__all__ = [
    "REPROCESS_JOB",
    "JOB_OPERATIONS",
    "ReprocessCounts",
    "validate_job_payload",
    "reprocess_events",
    "run_plugin_job",
]

REPROCESS_JOB = Job(
    name="reprocess_events",
    description="Run the stored events of a date range through this config again: changed events are "
    "rewritten, dropped events are deleted.",
    payload={
        "date_from": {"type": "date", "required": True, "title": "From (ISO date or date-time, inclusive)"},
        "date_to": {"type": "date", "required": True, "title": "To (ISO date or date-time, inclusive)"},
    },
)
JOB_OPERATIONS = ("start",)
# Events read at once by an engine that reads them in storage order (SQLite, by row id)
BATCH_SIZE = 5_000
# Events read at once by an engine that reads whole days (ClickHouse: rewrite.stored_event_batches), so a batch
# that holds a day's events reads each event about once (the demo's busiest day holds 18,771 of a million)
CLICKHOUSE_BATCH_SIZE = 50_000


@dataclass(frozen=True)
class ReprocessCounts:
    processed: int = 0
    changed: int = 0
    dropped: int = 0
    unchanged: int = 0
    failed: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def _parse_bound(value: Any, *, attr: str, end: bool) -> datetime:
    """A payload date: a date-only upper bound covers that whole day."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationError("Enter an ISO 8601 date or date-time.", attr=attr)
    text = value.strip()
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            start = datetime.combine(day, time.min, tzinfo=UTC)
            return start + timedelta(days=1) - timedelta(microseconds=1) if end else start
        return parse_instant(text)
    except ValueError:
        raise ValidationError("Enter an ISO 8601 date or date-time.", attr=attr) from None


def validate_job_payload(job: Job, payload: Any) -> dict[str, Any]:
    """The payload checked against the job's schema: required keys present, dates parseable, nothing unknown."""
    if payload is None:
        payload = {}
    if not isinstance(payload, dict):
        raise ValidationError("Expected a JSON object.", attr="job__payload")
    for key in payload:
        if key not in job.payload:
            raise ValidationError(f"Unknown payload field for job {job.name}.", attr=f"job__payload__{key}")
    for key, spec in job.payload.items():
        if spec.get("required") and payload.get(key) in (None, ""):
            raise ValidationError("This field is required.", attr=f"job__payload__{key}", code="required")
    if job.name == REPROCESS_JOB.name:
        start = _parse_bound(payload["date_from"], attr="job__payload__date_from", end=False)
        end = _parse_bound(payload["date_to"], attr="job__payload__date_to", end=True)
        if end < start:
            raise ValidationError("date_to is before date_from.", attr="job__payload__date_to")
    return dict(payload)


def _stored_event(
    *, uuid: str, event: str, distinct_id: str, properties: str, timestamp: int, project_id: int
) -> Event:
    return {
        "uuid": uuid,
        "event": event,
        "distinct_id": distinct_id,
        "properties": json.loads(properties),
        "timestamp": format_micros(timestamp),
        "team_id": project_id,
    }


Outcome = Rewritten  # what one stored event became


class _Tally:
    """Runs each stored event through the config, counting outcomes the same way whatever the engine."""

    def __init__(self, process_event: ProcessEvent, config: Mapping[str, Any]) -> None:
        self.process_event = process_event
        self.config = config
        self.counts = {"processed": 0, "changed": 0, "dropped": 0, "unchanged": 0, "failed": 0}
        # (project, new event name) -> the last time of an event renamed to it
        self.renamed: dict[tuple[int, str], int] = {}

    def judge(self, row: StoredRow) -> Outcome:
        """The outcome of one stored event; the plugin gets the event with a copy of its properties of its own to
        change (parsing the stored text is cheaper than copying the dict)."""
        stored = _stored_event(
            uuid=row.uuid,
            event=row.event,
            distinct_id=row.distinct_id,
            properties=row.properties,
            timestamp=row.timestamp,
            project_id=row.project_id,
        )
        properties, timestamp = row.properties, row.timestamp
        self.counts["processed"] += 1
        try:
            after = self.process_event({**stored, "properties": json.loads(properties)}, self.config)
        except Exception:
            self.counts["failed"] += 1
            return Outcome("failed")
        if after is None:
            self.counts["dropped"] += 1
            return Outcome("dropped")
        if after["event"] == stored["event"] and after["properties"] == stored["properties"]:
            self.counts["unchanged"] += 1
            return Outcome("unchanged")
        self.counts["changed"] += 1
        name = str(after["event"])
        if name != stored["event"]:
            self.note_renamed(int(stored["team_id"]), name, timestamp)
        return Outcome("changed", name, json.dumps(after["properties"], separators=(",", ":")))

    def note_renamed(self, project_id: int, name: str, timestamp: int) -> None:
        self.renamed[project_id, name] = max(self.renamed.get((project_id, name), 0), timestamp)


def reprocess_events(
    conn: sqlite3.Connection,
    *,
    project_id: int,
    process_event: ProcessEvent,
    config: Mapping[str, Any],
    payload: Mapping[str, Any],
) -> ReprocessCounts:
    """Run stored events of ``payload``'s date range through ``process_event``, on the database's event engine.

    SQLite rewrites them in one transaction; ClickHouse stages the rewrite and applies it once every event is
    decided, so a failure leaves the events as they were, or (once applying has begun) as they will be.
    An event the plugin fails on is left as stored and counted in ``failed``.
    """
    start = to_micros(_parse_bound(payload["date_from"], attr="job__payload__date_from", end=False))
    end = to_micros(_parse_bound(payload["date_to"], attr="job__payload__date_to", end=True))
    tally = _Tally(process_event, config)
    request = EventRewrite(project_id, start, end, batch_size=BATCH_SIZE, day_batch_size=CLICKHOUSE_BATCH_SIZE)
    with transaction(conn):
        event_writer(conn).rewrite_events(request, tally)
        # Renamed events must be offered by the event-name pickers too.
        conn.executemany(
            "INSERT OR IGNORE INTO event_definitions (project_id, name, volume, created_at, last_seen_at)"
            " VALUES (?, ?, 0, ?, ?)",
            [(project, name, seen, seen) for (project, name), seen in tally.renamed.items()],
        )
    return ReprocessCounts(**tally.counts)


def run_plugin_job(
    conn: sqlite3.Connection,
    *,
    job_name: str,
    project_id: int,
    process_event: ProcessEvent,
    config: Mapping[str, Any],
    payload: Mapping[str, Any],
) -> dict[str, int]:
    """Run the named job (already validated against the plugin's jobs); returns its counts."""
    if job_name == REPROCESS_JOB.name:
        counts = reprocess_events(
            conn, project_id=project_id, process_event=process_event, config=config, payload=payload
        )
        return counts.as_dict()
    raise ValueError(f"no runner for job {job_name!r}")
