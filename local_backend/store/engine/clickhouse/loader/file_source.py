"""The ``file()`` table function a chdb bulk load reads a file through (:mod:`.staging`), when the file's columns are
ours: ``event``, ``distinct_id``, ``timestamp``, ``properties`` and ``uuid``, as text (a JSON Lines object's
values, or Parquet string columns). Any other file is the row-by-row loader's."""

from __future__ import annotations

import json
from pathlib import Path

from ..client import require
from ..params import string_literal as _literal

__all__ = ["MAYBE_TYPED_EVENT", "MAYBE_TYPED_ID", "file_source"]

_COLUMNS = ("event", "distinct_id", "timestamp", "properties", "uuid")
_READ_AS = ", ".join(f"{name} Nullable(String)" for name in _COLUMNS)
# The same with the event and distinct id as JSON typed them: read as text, a number, a boolean, an array or an
# object gives its JSON text, which the row-by-row loader would reject as not text (an integer distinct id
# aside). Reading with types costs about 1.5 s more CPU per million events (measured), so a file is read so only
# when a value's text says JSON may have typed it (MAYBE_TYPED_EVENT, MAYBE_TYPED_ID).
_TYPED = ("event", "distinct_id")
_READ_TYPED = ", ".join(f"{name} Dynamic" if name in _TYPED else f"{name} Nullable(String)" for name in _COLUMNS)
_JSON_NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
#: An event name, and a distinct id, whose text read as text JSON may have typed (then the file is read again
#: with _READ_TYPED): a number, a boolean, an array or an object (a distinct id may be an integer).
MAYBE_TYPED_EVENT = rf"^(?:{_JSON_NUMBER}|true|false)$|^[{{\[]"
MAYBE_TYPED_ID = r"^(?:-?[0-9]+(?:\.[0-9]+)?[eE][+-]?[0-9]+|-?[0-9]+\.[0-9]+|-0|true|false)$|^[{\[]"


def file_source(file: Path, file_format: str, *, typed: bool = False) -> str | None:
    """The ``file()`` table function reading the events file ``file`` (``jsonl`` or ``parquet``), or None when
    its columns are not all ours as text; ``typed`` reads a JSON Lines file's event and distinct id with their
    JSON types (see _READ_TYPED)."""
    path = _literal(str(file.absolute()))
    if file_format == "parquet":
        schema = require("pyarrow.parquet").read_schema(file)
        pa = require("pyarrow")
        if not set(schema.names) <= set(_COLUMNS) or any(
            not (pa.types.is_string(field.type) or pa.types.is_large_string(field.type)) for field in schema
        ):
            return None
        cast = ", ".join(
            f"CAST({name} AS Nullable(String)) AS {name}"
            if name in schema.names
            else f"CAST(NULL AS Nullable(String)) AS {name}"
            for name in _COLUMNS
        )
        return f"(SELECT {cast} FROM file({path}, 'Parquet'))"
    if not _first_lines_are_ours(file):
        return None
    return f"file({path}, 'JSONEachRow', {_literal(_READ_TYPED if typed else _READ_AS)})"


def _first_lines_are_ours(file: Path, lines: int = 1000) -> bool:
    """Whether the first lines are JSON objects with only our columns (a later line that is not makes ClickHouse
    refuse the file, and the row-by-row loader takes it)."""
    with file.open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle):
            if number >= lines:
                break
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                return False
            if not isinstance(record, dict) or not record.keys() <= set(_COLUMNS):
                return False
    return True
