"""Bulk load: numbered records -> batches -> the store, one transaction per batch.

For a project without plugins, batches are prepared (:mod:`.prepare`) and stored by the bulk writer
(:mod:`local_backend.ingestion.bulk`); for a project with plugins they are wire-format events for
:func:`local_backend.ingestion.ingest_events`. Either way loaded events get persons, groups, definitions and the
project's plugins exactly as captured ones. A batch is stored whole or not at all; a failure stops the load with
the batches before it stored, and since every event has a stable uuid, loading the same rows again stores only
what is missing.
"""

from __future__ import annotations

import gc
import sqlite3
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import islice
from typing import Any, TypedDict

from tqdm import tqdm

from ..config import DEFAULT_BATCH_SIZE
from ..errors import ValidationError
from ..ingestion import ingest_events
from ..ingestion.bulk import store_prepared
from ..ingestion.timestamps import to_micros
from ..plugins.pipeline import load_enabled_plugins
from .prepare import PreparedBatch, WireBatch, prepare_batch, wire_batch, wire_events
from .records import RecordError

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "MAX_REJECTIONS",
    "LoadReport",
    "LoadInterrupted",
    "Rejection",
    "check_batch_size",
    "batched",
    "load_records",
    "rare_collections",
    "store_batches",
]

Batch = PreparedBatch | WireBatch
MAX_BATCH_SIZE = 1_000_000
MAX_REJECTIONS = 20
GC_THRESHOLD = 200_000  # new objects between collections during a load (Python's default: 700)


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
    seconds: float = 0.0  # the whole load, building deferred indexes included
    deferred_indexes: list[str] = field(default_factory=list)  # built after storing the rows
    index_seconds: float = 0.0  # building them

    @property
    def events_per_second(self) -> float:
        return self.read / self.seconds if self.seconds > 0 else 0.0

    def reject(self, row: int, reason: str) -> None:
        self.rejected += 1
        self.add_rejection(row, reason)

    def add_rejection(self, row: int, reason: str) -> None:
        """Keep a reason (the first :data:`MAX_REJECTIONS` only) for a row already counted as rejected."""
        if len(self.rejections) < MAX_REJECTIONS:
            self.rejections.append({"row": row, "reason": reason})

    def summary(self) -> str:
        """One line of counts, then one line per recorded rejection."""
        lines = [
            f"Loaded {self.loaded} events ({self.duplicates} already stored, {self.rejected} rejected,"
            f" {self.dropped} dropped by plugins) from {self.read} rows in {self.seconds:.1f} s"
            f" ({self.events_per_second:,.0f} rows/s)."
        ]
        if self.deferred_indexes:
            lines[0] += f" Indexes built after the rows: {len(self.deferred_indexes)} in {self.index_seconds:.1f} s."
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
    return ingest_events(conn, dict(project), events, now=now)


def _plugins_enabled(conn: sqlite3.Connection, project: Mapping[str, Any]) -> bool:
    return bool(load_enabled_plugins(conn, int(project["id"])))


def _write(
    conn: sqlite3.Connection, project: Mapping[str, Any], batch: Batch, now: datetime, plugins: bool
) -> tuple[int, int, int, list[tuple[int, str]]]:
    """The one place bulk load stores a batch: stored, duplicates, dropped and (row, reason) rejections.

    A prepared batch of a project without plugins goes to the bulk writer as it is; every other batch goes
    through ``ingest_events`` and the plugin pipeline.
    """
    if isinstance(batch, WireBatch):
        events = batch.events
    elif not plugins:
        outcome = store_prepared(conn, project, batch, to_micros(now))
        return outcome.accepted, outcome.duplicates, 0, []
    else:
        events = wire_events(batch)
    report = _ingest(conn, project, events, now)
    rows = batch.rows
    reasons = [(rows[item["index"]], str(item["reason"])) for item in report.rejections]
    return report.accepted, report.duplicates, report.dropped, reasons


def store_batches(
    conn: sqlite3.Connection,
    project: Mapping[str, Any],
    batches: Iterable[Batch],
    *,
    report: LoadReport,
    now: datetime | None = None,
    total: int | None = None,
    progress: bool = False,
    description: str = "loading",
) -> LoadReport:
    """Store batches one transaction each, adding their outcome to ``report``."""
    moment = now or datetime.now(UTC)
    plugins = _plugins_enabled(conn, project)
    started = time.perf_counter()
    batch: Batch | None = None
    with (
        tqdm(total=total, unit="ev", desc=description, file=sys.stderr, disable=not progress) as bar,
        _timed(report, started),
        rare_collections(),
    ):
        try:
            for batch in batches:
                report.read += batch.read
                for row, reason in batch.rejections:
                    report.add_rejection(row, reason)
                report.rejected += batch.rejected
                if len(batch):
                    try:
                        stored, duplicates, dropped, reasons = _write(conn, project, batch, moment, plugins)
                    except sqlite3.Error as error:
                        first, last = batch.rows[0], batch.rows[-1]
                        raise LoadInterrupted(f"storing rows {first}-{last} failed: {error}", report, first) from error
                    report.loaded += stored
                    report.duplicates += duplicates
                    report.dropped += dropped
                    for row, reason in reasons:
                        report.reject(row, reason)
                bar.update(batch.last_row - bar.n)
                batch = None
        except KeyboardInterrupt:
            # the batch in hand was rolled back (or never stored): everything before it is stored
            first = batch.first_row if batch is not None else report.read + 1
            raise LoadInterrupted(f"interrupted before row {first} was stored", report, first) from None
    return report


def batched(
    records: Iterable[tuple[int, Mapping[str, Any] | RecordError]],
    batch_size: int,
    received: int,
    *,
    wire: bool = False,
) -> Iterator[Batch]:
    """Numbered records in batches of ``batch_size`` records: prepared, or as wire-format objects (``wire``)
    for a project whose plugins need them."""
    iterator = iter(records)
    while chunk := list(islice(iterator, batch_size)):
        yield wire_batch(chunk) if wire else prepare_batch(chunk, received)


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
    check_batch_size(batch_size)
    moment = now or datetime.now(UTC)
    return store_batches(
        conn,
        project,
        batched(records, batch_size, to_micros(moment), wire=_plugins_enabled(conn, project)),
        report=LoadReport(),
        now=moment,
        total=total,
        progress=progress,
        description=description,
    )


@contextmanager
def rare_collections() -> Iterator[None]:
    """Fewer cyclic garbage collections while storing: batches make many objects and no reference cycles, and
    the default threshold (a collection every 700 new objects) costs several per cent of a load."""
    before = gc.get_threshold()
    gc.set_threshold(GC_THRESHOLD, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


@contextmanager
def _timed(report: LoadReport, started: float) -> Iterator[None]:
    try:
        yield
    finally:
        report.seconds = time.perf_counter() - started
