"""Bulk load of events from files (CSV, JSON Lines, Parquet) and pandas DataFrames.

    from local_backend.loading import load_file, load_frame
    report = load_file(conn, project, "events.csv")          # the CLI's load-events
    report = load_frame(conn, project, df)                   # the same rules for a DataFrame
    print(report.summary())

Modules: ``records`` (one record -> one wire-format event), ``readers`` (files -> numbered records),
``prepare`` (records -> a checked batch, no database), ``pipe`` (preparing in a second process), ``loader``
(batches into the store, the report). See docs/loading.md.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ValidationError
from ..ingestion.timestamps import to_micros
from ..store.projects import get_project
from .columnar import load_columnar
from .deferred import deferred_indexes, expected_rows, worth_deferring
from .loader import (
    DEFAULT_BATCH_SIZE,
    LoadInterrupted,
    LoadReport,
    Rejection,
    batched,
    check_batch_size,
    load_records,
    store_batches,
)
from .pipe import prepared_in_process, worth_a_reader_process
from .readers import FORMATS, open_events_file
from .records import REQUIRED_COLUMNS, RecordError, missing_columns

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "FORMATS",
    "REQUIRED_COLUMNS",
    "LoadInterrupted",
    "LoadReport",
    "Rejection",
    "load_file",
    "load_frame",
    "resolve_project",
]


def resolve_project(conn: sqlite3.Connection, project: Mapping[str, Any] | int) -> dict[str, Any]:
    """A project row given the row itself or its id; an unknown id is a ValidationError."""
    project_id = project if isinstance(project, int) else int(project["id"])
    found = get_project(conn, project_id)
    if found is None:
        raise ValidationError(f"Project {project_id} does not exist.", attr="project", code="does_not_exist")
    return found


def load_file(
    conn: sqlite3.Connection,
    project: Mapping[str, Any] | int,
    path: Path | str,
    *,
    format: str | None = None,
    now: datetime | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: bool = False,
    parallel: bool = True,
    defer_indexes: bool | None = None,
) -> LoadReport:
    """Load an events file into ``project``; the format comes from the extension unless ``format`` is given.

    With ``parallel`` (the default), a large file (:func:`~.pipe.worth_a_reader_process`) is read and prepared
    by a second process while this one stores. ``defer_indexes`` builds the events' secondary indexes after
    the load instead of during it (:mod:`.deferred`); by default, when the file is large and the database
    holds fewer events than it brings.
    """
    check_batch_size(batch_size)
    row = resolve_project(conn, project)
    events_file = open_events_file(path, format)
    moment = now or datetime.now(UTC)
    columnar = load_columnar(conn, row, events_file, now=moment, batch_size=batch_size, progress=progress)
    if columnar is not None:  # a chdb project without plugins: ClickHouse read the file (:mod:`.columnar`)
        return columnar
    received = to_micros(moment)
    if parallel and worth_a_reader_process(events_file):
        batches = prepared_in_process(events_file.path, events_file.format, batch_size, received)
    else:
        batches = batched(events_file.records, batch_size, received)
    if defer_indexes is None:
        defer_indexes = worth_deferring(conn, expected_rows(events_file))
    report = LoadReport()
    with deferred_indexes(conn, defer_indexes) as indexes:
        try:
            store_batches(
                conn,
                row,
                batches,
                report=report,
                now=moment,
                total=events_file.total,
                progress=progress,
                description=events_file.path.name,
            )
        finally:
            report.deferred_indexes = indexes.names
    report.index_seconds = indexes.build_seconds
    report.seconds += indexes.build_seconds
    return report


def _frame_records(frame: pd.DataFrame, chunk: int) -> Iterator[tuple[int, dict[str, Any] | RecordError]]:
    number = 0
    for start in range(0, len(frame), chunk):
        for record in frame.iloc[start : start + chunk].to_dict("records"):
            number += 1
            yield number, {str(key): value for key, value in record.items()}


def load_frame(
    conn: sqlite3.Connection,
    project: Mapping[str, Any] | int,
    frame: pd.DataFrame,
    *,
    now: datetime | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: bool = False,
) -> LoadReport:
    """Load a DataFrame of events (columns as in a file; the index is ignored) into ``project``.

    >>> report = load_frame(conn, 1, pd.DataFrame({"event": ["signup"], "distinct_id": ["u1"],
    ...                                            "timestamp": ["2026-01-10T10:00:00Z"], "plan": ["pro"]}))
    >>> report.loaded  # doctest: +SKIP
    1
    """
    check_batch_size(batch_size)
    row = resolve_project(conn, project)
    missing = missing_columns(str(column) for column in frame.columns)
    if missing:
        raise ValidationError(f"The DataFrame has no {' or '.join(missing)} column.", attr="columns", code="required")
    return load_records(
        conn,
        row,
        _frame_records(frame, batch_size),
        now=now,
        batch_size=batch_size,
        total=len(frame),
        progress=progress,
        description="DataFrame",
    )
