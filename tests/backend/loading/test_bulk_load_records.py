"""Rows of a file or DataFrame -> wire-format events, and the readers of each file format (no storage here)."""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from local_backend.errors import ValidationError
from local_backend.loading.readers import detect_format, open_events_file
from local_backend.loading.records import RecordError, content_uuid, typed_cell, wire_event

BASE = {"event": "signup", "distinct_id": "u1", "timestamp": "2026-01-10T10:00:00Z"}


@pytest.mark.parametrize(
    "text, value",
    [
        ("42", 42),
        ("-7", -7),
        ("0", 0),
        ("3.5", 3.5),
        ("1e3", 1000.0),
        ("true", True),
        ("false", False),
        ("00501", "00501"),  # a zip code, not a number
        ("+1", "+1"),
        ("1.", "1."),
        ("1e", "1e"),
        ("True", "True"),
        ("NaN", "NaN"),
        ("12 apples", "12 apples"),
        ("", ""),
    ],
)
def test_csv_cells_are_typed_only_when_they_spell_a_json_number_or_boolean(text, value):
    result = typed_cell(text)
    assert result == value
    assert type(result) is type(value)


@pytest.mark.parametrize(
    "record, timestamp",
    [
        (BASE, "2026-01-10T10:00:00+00:00"),
        ({**BASE, "timestamp": "2026-01-10T11:00:00+01:00"}, "2026-01-10T10:00:00+00:00"),
        ({**BASE, "timestamp": "2026-01-10 10:00:00"}, "2026-01-10T10:00:00+00:00"),  # naive is UTC
        ({**BASE, "timestamp": "2026-01-10"}, "2026-01-10T00:00:00+00:00"),
        ({**BASE, "timestamp": datetime(2026, 1, 10, 10, 0, 0, 250)}, "2026-01-10T10:00:00.000250+00:00"),
        (
            {**BASE, "timestamp": datetime(2026, 1, 10, 5, 0, tzinfo=timezone(timedelta(hours=-5)))},
            "2026-01-10T10:00:00+00:00",
        ),
        ({**BASE, "timestamp": pd.Timestamp("2026-01-10T10:00:00", tz="UTC")}, "2026-01-10T10:00:00+00:00"),
        ({**BASE, "timestamp": date(2026, 1, 10)}, "2026-01-10T00:00:00+00:00"),
    ],
)
def test_timestamps_become_one_utc_iso_spelling_per_instant(record, timestamp):
    assert wire_event(record)["timestamp"] == timestamp


def test_flat_columns_become_properties_and_empty_cells_are_absent():
    record = {**BASE, "plan": "pro", "amount": 12.5, "empty": "", "missing": None, "nan": float("nan"),
              "nat": pd.NaT, "na": pd.NA, "zero": 0, "no": False}  # fmt: skip
    assert wire_event(record)["properties"] == {"plan": "pro", "amount": 12.5, "zero": 0, "no": False}


@pytest.mark.parametrize(
    "properties",
    ['{"plan": "pro", "n": 2}', {"plan": "pro", "n": 2}, b'{"plan": "pro", "n": 2}'],
)
def test_properties_column_is_json_text_or_an_object(properties):
    assert wire_event({**BASE, "properties": properties})["properties"] == {"plan": "pro", "n": 2}


def test_flat_columns_are_added_over_the_properties_column():
    record = {**BASE, "properties": '{"plan": "free", "a": 1}', "plan": "pro"}
    assert wire_event(record)["properties"] == {"plan": "pro", "a": 1}


def test_distinct_id_may_come_from_properties_and_numbers_become_text():
    assert wire_event({**BASE, "distinct_id": None, "properties": {"distinct_id": "p9"}})["distinct_id"] == "p9"
    assert wire_event({**BASE, "distinct_id": 1234})["distinct_id"] == "1234"


def test_numpy_scalars_and_dates_in_properties_become_plain_json_values():
    import numpy as np

    record = {**BASE, "n": np.int64(3), "x": np.float64(0.5), "day": date(2026, 1, 2)}
    properties = wire_event(record)["properties"]
    assert properties == {"n": 3, "x": 0.5, "day": "2026-01-02"}
    assert type(properties["n"]) is int
    json.dumps(properties)


