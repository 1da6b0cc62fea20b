"""Bulk load: numbered records -> wire-format events -> ingestion, one transaction per batch.

Every event goes through :func:`local_backend.ingestion.ingest_events`, so bulk-loaded events get persons,
groups, definitions and the project's plugins exactly as captured ones. A batch is stored whole or not at all;
a failure stops the load with the batches before it stored, and since every event has a stable uuid, loading
the same rows again stores only what is missing.
"""

from __future__ import annotations

import sqlite3
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypedDict

from tqdm import tqdm

from ..errors import ValidationError
from .records import RecordError, wire_event

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "MAX_REJECTIONS",
    "LoadReport",
    "LoadInterrupted",
    "Rejection",
    "check_batch_size",
    "ingest_numbered",
    "load_records",
]

DEFAULT_BATCH_SIZE = 10_000
MAX_BATCH_SIZE = 1_000_000
MAX_REJECTIONS = 20


class Rejection(TypedDict):
    row: int
    reason: str


@dataclass
class LoadReport:
    """What a load did. ``loaded`` counts newly stored events; ``rejected`` rows could not be events;
    ``dropped`` events were removed by the project's plugins; ``rejections`` holds the first reasons."""

    read: int = 0
    loaded: int = 0
    duplicates: int = 0
    rejected: int = 0
    dropped: int = 0
    rejections: list[Rejection] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def events_per_second(self) -> float:
        return self.read / self.seconds if self.seconds > 0 else 0.0

    def reject(self, row: int, reason: str) -> None:
        self.rejected += 1
        if len(self.rejections) < MAX_REJECTIONS:
            self.rejections.append({"row": row, "reason": reason})

    def summary(self) -> str:
        """One line of counts, then one line per recorded rejection."""
        lines = [
            f"Loaded {self.loaded} events ({self.duplicates} already stored, {self.rejected} rejected,"
            f" {self.dropped} dropped by plugins) from {self.read} rows in {self.seconds:.1f} s"
            f" ({self.events_per_second:,.0f} rows/s)."
        ]
        lines += [f"  row {r['row']}: {r['reason']}" for r in self.rejections]
        if self.rejected > len(self.rejections):
            lines.append(f"  ... and {self.rejected - len(self.rejections)} more rejected rows")
        return "\n".join(lines)


class LoadInterrupted(Exception):
    """Storing a batch failed; the batches before it are stored. Carries the report up to that point."""

    def __init__(self, message: str, report: LoadReport, first_row: int) -> None:
        super().__init__(message)
        self.report = report
        self.first_row = first_row


def check_batch_size(batch_size: int) -> int:
    if not 1 <= batch_size <= MAX_BATCH_SIZE:
        raise ValidationError(f"batch size must be between 1 and {MAX_BATCH_SIZE}.", attr="batch_size")
    return batch_size


def _ingest(conn: sqlite3.Connection, project: Mapping[str, Any], events: list[dict[str, Any]], now: datetime) -> Any:
    """The one place bulk load hands events to ingestion."""
    from ..ingestion import ingest_events

    return ingest_events(conn, dict(project), events, now=now)


def _store(
    conn: sqlite3.Connection,
    project: Mapping[str, Any],
    batch: list[dict[str, Any]],
    rows: list[int],
    now: datetime,
    report: LoadReport,
) -> None:
    try:
        outcome = _ingest(conn, project, batch, now)
    except sqlite3.Error as error:
        raise LoadInterrupted(f"storing rows {rows[0]}-{rows[-1]} failed: {error}", report, rows[0]) from error
    report.loaded += outcome.accepted
    report.duplicates += outcome.duplicates
    report.dropped += outcome.dropped
    report.rejected += outcome.rejected
    for item in outcome.rejections:
        index = item.get("index")
        row = rows[index] if isinstance(index, int) and 0 <= index < len(rows) else rows[0]
        if len(report.rejections) < MAX_REJECTIONS:
            report.rejections.append({"row": row, "reason": str(item.get("reason", "rejected"))})


def _checked(
    records: Iterable[tuple[int, Mapping[str, Any] | RecordError]], report: LoadReport
) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, record in records:
        report.read += 1
        try:
            if isinstance(record, RecordError):
                raise record
            yield number, wire_event(record)
        except RecordError as error:
            report.reject(number, str(error))


def ingest_numbered(
    conn: sqlite3.Connection,
    project: Mapping[str, Any],
    events: Iterable[tuple[int, dict[str, Any]]],
    *,
    report: LoadReport,
    now: datetime | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    total: int | None = None,
    progress: bool = False,
    description: str = "loading",
) -> LoadReport:
    """Ingest wire-format events numbered from 1 in batches of ``batch_size``, adding the outcome to ``report``."""
    check_batch_size(batch_size)
    moment = now or datetime.now(UTC)
    started = time.perf_counter()
    batch: list[dict[str, Any]] = []
    rows: list[int] = []
    last = 0
    with (
        tqdm(total=total, unit="ev", desc=description, file=sys.stderr, disable=not progress) as bar,
        _timed(report, started),
    ):
        try:
            for last, event in events:
                batch.append(event)
                rows.append(last)
                if len(batch) >= batch_size:
                    _store(conn, project, batch, rows, moment, report)
                    bar.update(last - bar.n)
                    batch, rows = [], []
            if batch:
                _store(conn, project, batch, rows, moment, report)
        except KeyboardInterrupt:
            # the batch in hand was rolled back (or never sent): everything before it is stored
            first = rows[0] if rows else last + 1
            raise LoadInterrupted(f"interrupted before row {first} was stored", report, first) from None
        # rows rejected after the last event were read too
        report.read = max(report.read, last)
        bar.update(report.read - bar.n)
    return report


def load_records(
    conn: sqlite3.Connection,
    project: Mapping[str, Any],
    records: Iterable[tuple[int, Mapping[str, Any] | RecordError]],
    *,
    now: datetime | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    total: int | None = None,
    progress: bool = False,
    description: str = "loading",
) -> LoadReport:
    """Load numbered records (file rows) into ``project``; rows that cannot be events are rejected and counted."""
    report = LoadReport()
    return ingest_numbered(
        conn,
        project,
        _checked(records, report),
        report=report,
        now=now,
        batch_size=batch_size,
        total=total,
        progress=progress,
        description=description,
    )


@contextmanager
def _timed(report: LoadReport, started: float) -> Iterator[None]:
    try:
        yield
    finally:
        report.seconds = time.perf_counter() - started
