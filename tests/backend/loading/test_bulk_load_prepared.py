"""The bulk path: records prepared apart from the database, a reader process, and the bulk writer's rules.

Every expected value here is worked out from the rules of capture (the same checks and reasons) and of
persons; the bulk path must not differ from ingesting the same events one call at a time.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pandas as pd
import pytest

import local_backend.loading as loading
from local_backend.errors import ValidationError
from local_backend.ingestion import ingest_events
from local_backend.loading import load_file
from local_backend.loading.prepare import prepare_batch
from local_backend.loading.records import content_uuid
from local_backend.store.event_rows import to_micros

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
RECEIVED = to_micros(NOW)
HOUR = 3600 * 1_000_000


def micros(text: str) -> int:
    return to_micros(datetime.fromisoformat(text.replace("Z", "+00:00")))


def record(**fields):
    return {"event": "a", "distinct_id": "u1", "timestamp": "2026-01-10T10:00:00Z", **fields}


def test_prepared_batch_applies_the_capture_checks_with_their_reasons():
    records = [
        (1, record(event="x" * 401)),
        (2, record(distinct_id="   ")),
        (3, record(properties='{"n": NaN}')),
        (4, record(distinct_id="d" * 250)),
        (5, record(timestamp="2026-01-16T12:00:00Z")),  # 24 h after the load: later than the 23 h allowed
        (6, record(timestamp="2026-01-16T10:00:00Z")),  # 22 h after: kept as it is
        (7, record(event="")),
    ]
    batch = prepare_batch(records, RECEIVED)
    assert (batch.read, batch.rejected, batch.first_row, batch.last_row) == (7, 4, 1, 7)
    assert batch.rejections == [
        (1, "event name is longer than 400 characters"),
        (2, "no distinct_id"),
        (3, "properties are not valid JSON: Out of range float values are not JSON compliant"),
        (7, "event is missing"),
    ]
    assert batch.rows == [4, 5, 6]
    assert batch.distinct_ids == ["d" * 200, "u1", "u1"]
    assert batch.timestamps == [micros("2026-01-10T10:00:00Z"), RECEIVED, RECEIVED + 22 * HOUR]


def test_prepared_batch_keeps_content_uuids_canonical_text_and_first_property_values():
    batch = prepare_batch(
        [
            (1, record(properties='{"b": 1, "a": "x", "$set": {"plan": "pro"}}')),
            (2, record(properties='{"a": null, "c": true}', uuid="3F2504E0-4F89-41D3-9A0C-0305E82C3301")),
        ],
        RECEIVED,
    )
    moment = datetime(2026, 1, 10, 10, tzinfo=UTC)
    assert batch.uuids == [
        content_uuid("a", "u1", moment, {"b": 1, "a": "x", "$set": {"plan": "pro"}}),
        "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
    ]
    assert batch.properties == ['{"$set":{"plan":"pro"},"a":"x","b":1}', '{"a":null,"c":true}']
    # only the first event changes a person; it keeps just what the person rules read
    assert batch.person_updates == {0: {"$set": {"plan": "pro"}}}
    assert batch.property_samples == {"b": 1, "a": "x", "c": True}


def test_a_whole_float_and_its_integer_are_the_same_event_but_stored_as_given():
    batch = prepare_batch([(1, record(amount=29.0)), (2, record(amount=29))], RECEIVED)
    assert batch.uuids[0] == batch.uuids[1]
    assert batch.properties == ['{"amount":29.0}', '{"amount":29}']


@pytest.fixture
def in_reader_process(monkeypatch):
    """Every file, however small, prepared by a reader process; the list records each one started."""
    monkeypatch.setattr(loading, "worth_a_reader_process", lambda events_file: True)
    started: list[str] = []
    real = loading.prepared_in_process

    def recorded(path, *args):
        started.append(path.name)
        return real(path, *args)

    monkeypatch.setattr(loading, "prepared_in_process", recorded)
    return started


def events_csv(tmp_path, rows: list[str], name: str = "events.csv"):
    path = tmp_path / name
    path.write_text("event,distinct_id,timestamp,plan\n" + "".join(f"{row}\n" for row in rows), encoding="utf-8")
    return path


def stored(conn) -> list[tuple]:
    return [
        (r[0], r[1], r[2], json.loads(r[3]))
        for r in conn.execute("SELECT event, distinct_id, timestamp, properties FROM events ORDER BY timestamp, event")
    ]


def test_a_reader_process_loads_the_same_rows_with_the_same_counts(conn, world, tmp_path, in_reader_process):
    path = events_csv(tmp_path, [
        "$pageview,alice,2026-01-10T10:00:00Z,",
        "signup,alice,2026-01-10T10:05:00Z,pro",
        ",carol,2026-01-10T10:06:00Z,",
        "purchase,bob,2026-01-11T09:00:00+01:00,starter",
        "signup,alice,2026-01-10T10:05:00Z,pro",
    ])  # fmt: skip
    report = load_file(conn, world.project_id, path, now=NOW, batch_size=2)
    assert in_reader_process == ["events.csv"]
    assert (report.read, report.loaded, report.duplicates, report.rejected) == (5, 3, 1, 1)
    assert report.rejections == [{"row": 3, "reason": "event is missing"}]
    assert stored(conn) == [
        ("$pageview", "alice", micros("2026-01-10T10:00:00Z"), {}),
        ("signup", "alice", micros("2026-01-10T10:05:00Z"), {"plan": "pro"}),
        ("purchase", "bob", micros("2026-01-11T08:00:00Z"), {"plan": "starter"}),
    ]


def test_a_file_unreadable_part_way_keeps_the_batches_before_it(conn, world, tmp_path, in_reader_process):
    # The bad byte is far past the header, so the file is refused only once the reader reaches it.
    path = tmp_path / "events.csv"
    good = "".join(f"a,u{i},2026-01-10T10:00:00Z,\n" for i in range(1000))
    path.write_bytes(b"event,distinct_id,timestamp,plan\n" + good.encode() + b"a,\xff\xfe,2026-01-10T10:09:00Z,\n")
    with pytest.raises(ValidationError) as raised:
        load_file(conn, world.project_id, path, now=NOW, batch_size=100)
    assert in_reader_process == ["events.csv"]
    assert raised.value.attr == "file"
    assert "cannot be read after row" in raised.value.detail
    count = conn.execute("SELECT count(*) FROM events").fetchone()[0]
    assert 0 < count < 1000 and count % 100 == 0  # whole batches only, the ones read before the bad byte
    assert not conn.in_transaction


def test_reloading_counts_duplicates_and_leaves_event_volumes_alone(conn, world, tmp_path):
    path = events_csv(
        tmp_path, ["a,u1,2026-01-10T10:00:00Z,", "a,u2,2026-01-10T11:00:00Z,", "b,u1,2026-01-11T10:00:00Z,"]
    )
    assert load_file(conn, world.project_id, path, now=NOW).loaded == 3
    report = load_file(conn, world.project_id, path, now=NOW)
    assert (report.loaded, report.duplicates) == (0, 3)
    volumes = dict(conn.execute("SELECT name, volume FROM event_definitions WHERE project_id = ?", (world.project_id,)))
    assert volumes == {"a": 2, "b": 1}


def test_a_file_out_of_time_order_finds_the_stored_events_among_its_rows(conn, world, tmp_path):
    # The first load stores the middle event; the second file spans it out of time order and repeats it.
    first = events_csv(tmp_path, ["a,u2,2026-01-10T11:00:00Z,"], name="first.csv")
    load_file(conn, world.project_id, first, now=NOW)
    second = events_csv(tmp_path, [
        "a,u3,2026-01-10T12:00:00Z,", "a,u2,2026-01-10T11:00:00Z,", "a,u1,2026-01-10T10:00:00Z,",
        "a,u3,2026-01-10T12:00:00Z,",
    ], name="second.csv")  # fmt: skip
    report = load_file(conn, world.project_id, second, now=NOW)
    assert (report.loaded, report.duplicates) == (2, 2)
    assert [r[1] for r in stored(conn)] == ["u1", "u2", "u3"]


def test_person_rules_in_a_batch_match_ingesting_the_same_events(conn, world, tmp_path):
    # anon browses, signs up as alice (identify merges anon into alice), then alice's plan changes twice
    rows = [
        {"event": "$pageview", "distinct_id": "anon", "timestamp": "2026-01-10T10:00:00Z",
         "properties": {"$set_once": {"first_page": "/"}}},
        {"event": "$identify", "distinct_id": "alice", "timestamp": "2026-01-10T10:01:00Z",
         "properties": {"$anon_distinct_id": "anon", "$set": {"plan": "free"}}},
        {"event": "upgrade", "distinct_id": "alice", "timestamp": "2026-01-10T10:02:00Z",
         "properties": {"$set": {"plan": "pro"}, "$groups": {"company": "acme"}}},
        {"event": "$pageview", "distinct_id": "anon", "timestamp": "2026-01-10T10:03:00Z", "properties": {}},
    ]  # fmt: skip
    path = tmp_path / "people.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert load_file(conn, world.project_id, path, now=NOW).loaded == 4
    persons = conn.execute("SELECT id, properties, is_identified, created_at FROM persons").fetchall()
    assert len(persons) == 1
    person_id, properties, identified, created_at = persons[0]
    assert json.loads(properties) == {"first_page": "/", "plan": "pro"}
    assert (identified, created_at) == (1, micros("2026-01-10T10:00:00Z"))
    assert {r[0] for r in conn.execute("SELECT DISTINCT person_id FROM events")} == {person_id}
    assert [r[0] for r in conn.execute("SELECT group_0 FROM events ORDER BY timestamp")] == [None, None, "acme", None]
    kinds = {
        tuple(r)
        for r in conn.execute("SELECT type, name FROM property_definitions WHERE project_id = ?", (world.project_id,))
    }
    assert kinds >= {(1, "$anon_distinct_id"), (2, "first_page"), (2, "plan")}


def test_bulk_and_capture_store_the_same_person_and_event_rows(conn, world, tmp_path):
    events = [
        {"event": "$pageview", "distinct_id": "anon", "timestamp": "2026-01-10T10:00:00Z", "properties": {"p": 1}},
        {"event": "$create_alias", "distinct_id": "bob", "timestamp": "2026-01-10T10:01:00Z",
         "properties": {"alias": "anon", "$set": {"plan": "pro"}}},
    ]  # fmt: skip
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in events))
    load_file(conn, world.project_id, path, now=NOW)
    uuids = [r[0] for r in conn.execute("SELECT uuid FROM events ORDER BY timestamp")]
    ingest_events(conn, {"id": world.other_project_id}, [{**e, "uuid": u} for e, u in zip(events, uuids, strict=True)],
                  now=NOW)  # fmt: skip

    def shape(project_id):
        return (
            [tuple(r) for r in conn.execute("SELECT uuid, event, distinct_id, timestamp, json(properties) FROM events"
                                             " WHERE project_id = ? ORDER BY timestamp", (project_id,))],
            [(json.loads(r[0]), r[1]) for r in conn.execute(
                "SELECT properties, is_identified FROM persons WHERE project_id = ?", (project_id,))],
        )  # fmt: skip

    bulk_events, bulk_persons = shape(world.project_id)
    captured_events, captured_persons = shape(world.other_project_id)
    assert [row[:4] for row in bulk_events] == [row[:4] for row in captured_events]
    assert [json.loads(row[4]) for row in bulk_events] == [json.loads(row[4]) for row in captured_events]
    assert bulk_persons == captured_persons == [({"plan": "pro"}, 1)]


def test_a_reader_process_is_started_for_large_files_only(tmp_path, monkeypatch):
    import local_backend.loading.pipe as pipe
    from local_backend.loading.readers import open_events_file

    path = events_csv(tmp_path, ["a,u1,2026-01-10T10:00:00Z,"])  # 60 bytes
    monkeypatch.setattr(pipe, "PARALLEL_MIN_BYTES", 61)
    assert not pipe.worth_a_reader_process(open_events_file(path))
    monkeypatch.setattr(pipe, "PARALLEL_MIN_BYTES", 60)
    assert pipe.worth_a_reader_process(open_events_file(path))
    # Parquet says how many rows it has: that decides, not its (compressed) size
    parquet = tmp_path / "events.parquet"
    pd.DataFrame({"event": ["a"] * 3, "distinct_id": ["u1"] * 3, "timestamp": ["2026-01-10T10:00:00Z"] * 3}).to_parquet(
        parquet
    )
    monkeypatch.setattr(pipe, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(pipe, "PARALLEL_MIN_ROWS", 4)
    assert not pipe.worth_a_reader_process(open_events_file(parquet))
    monkeypatch.setattr(pipe, "PARALLEL_MIN_ROWS", 3)
    assert pipe.worth_a_reader_process(open_events_file(parquet))