@pytest.mark.parametrize(
    "record, reason",
    [
        ({**BASE, "event": ""}, "event is missing"),
        ({**BASE, "event": None}, "event is missing"),
        ({**BASE, "event": 7}, "event is not text"),
        ({**BASE, "distinct_id": ""}, "distinct_id is missing"),
        ({**BASE, "distinct_id": True}, "distinct_id is not text"),
        ({**BASE, "distinct_id": ["a"]}, "distinct_id is not text"),
        ({**BASE, "timestamp": ""}, "timestamp is missing"),
        ({**BASE, "timestamp": float("nan")}, "timestamp is missing"),
        ({**BASE, "timestamp": "yesterday"}, "timestamp 'yesterday' is not an ISO 8601 date-time"),
        ({**BASE, "timestamp": 1767916800}, "timestamp 1767916800 is not an ISO 8601 date-time"),
        ({**BASE, "properties": "{not json"}, "properties is not valid JSON"),
        ({**BASE, "properties": "[1, 2]"}, "properties is not a JSON object"),
        ({**BASE, "uuid": "not-a-uuid"}, "uuid 'not-a-uuid' is not a UUID"),
    ],
)
def test_bad_records_are_refused_with_a_reason(record, reason):
    with pytest.raises(RecordError) as raised:
        wire_event(record)
    assert str(raised.value) == reason


def test_a_given_uuid_is_kept_in_canonical_form():
    given = "0E3F1A7C-1111-4222-8333-444455556666"
    assert wire_event({**BASE, "uuid": given})["uuid"] == given.lower()


def test_content_uuid_is_stable_and_changes_with_any_part_of_the_event():
    first = wire_event({**BASE, "plan": "pro", "n": 1})["uuid"]
    # the same event spelled differently: other column order, offset timestamp, properties as JSON text
    same = wire_event(
        {"properties": '{"n": 1}', "plan": "pro", "timestamp": "2026-01-10T11:00:00+01:00", "distinct_id": "u1",
         "event": "signup"}
    )["uuid"]  # fmt: skip
    assert same == first
    others = {
        wire_event({**BASE, "plan": "pro", "n": 2})["uuid"],
        wire_event({**BASE, "plan": "pro", "n": 1, "event": "signed_up"})["uuid"],
        wire_event({**BASE, "plan": "pro", "n": 1, "distinct_id": "u2"})["uuid"],
        wire_event({**BASE, "plan": "pro", "n": 1, "timestamp": "2026-01-10T10:00:00.000001Z"})["uuid"],
    }
    assert first not in others and len(others) == 4
    at = datetime(2026, 1, 10, 10, 0, 0, 123456, tzinfo=UTC)
    assert content_uuid("a", "b", at, {"amount": 29}) == content_uuid("a", "b", at, {"amount": 29.0})
    assert content_uuid("a", "b", at, {"amount": 29}) != content_uuid("a", "b", at, {"amount": 29.5})


def test_content_uuids_are_version_7_and_sort_by_event_time():
    early = datetime(2026, 1, 10, 10, 0, 0, 123456, tzinfo=UTC)
    made = uuid.UUID(content_uuid("a", "b", early, {}))
    assert made.version == 7 and made.variant == uuid.RFC_4122
    # 2026-01-10T10:00:00.123Z is 1768039200123 ms since the epoch: the first 48 bits
    assert made.int >> 80 == 1_768_039_200_123
    stamps = [early + timedelta(milliseconds=n) for n in (0, 1, 2, 1000, 86_400_000)]
    uuids = [content_uuid("z", "u", moment, {"n": -i}) for i, moment in enumerate(stamps)]
    assert uuids == sorted(uuids)


# --- readers ---------------------------------------------------------------------------------------------


def _records(path: Path, format: str | None = None) -> list:
    return list(open_events_file(path, format).records)


def test_csv_reader_types_property_cells_but_not_the_required_columns(tmp_path):
    path = tmp_path / "events.csv"
    path.write_text(
        "\ufeffevent, distinct_id ,timestamp,plan,amount,zip\n"  # Excel's byte-order mark, padded names
        "purchase,007,2026-01-10T10:00:00Z,pro,99,00501\n"
        "\n"
        'pageview,8,2026-01-10T11:00:00Z,,"1,5",\n',
        encoding="utf-8",
    )
    assert _records(path) == [
        (1, {"event": "purchase", "distinct_id": "007", "timestamp": "2026-01-10T10:00:00Z", "plan": "pro",
             "amount": 99, "zip": "00501"}),
        (3, {"event": "pageview", "distinct_id": "8", "timestamp": "2026-01-10T11:00:00Z", "amount": "1,5"}),
    ]  # fmt: skip


