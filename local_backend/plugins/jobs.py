"""Plugin jobs: actions a user triggers on one config, outside the flow of new events.

The one job the built-in plugins share re-runs a date range of stored events through a config, so a
property filter or a naming convention set up today also applies to last month's events: changed events
are rewritten, dropped ones deleted, all in one transaction.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from ..clock import format_instant, parse_instant
from ..errors import ValidationError
from ..store.db import transaction
from ..store.events import from_micros, to_micros
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
BATCH_SIZE = 5_000


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


def _stored_event(row: sqlite3.Row, project_id: int) -> Event:
    return {
        "uuid": row["uuid"],
        "event": row["event"],
        "distinct_id": row["distinct_id"],
        "properties": json.loads(row["properties"]),
        "timestamp": format_instant(from_micros(row["timestamp"])),
        "team_id": project_id,
    }


def reprocess_events(
    conn: sqlite3.Connection,
    *,
    project_id: int,
    process_event: ProcessEvent,
    config: Mapping[str, Any],
    payload: Mapping[str, Any],
) -> ReprocessCounts:
    """Run stored events of ``payload``'s date range through ``process_event``; one transaction.

    An event the plugin fails on is left as stored and counted in ``failed``.
    """
    start = to_micros(_parse_bound(payload["date_from"], attr="job__payload__date_from", end=False))
    end = to_micros(_parse_bound(payload["date_to"], attr="job__payload__date_to", end=True))
    counts = {"processed": 0, "changed": 0, "dropped": 0, "unchanged": 0, "failed": 0}
    new_names: dict[str, int] = {}
    with transaction(conn):
        last_id = 0
        while True:
            rows = conn.execute(
                "SELECT id, uuid, event, distinct_id, properties, timestamp FROM events WHERE project_id = ?"
                " AND timestamp BETWEEN ? AND ? AND id > ? ORDER BY id LIMIT ?",
                (project_id, start, end, last_id, BATCH_SIZE),
            ).fetchall()
            if not rows:
                break
            last_id = rows[-1]["id"]
            updates: list[tuple[str, str, int]] = []
            deletes: list[tuple[int]] = []
            for row in rows:
                counts["processed"] += 1
                before = _stored_event(row, project_id)
                try:
                    after = process_event(_stored_event(row, project_id), config)
                except Exception:
                    counts["failed"] += 1
                    continue
                if after is None:
                    counts["dropped"] += 1
                    deletes.append((row["id"],))
                elif after["event"] != before["event"] or after["properties"] != before["properties"]:
                    counts["changed"] += 1
                    properties = json.dumps(after["properties"], separators=(",", ":"))
                    updates.append((str(after["event"]), properties, row["id"]))
                    if after["event"] != before["event"]:
                        new_names[str(after["event"])] = max(new_names.get(str(after["event"]), 0), row["timestamp"])
                else:
                    counts["unchanged"] += 1
            conn.executemany("UPDATE events SET event = ?, properties = ? WHERE id = ?", updates)
            conn.executemany("DELETE FROM events WHERE id = ?", deletes)
        # Renamed events must be offered by the event-name pickers too.
        conn.executemany(
            "INSERT OR IGNORE INTO event_definitions (project_id, name, volume, created_at, last_seen_at)"
            " VALUES (?, ?, 0, ?, ?)",
            [(project_id, name, seen, seen) for name, seen in new_names.items()],
        )
    return ReprocessCounts(**counts)


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
