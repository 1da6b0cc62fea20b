"""Bulk load through ingestion: counts worked out by hand, stored rows checked, re-runs, failures part-way."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from local_backend.errors import ValidationError
from local_backend.loading import LoadInterrupted, load_file, load_frame
from local_backend.store.event_rows import to_micros

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)

# Six rows: three good events, a row without an event name, a row with a bad timestamp, and row 2 again.
CSV = (
    "event,distinct_id,timestamp,plan,amount\n"
    "$pageview,alice,2026-01-10T10:00:00Z,,\n"
    "signup,alice,2026-01-10T10:05:00Z,pro,\n"
    "purchase,bob,2026-01-11T09:00:00+01:00,starter,29\n"
    ",carol,2026-01-11T09:00:00Z,,\n"
    "purchase,bob,not-a-date,,\n"
    "signup,alice,2026-01-10T10:05:00Z,pro,\n"
)
STORED = [
    ("$pageview", "alice", "2026-01-10T10:00:00Z", {}),
    ("signup", "alice", "2026-01-10T10:05:00Z", {"plan": "pro"}),
    ("purchase", "bob", "2026-01-11T08:00:00Z", {"plan": "starter", "amount": 29}),
]


def micros(text: str) -> int:
    return to_micros(datetime.fromisoformat(text.replace("Z", "+00:00")))


def stored(conn, project_id: int) -> list[tuple]:
    rows = conn.execute(
        "SELECT event, distinct_id, timestamp, properties FROM events WHERE project_id = ? ORDER BY timestamp, event",
        (project_id,),
    ).fetchall()
    return [(r["event"], r["distinct_id"], r["timestamp"], json.loads(r["properties"])) for r in rows]


def expected_rows() -> list[tuple]:
    return [(event, who, micros(when), props) for event, who, when, props in STORED]


@pytest.fixture
def csv_file(tmp_path):
    path = tmp_path / "events.csv"
    path.write_text(CSV, encoding="utf-8")
    return path


def test_csv_load_counts_and_stores_the_good_rows(conn, world, csv_file):
    report = load_file(conn, world.project_id, csv_file, now=NOW)
    assert (report.read, report.loaded, report.duplicates, report.rejected, report.dropped) == (6, 3, 1, 2, 0)
    assert report.rejections == [
        {"row": 4, "reason": "event is missing"},
        {"row": 5, "reason": "timestamp 'not-a-date' is not an ISO 8601 date-time"},
    ]
    assert stored(conn, world.project_id) == expected_rows()
    assert "Loaded 3 events (1 already stored, 2 rejected, 0 dropped by plugins) from 6 rows" in report.summary()
    assert "  row 5: timestamp 'not-a-date' is not an ISO 8601 date-time" in report.summary()


def test_loading_the_same_file_again_stores_nothing_twice(conn, world, csv_file):
    load_file(conn, world.project_id, csv_file, now=NOW, batch_size=2)
    again = load_file(conn, world.project_id, csv_file, now=NOW, batch_size=2)
    assert (again.loaded, again.duplicates, again.rejected) == (0, 4, 2)
    assert stored(conn, world.project_id) == expected_rows()


def test_the_same_rows_in_jsonl_or_parquet_are_recognised_as_already_loaded(conn, world, csv_file, tmp_path):
    load_file(conn, world.project_id, csv_file, now=NOW)
    jsonl = tmp_path / "events.jsonl"
    jsonl.write_text(
        "\n".join(json.dumps({"event": e, "distinct_id": d, "timestamp": t, "properties": p}) for e, d, t, p in STORED)
    )
    report = load_file(conn, world.project_id, jsonl, now=NOW)
    assert (report.loaded, report.duplicates) == (0, 3)
    parquet = tmp_path / "events.parquet"
    table = pa.table(
        {
            "event": [e for e, *_ in STORED],
            "distinct_id": [d for _, d, *_ in STORED],
            "timestamp": pa.array([datetime.fromisoformat(t.replace("Z", "+00:00")) for _, _, t, _ in STORED]),
            "plan": [None, "pro", "starter"],
            "amount": pa.array([None, None, 29.0]),  # a float column with gaps, as pandas writes it
        }
    )
    pq.write_table(table, parquet)
    report = load_file(conn, world.project_id, parquet, now=NOW)
    assert (report.read, report.loaded, report.duplicates) == (3, 0, 3)


def test_each_format_loads_into_an_empty_project(conn, world, tmp_path):
    jsonl = tmp_path / "events.ndjson"
    lines = [
        {"event": "signup", "distinct_id": "u1", "timestamp": "2026-01-10T10:00:00Z", "properties": {"a": 1}, "b": 2},
        {"event": "signup", "properties": {"distinct_id": "u2"}, "timestamp": "2026-01-10T11:00:00Z"},
        "not an object",
    ]
    jsonl.write_text("\n".join(json.dumps(line) for line in lines))
    report = load_file(conn, world.project_id, jsonl, now=NOW)
    assert (report.loaded, report.rejected) == (2, 1)
    assert report.rejections == [{"row": 3, "reason": "the line is not a JSON object"}]
    assert stored(conn, world.project_id) == [
        ("signup", "u1", micros("2026-01-10T10:00:00Z"), {"a": 1, "b": 2}),
        ("signup", "u2", micros("2026-01-10T11:00:00Z"), {"distinct_id": "u2"}),
    ]


def test_given_uuids_are_kept(conn, world, tmp_path):
    path = tmp_path / "e.csv"
    path.write_text(
        "uuid,event,distinct_id,timestamp\n"
        "0e3f1a7c-1111-4222-8333-444455556666,a,u1,2026-01-10T10:00:00Z\n"
        "0e3f1a7c-1111-4222-8333-444455556666,b,u1,2026-01-10T10:00:01Z\n"  # same uuid: a resend
    )
    report = load_file(conn, world.project_id, path, now=NOW)
    assert (report.loaded, report.duplicates) == (1, 1)
    assert [tuple(r) for r in conn.execute("SELECT uuid, event FROM events")] == [
        ("0e3f1a7c-1111-4222-8333-444455556666", "a")
    ]


def test_person_properties_and_merges_come_from_ingestion(conn, world, tmp_path):
    path = tmp_path / "people.jsonl"
    lines = [
        {"event": "$pageview", "distinct_id": "anon-1", "timestamp": "2026-01-10T10:00:00Z"},
        {"event": "$identify", "distinct_id": "user-1", "timestamp": "2026-01-10T10:01:00Z",
         "properties": {"$anon_distinct_id": "anon-1", "$set": {"email": "a@example.com", "plan": "free"}}},
        {"event": "purchase", "distinct_id": "user-1", "timestamp": "2026-01-10T10:02:00Z",
         "properties": {"$set": {"plan": "pro"}}},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(line) for line in lines))
    assert load_file(conn, world.project_id, path, now=NOW).loaded == 3
    persons = conn.execute("SELECT id, properties FROM persons WHERE project_id = ?", (world.project_id,)).fetchall()
    assert len(persons) == 1
    assert json.loads(persons[0]["properties"]) == {"email": "a@example.com", "plan": "pro"}
    owners = {
        r[0] for r in conn.execute("SELECT DISTINCT person_id FROM events WHERE project_id = ?", (world.project_id,))
    }
    assert owners == {persons[0]["id"]}


def test_a_failed_batch_is_not_stored_and_a_rerun_completes_the_load(conn, world, tmp_path):
    path = tmp_path / "events.csv"
    path.write_text(
        "event,distinct_id,timestamp\n"
        "a,u1,2026-01-10T10:00:00Z\n"
        "a,u2,2026-01-10T10:01:00Z\n"
        "a,u3,2026-01-10T10:02:00Z\n"  # batch 2: u3 is new, so a person would be created for it
        "boom,u1,2026-01-10T10:03:00Z\n"
        "a,u4,2026-01-10T10:04:00Z\n"
    )
    conn.execute(
        "CREATE TEMP TRIGGER refuse_boom BEFORE INSERT ON main.events WHEN NEW.event = 'boom'"
        " BEGIN SELECT RAISE(ABORT, 'storage refused the event'); END"
    )
    with pytest.raises(LoadInterrupted) as raised:
        load_file(conn, world.project_id, path, now=NOW, batch_size=2)
    assert raised.value.first_row == 3
    assert "storing rows 3-4 failed: storage refused the event" in str(raised.value)
    assert raised.value.report.loaded == 2
    assert [r[0] for r in conn.execute("SELECT distinct_id FROM events ORDER BY timestamp")] == ["u1", "u2"]
    known = {r[0] for r in conn.execute("SELECT distinct_id FROM person_distinct_ids")}
    assert known == {"u1", "u2"}  # nothing of the failed batch, not even its new person
    assert not conn.in_transaction
    conn.execute("DROP TRIGGER refuse_boom")
    report = load_file(conn, world.project_id, path, now=NOW, batch_size=2)
    assert (report.loaded, report.duplicates) == (3, 2)
    assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == 5


def test_load_frame_takes_the_same_rules_as_a_file(conn, world):
    frame = pd.DataFrame(
        {
            "event": ["signup", "purchase", None],
            "distinct_id": ["u1", "u1", "u2"],
            "timestamp": pd.to_datetime(["2026-01-10 10:00", "2026-01-10 11:00", "2026-01-10 12:00"]),
            "amount": [None, 99.0, 5.0],
            "properties": [{"plan": "free"}, '{"plan": "pro"}', None],
        },
        index=[10, 20, 30],
    )
    report = load_frame(conn, world.project_id, frame, now=NOW)
    assert (report.read, report.loaded, report.rejected) == (3, 2, 1)
    assert report.rejections == [{"row": 3, "reason": "event is missing"}]
    assert stored(conn, world.project_id) == [
        ("signup", "u1", micros("2026-01-10T10:00:00Z"), {"plan": "free"}),
        ("purchase", "u1", micros("2026-01-10T11:00:00Z"), {"plan": "pro", "amount": 99.0}),
    ]


@pytest.mark.parametrize(
    "columns, message",
    [
        (["event", "distinct_id"], "The DataFrame has no timestamp column."),
        (["name", "user", "time"], "The DataFrame has no event or distinct_id or timestamp column."),
    ],
)
def test_load_frame_refuses_a_frame_without_the_required_columns(conn, world, columns, message):
    with pytest.raises(ValidationError) as raised:
        load_frame(conn, world.project_id, pd.DataFrame(columns=columns))
    assert raised.value.detail == message and raised.value.attr == "columns"
    assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == 0


@pytest.mark.parametrize(
    "project, batch_size, message",
    [(999, 10, "Project 999 does not exist."), (None, 0, "batch size must be between 1 and 1000000.")],
)
def test_unknown_project_and_bad_batch_size_are_refused(conn, world, csv_file, project, batch_size, message):
    with pytest.raises(ValidationError) as raised:
        load_file(conn, project or world.project_id, csv_file, batch_size=batch_size)
    assert raised.value.detail == message


def test_plugins_of_the_project_run_on_loaded_events(conn, world, tmp_path):
    from local_backend.plugins.configs import create_config

    create_config(
        conn, project_id=world.project_id, user_id=world.user_id, now="2026-01-15T12:00:00Z",
        fields={"plugin": 4, "order": 1, "enabled": True, "config": {}},
    )  # fmt: skip
    path = tmp_path / "events.csv"
    path.write_text(
        "event,distinct_id,timestamp,$raw_user_agent\n"
        "$pageview,u1,2026-01-10T10:00:00Z,Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0\n"
        "$pageview,crawler,2026-01-10T10:00:00Z,Mozilla/5.0 (compatible; Googlebot/2.1)\n"
    )
    report = load_file(conn, world.project_id, path, now=NOW)
    assert (report.loaded, report.dropped) == (1, 1)
    assert [r[0] for r in conn.execute("SELECT distinct_id FROM events")] == ["u1"]


def test_an_interrupted_load_keeps_the_stored_batches_and_says_where_it_stopped(conn, world, monkeypatch):
    from local_backend.loading import loader

    real = loader._write
    calls = []

    def store_then_interrupt(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(loader, "_write", store_then_interrupt)
    frame = pd.DataFrame({"event": ["a"] * 5, "distinct_id": [f"u{i}" for i in range(5)],
                          "timestamp": [f"2026-01-10T10:0{i}:00Z" for i in range(5)]})  # fmt: skip
    with pytest.raises(LoadInterrupted) as raised:
        load_frame(conn, world.project_id, frame, batch_size=2)
    assert raised.value.first_row == 3
    assert str(raised.value) == "interrupted before row 3 was stored"
    assert raised.value.report.loaded == 2
    assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == 2


def test_top_level_wire_keys_such_as_set_become_properties_that_ingestion_honours(conn, world, tmp_path):
    path = tmp_path / "wire.jsonl"
    path.write_text(json.dumps({"event": "x", "distinct_id": "u1", "timestamp": "2026-01-10T10:00:00Z",
                                "$set": {"plan": "pro"}}))  # fmt: skip
    assert load_file(conn, world.project_id, path, now=NOW).loaded == 1
    assert json.loads(conn.execute("SELECT properties FROM persons").fetchone()[0]) == {"plan": "pro"}


def test_only_the_first_twenty_reasons_are_kept_and_the_rest_are_counted(conn, world, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("event,distinct_id,timestamp\n" + "a,,2026-01-10T10:00:00Z\n" * 25 + "a,u1,2026-01-10\n")
    report = load_file(conn, world.project_id, path, now=NOW)
    assert (report.read, report.loaded, report.rejected, len(report.rejections)) == (26, 1, 25, 20)
    assert report.rejections[-1] == {"row": 20, "reason": "distinct_id is missing"}
    assert report.summary().endswith("  ... and 5 more rejected rows")
