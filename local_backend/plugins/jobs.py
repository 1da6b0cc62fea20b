"""Plugin jobs: actions a user triggers on one config, outside the flow of new events.

The one job the built-in plugins share re-runs a date range of stored events through a config, so a
property filter or a naming convention set up today also applies to last month's events: changed events
are rewritten, dropped ones deleted, all or none, on the event engine the database records (SQLite in one
transaction; ClickHouse through :mod:`local_backend.store.engine.clickhouse.rewrite`). The counts are the same on both.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Literal

from ..clock import format_micros, parse_instant
from ..errors import ValidationError
from ..store.db import transaction
from ..store.engine.clickhouse.client import ClickHouseClient
from ..store.engine.clickhouse.clients import client_for
from ..store.engine.clickhouse.rewrite import StagedRewrite, finish_rewrites, stored_event_batches
from ..store.engine.spec import recorded_engine
from ..store.events import to_micros
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
# Events read from ClickHouse at once: each read takes whole days (rewrite.stored_event_batches), so a batch that
# holds a day's events reads each event about once (the demo's busiest day holds 18,771 of a million)
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


@dataclass(frozen=True)
class Outcome:
    """What one stored event became: ``event`` and ``properties`` (JSON) are its new values when changed."""

    kind: Literal["changed", "dropped", "unchanged", "failed"]
    event: str = ""
    properties: str = ""


class _Tally:
    """Runs each stored event through the config, counting outcomes the same way whatever the engine."""

    def __init__(self, process_event: ProcessEvent, config: Mapping[str, Any]) -> None:
        self.process_event = process_event
        self.config = config
        self.counts = {"processed": 0, "changed": 0, "dropped": 0, "unchanged": 0, "failed": 0}
        # (project, new event name) -> the last time of an event renamed to it
        self.renamed: dict[tuple[int, str], int] = {}

    def judge(self, stored: Event, properties: str, timestamp: int) -> Outcome:
        """The outcome of one stored event, given as an :data:`Event` and its properties' JSON text, from which
        the plugin gets a copy of its own to change (parsing the text again is cheaper than copying the dict)."""
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


# The next batch of a range's events on SQLite, in id order. NOT INDEXED walks the table by id from the last
# one read, so the job reads each row once; left to itself SQLite picked an index on project_id, read every
# row of the project for each batch and sorted them by id (97 s of a 150 s job over 1M events).
STORED_EVENTS_SQL = (
    "SELECT id, uuid, event, distinct_id, properties, timestamp FROM events NOT INDEXED WHERE project_id = ?"
    " AND timestamp BETWEEN ? AND ? AND id > ? ORDER BY id LIMIT ?"
)


def _reprocess_sqlite(conn: sqlite3.Connection, tally: _Tally, *, project_id: int, start: int, end: int) -> None:
    last_id = 0
    while True:
        rows = conn.execute(STORED_EVENTS_SQL, (project_id, start, end, last_id, BATCH_SIZE)).fetchall()
        if not rows:
            return
        last_id = rows[-1]["id"]
        renames: list[tuple[str, str, int]] = []
        updates: list[tuple[str, int]] = []
        deletes: list[tuple[int]] = []
        for row in rows:
            stored = _stored_event(
                uuid=row["uuid"],
                event=row["event"],
                distinct_id=row["distinct_id"],
                properties=row["properties"],
                timestamp=row["timestamp"],
                project_id=project_id,
            )
            outcome = tally.judge(stored, row["properties"], row["timestamp"])
            if outcome.kind == "dropped":
                deletes.append((row["id"],))
            elif outcome.kind == "changed" and outcome.event != row["event"]:
                renames.append((outcome.event, outcome.properties, row["id"]))
            elif outcome.kind == "changed":
                updates.append((outcome.properties, row["id"]))
        # the name only where it changed: setting it rewrites every index that holds it, even to the same name
        conn.executemany("UPDATE events SET event = ?, properties = ? WHERE id = ?", renames)
        conn.executemany("UPDATE events SET properties = ? WHERE id = ?", updates)
        conn.executemany("DELETE FROM events WHERE id = ?", deletes)


def _reprocess_clickhouse(client: ClickHouseClient, tally: _Tally, *, project_id: int, start: int, end: int) -> None:
    """The same pass over a ClickHouse engine: the rewrite is staged, then applied all at once
    (:mod:`local_backend.store.engine.clickhouse.rewrite` says what happens when it is interrupted)."""
    for project, name, last in finish_rewrites(client):  # a rewrite an earlier job left half-applied
        tally.note_renamed(project, name, last)
    with StagedRewrite(client) as rewrite:
        batches = stored_event_batches(
            client, project_id=project_id, start=start, end=end, batch_size=CLICKHOUSE_BATCH_SIZE
        )
        for batch in batches:
            columns = {name: batch[name].to_pylist() for name in ("uuid", "event", "distinct_id", "properties")}
            timestamps = [int(value) for value in batch["timestamp"].to_pylist()]
            changed: dict[int, tuple[str, str]] = {}
            dropped: list[int] = []
            for index, timestamp in enumerate(timestamps):
                stored = _stored_event(
                    uuid=columns["uuid"][index],
                    event=columns["event"][index],
                    distinct_id=columns["distinct_id"][index],
                    properties=columns["properties"][index],
                    timestamp=timestamp,
                    project_id=project_id,
                )
                outcome = tally.judge(stored, columns["properties"][index], timestamp)
                if outcome.kind == "dropped":
                    dropped.append(index)
                elif outcome.kind == "changed":
                    changed[index] = (outcome.event, outcome.properties)
            rewrite.add(batch, changed, dropped)


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
    with transaction(conn):
        if recorded_engine(conn).kind == "sqlite":
            _reprocess_sqlite(conn, tally, project_id=project_id, start=start, end=end)
        else:
            _reprocess_clickhouse(client_for(conn), tally, project_id=project_id, start=start, end=end)
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
