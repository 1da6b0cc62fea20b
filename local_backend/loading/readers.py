"""Reading events files: CSV, JSON Lines and Parquet, as a stream of numbered records.

Each reader checks the columns up front (a file without ``event``, ``distinct_id`` or ``timestamp`` is refused
before anything is stored) and then yields ``(row_number, record)`` pairs one at a time (the record is a
:class:`~.records.RecordError` for a JSON line that is not an object), so a file of any size
is read in bounded memory. Row numbers count records from 1, the header not included.

Errors that make the whole file unusable raise :class:`~local_backend.errors.ValidationError` with
``attr="file"``; a record that is merely bad is the loader's business (rejected and counted).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import ValidationError
from .records import RecordError, missing_columns, typed_cell

__all__ = ["FORMATS", "EventsFile", "open_events_file", "detect_format"]

Format = Literal["csv", "jsonl", "parquet"]
FORMATS: tuple[Format, ...] = ("csv", "jsonl", "parquet")
_EXTENSIONS: dict[str, Format] = {
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}
# Property JSON in one CSV cell can be long; the csv module's default limit is 128 KiB.
_CSV_FIELD_LIMIT = 64 * 1024 * 1024
_PARQUET_BATCH_ROWS = 10_000


@dataclass(frozen=True)
class EventsFile:
    """An opened events file: its format, its row count when the format knows it, and its records."""

    path: Path
    format: Format
    total: int | None
    records: Iterator[tuple[int, dict[str, Any] | RecordError]]


def detect_format(path: Path, given: str | None = None) -> Format:
    """``given`` when set, else the format the file's extension names (``.gz`` is not supported)."""
    if given is not None:
        if given not in FORMATS:
            raise ValidationError(f"Unknown format {given!r}: use one of {', '.join(FORMATS)}.", attr="format")
        return given  # type: ignore[return-value]
    found = _EXTENSIONS.get(path.suffix.lower())
    if found is None:
        raise ValidationError(
            f"Cannot tell the format of {path.name} from its extension: pass --format csv, jsonl or parquet.",
            attr="format",
        )
    return found


def _require_columns(path: Path, columns: Any, what: str = "columns") -> None:
    missing = missing_columns(columns)
    if missing:
        raise ValidationError(f"{path.name} has no {' or '.join(missing)} {what}.", attr="columns", code="required")


def _bad_file(path: Path, problem: str) -> ValidationError:
    return ValidationError(f"{path.name}: {problem}", attr="file")


def _csv_records(path: Path) -> EventsFile:
    csv.field_size_limit(_CSV_FIELD_LIMIT)
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            header = next(csv.reader(handle), None)
    except (UnicodeDecodeError, csv.Error) as error:
        raise _bad_file(path, f"not a readable CSV file ({error})") from None
    if not header:
        raise _bad_file(path, "the file is empty (a CSV file needs a header row)")
    header = [name.strip() for name in header]  # spreadsheets often pad header cells
    _require_columns(path, header)
    raw_columns = {"event", "distinct_id", "timestamp", "uuid", "properties"}
    typed = [name not in raw_columns for name in header]

    def records() -> Iterator[tuple[int, dict[str, Any] | RecordError]]:
        number = 0
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.reader(handle)
            try:
                next(reader)
                for number, cells in enumerate(reader, start=1):  # noqa: B007 - number is reported on errors
                    if not cells:
                        continue
                    yield (
                        number,
                        {
                            name: (typed_cell(cell) if is_typed else cell)
                            for name, cell, is_typed in zip(header, cells, typed, strict=False)
                            if cell != ""
                        },
                    )
            except (UnicodeDecodeError, csv.Error) as error:
                raise _bad_file(path, f"the file cannot be read after row {number} ({error})") from None

    return EventsFile(path=path, format="csv", total=None, records=records())


def _check_first_line(path: Path, first: str) -> None:
    """A file whose first line is not an event object with the required keys is not an events file."""
    try:
        head = json.loads(first)
    except ValueError:
        raise _bad_file(path, "line 1 is not JSON (JSON Lines has one JSON object per line)") from None
    except RecursionError:
        return  # nested too deeply to read its keys: one bad record, which the loader rejects
    if not isinstance(head, dict):
        raise _bad_file(path, "line 1 is not a JSON object (JSON Lines has one JSON object per line)")
    nested = head.get("properties")
    columns = set(head) | ({"distinct_id"} if isinstance(nested, dict) and "distinct_id" in nested else set())
    _require_columns(path, columns, what="keys on its first line")


def _jsonl_records(path: Path) -> EventsFile:
    try:
        with path.open(encoding="utf-8-sig") as handle:
            first = handle.readline()
    except UnicodeDecodeError as error:
        raise _bad_file(path, f"not a readable JSON Lines file ({error})") from None
    if first.strip():
        _check_first_line(path, first)

    def records() -> Iterator[tuple[int, dict[str, Any] | RecordError]]:
        number = 0
        with path.open(encoding="utf-8-sig") as handle:
            try:
                for line in handle:
                    if not line.strip():
                        continue
                    number += 1
                    # a broken line is a bad record, not a bad file: the loader rejects it and carries on
                    try:
                        value = json.loads(line)
                    except ValueError:
                        value = None
                    except RecursionError:
                        yield number, RecordError("the line nests too deeply to be read as JSON")
                        continue
                    yield number, value if isinstance(value, dict) else RecordError("the line is not a JSON object")
            except UnicodeDecodeError as error:
                raise _bad_file(path, f"the file cannot be read after row {number} ({error})") from None

    return EventsFile(path=path, format="jsonl", total=None, records=records())


def _parquet_records(path: Path) -> EventsFile:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ValidationError(
            "Reading Parquet needs pyarrow: pip install 'insightlab[parquet]'.", attr="format"
        ) from None
    try:
        with pq.ParquetFile(path) as parquet:
            names, total = parquet.schema_arrow.names, parquet.metadata.num_rows
    except Exception as error:  # pyarrow raises several kinds for a file that is not Parquet
        raise _bad_file(path, f"not a readable Parquet file ({error})") from None
    _require_columns(path, names)

    def records() -> Iterator[tuple[int, dict[str, Any] | RecordError]]:
        number = 0
        with pq.ParquetFile(path) as parquet:
            try:
                for batch in parquet.iter_batches(batch_size=_PARQUET_BATCH_ROWS):
                    for row in batch.to_pylist():
                        number += 1
                        yield number, row
            except OSError as error:
                raise _bad_file(path, f"the file cannot be read after row {number} ({error})") from None

    return EventsFile(path=path, format="parquet", total=total, records=records())


_READERS = {"csv": _csv_records, "jsonl": _jsonl_records, "parquet": _parquet_records}


def open_events_file(path: Path | str, format: str | None = None) -> EventsFile:
    """Open ``path`` for loading, checking that it exists, is in a known format and has the needed columns."""
    path = Path(path)
    if not path.is_file():
        raise ValidationError(f"No such file: {path}", attr="file", code="does_not_exist")
    kind = detect_format(path, format)
    return _READERS[kind](path)