def test_jsonl_reader_numbers_lines_and_passes_broken_lines_on_as_record_errors(tmp_path):
    path = tmp_path / "events.jsonl"
    lines = [json.dumps({**BASE, "properties": {"a": 1}}), "", "{broken", "[1, 2]", json.dumps(BASE)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    records = _records(path)
    assert [number for number, _ in records] == [1, 2, 3, 4]
    assert records[0][1] == {**BASE, "properties": {"a": 1}}
    assert isinstance(records[1][1], RecordError) and isinstance(records[2][1], RecordError)
    assert records[3][1] == BASE


def test_parquet_reader_yields_typed_rows_and_knows_its_length(tmp_path):
    path = tmp_path / "events.parquet"
    table = pa.table(
        {
            "event": ["a", "b"],
            "distinct_id": ["u1", "u2"],
            "timestamp": pa.array([datetime(2026, 1, 10, 10, tzinfo=UTC)] * 2, pa.timestamp("us", tz="UTC")),
            "n": [1, None],
        }
    )
    pq.write_table(table, path)
    opened = open_events_file(path)
    assert opened.total == 2 and opened.format == "parquet"
    rows = list(opened.records)
    assert rows[0] == (1, {"event": "a", "distinct_id": "u1", "timestamp": datetime(2026, 1, 10, 10, tzinfo=UTC),
                           "n": 1})  # fmt: skip
    assert wire_event(rows[1][1])["properties"] == {}


@pytest.mark.parametrize(
    "name, content, given, message",
    [
        ("missing.csv", None, None, "No such file"),
        ("events.txt", "x", None, "Cannot tell the format of events.txt"),
        ("events.txt", "x", "xml", "Unknown format 'xml'"),
        ("events.csv", "", None, "the file is empty"),
        ("events.csv", "event,timestamp\nx,2026-01-01\n", None, "events.csv has no distinct_id column"),
        ("events.csv", "name,user\n", None, "has no event or distinct_id or timestamp columns"),
        ("events.csv", b"\xff\xfe\x00bin", None, "not a readable CSV file"),
        ("events.jsonl", "{nope\n", None, "line 1 is not JSON"),
        ("events.jsonl", "[1]\n", None, "line 1 is not a JSON object"),
        ("events.jsonl", '{"event": "a"}\n', None, "has no distinct_id or timestamp keys on its first line"),
        ("events.parquet", "not parquet", None, "not a readable Parquet file"),
    ],
)
def test_unusable_files_are_refused_before_anything_is_read(tmp_path, name, content, given, message):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(ValidationError) as raised:
        open_events_file(path, given)
    assert message in raised.value.detail


def test_format_comes_from_the_extension_unless_given(tmp_path):
    assert detect_format(Path("a.CSV")) == "csv"
    assert detect_format(Path("a.ndjson")) == "jsonl"
    assert detect_format(Path("a.pq")) == "parquet"
    assert detect_format(Path("a.csv"), "jsonl") == "jsonl"


def test_a_csv_row_that_cannot_be_decoded_stops_the_file_with_its_row_number(tmp_path):
    path = tmp_path / "events.csv"
    good = b"event,distinct_id,timestamp\n" + b"a,u1,2026-01-01\n" * 20_000
    path.write_bytes(good + b"b,\xff\xfe,2026-01-01\n")
    records = open_events_file(path).records
    with pytest.raises(ValidationError) as raised:
        list(records)
    # text is decoded ahead in blocks, so the row named is the last one read whole before the bad bytes
    row = int(re.search(r"cannot be read after row (\d+)", raised.value.detail).group(1))
    assert 19_000 < row <= 20_000


def test_a_properties_object_from_the_caller_is_not_changed():
    given = {"plan": "pro"}
    assert wire_event({**BASE, "properties": given, "extra": 1})["properties"] == {"plan": "pro", "extra": 1}
    assert given == {"plan": "pro"}


def test_parquet_properties_as_a_struct_column_are_an_object(tmp_path):
    path = tmp_path / "nested.parquet"
    table = pa.table(
        {
            "event": ["a"],
            "distinct_id": pa.array([42], pa.int64()),
            "timestamp": ["2026-01-10T10:00:00Z"],
            "properties": pa.array([{"plan": "pro", "seats": 3}]),
        }
    )
    pq.write_table(table, path)
    [(number, record)] = list(open_events_file(path).records)
    event = wire_event(record)
    assert (number, event["distinct_id"], event["properties"]) == (1, "42", {"plan": "pro", "seats": 3})
