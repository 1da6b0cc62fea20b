"""load_file into a chdb project: ClickHouse reads the file, and the outcome is the row-by-row loader's."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tqdm import tqdm

import local_backend.loading.columnar as columnar
import local_backend.store.engine.clickhouse.loader.staging as staging
from local_backend.loading import load_file
from local_backend.store.engine.choice import open_database
from local_backend.store.migrations import migrate
from local_backend.store.projects import create_project

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
DEFINITION_COLUMNS = "type, name, group_type_index, property_type"
ROWS = [
    {"event": "$pageview", "distinct_id": "anon-1", "timestamp": "2026-01-10T10:00:00Z",
     "properties": {"$browser": "Chrome", "plan": None}},
    {"event": "$pageview", "distinct_id": "anon-1", "timestamp": "2026-01-10T10:01:00Z",
     "properties": {"$browser": "Chrome", "plan": "free"}},
    {"event": "$identify", "distinct_id": "alice", "timestamp": "2026-01-10T10:02:00Z",
     "properties": {"$anon_distinct_id": "anon-1", "$set": {"email": "a@example.com"}}},
    {"event": "order", "distinct_id": "alice", "timestamp": "2026-01-10T10:03:00Z",
     "properties": {"$groups": {"company": "acme"}, "amount": 12.5}},
    {"event": "$pageview", "distinct_id": "bob", "timestamp": "2026-01-10T10:04:00Z"},
    {"event": "$pageview", "distinct_id": "bob", "timestamp": "2026-01-10T10:04:00Z"},  # the same event again
    {"event": "", "distinct_id": "carol", "timestamp": "2026-01-10T10:05:00Z"},
    {"event": "x", "distinct_id": "   ", "timestamp": "2026-01-10T10:05:00Z"},
    {"event": "x", "distinct_id": "dave", "timestamp": "yesterday-ish"},
    {"event": "x" * 401, "distinct_id": "dave", "timestamp": "2026-01-10T10:05:00Z"},
    {"event": "late", "distinct_id": "erin", "timestamp": "2030-01-01T00:00:00Z"},
    {"event": "signup", "distinct_id": "frank", "timestamp": "2026-01-10T10:06:00Z",
     "uuid": "01890000-0000-7000-8000-0000000000aa"},
    {"event": "signup", "distinct_id": "frank", "timestamp": "2026-01-10T10:07:00Z",
     "uuid": "01890000-0000-7000-8000-0000000000aa"},
]  # fmt: skip


def write_jsonl(folder: Path) -> Path:
    path = folder / "events.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    return path


def fresh(folder: Path, name: str):
    path = folder / name
    migrate(path)
    conn = open_database(path)
    return conn, create_project(conn, name="p", timezone="UTC", now="2026-01-15T12:00:00Z")


def rows(conn, sql: str) -> list[tuple]:
    return sorted(tuple(row) for row in conn.execute(sql))


def outcome(conn, events: list[tuple]) -> dict:
    """What a load left behind, independent of person ids: who shares a person, definitions, groups."""
    person_of = dict(rows(conn, "SELECT distinct_id, person_id FROM person_distinct_ids"))
    together = sorted(sorted(d for d in person_of if person_of[d] == p) for p in set(person_of.values()))
    return {
        "persons": together,
        "properties": sorted(json.dumps(json.loads(r[0]), sort_keys=True)
                             for r in conn.execute("SELECT properties FROM persons")),
        "event_definitions": rows(conn, "SELECT name, volume, created_at, last_seen_at FROM event_definitions"),
        "property_definitions": rows(conn, f"SELECT {DEFINITION_COLUMNS} FROM property_definitions"),
        "groups": rows(conn, "SELECT group_type_index, group_key FROM groups"),
        "events": sorted(events),
    }  # fmt: skip


# One batch; then batches of 3 and 2 rows: an identify and the events after it in different batches, a
# batch whose rows are all rejected (rows 7-9), the next batch's persons decided while one is being copied.
@pytest.fixture(params=[None, 3, 2], ids=["one-batch", "batches-of-3", "batches-of-2"])
def loads(request, monkeypatch, ch_conn, ch, tmp_path, world):
    """Load the rows into chdb column at a time and into SQLite row by row; both reports and outcomes."""
    path = write_jsonl(tmp_path)
    used = []
    real = columnar._store

    def spy(*args, **kwargs):
        used.append(True)
        return real(*args, **kwargs)

    monkeypatch.setattr(columnar, "_store", spy)
    if request.param is not None:
        monkeypatch.setattr(columnar, "COLUMNAR_BATCH", request.param)
    ch_report = load_file(ch_conn, world.project_id, path, now=NOW, batch_size=request.param or 10_000)
    assert used, "the chdb load did not go column at a time"
    sqlite_conn, project = fresh(tmp_path, "reference.db")
    sqlite_report = load_file(sqlite_conn, project, path, now=NOW)
    db = f"`{ch.database}`"
    ch_events = ch.query_rows(
        f"SELECT e.event, e.distinct_id, e.timestamp, e.group_0, e.uuid = '01890000-0000-7000-8000-0000000000aa'"
        f" FROM {db}.events AS e WHERE project_id = {world.project_id}"
    )
    sqlite_events = sqlite_conn.execute(
        "SELECT event, distinct_id, timestamp, group_0, uuid = '01890000-0000-7000-8000-0000000000aa' FROM events"
    ).fetchall()
    return (
        ch_report,
        sqlite_report,
        outcome(ch_conn, ch_events),
        outcome(sqlite_conn, [tuple(r) for r in sqlite_events]),
    )


def test_counts_and_rejections_match_the_row_by_row_load(loads):
    ch_report, sqlite_report, _, _ = loads
    assert (ch_report.read, ch_report.loaded, ch_report.duplicates, ch_report.rejected) == (13, 7, 2, 4)
    assert (sqlite_report.read, sqlite_report.loaded, sqlite_report.duplicates, sqlite_report.rejected) == (13, 7, 2, 4)
    assert [r["row"] for r in ch_report.rejections] == [r["row"] for r in sqlite_report.rejections] == [7, 8, 9, 10]
    reasons = [r["reason"] for r in ch_report.rejections]
    assert reasons[0] == "event is missing"
    assert reasons[1] == "no distinct_id"
    assert reasons[3] == "event name is longer than 400 characters"


def test_persons_groups_definitions_and_events_match(loads):
    _, _, ch_outcome, sqlite_outcome = loads
    assert ch_outcome == sqlite_outcome
    assert ch_outcome["persons"] == [["alice", "anon-1"], ["bob"], ["erin"], ["frank"]]


def test_a_second_load_stores_nothing(ch_conn, ch, tmp_path, world):
    path = write_jsonl(tmp_path)
    load_file(ch_conn, world.project_id, path, now=NOW)
    again = load_file(ch_conn, world.project_id, path, now=NOW)
    assert (again.loaded, again.duplicates, again.rejected) == (0, 9, 4)
    assert ch.query_rows(f"SELECT count() FROM `{ch.database}`.events")[0][0] == 7


def test_parquet_with_text_columns_loads_column_at_a_time(ch_conn, ch, tmp_path, world):
    path = tmp_path / "events.parquet"
    rows = ROWS[:5]
    pq.write_table(pa.table({
        "event": [r["event"] for r in rows], "distinct_id": [r["distinct_id"] for r in rows],
        "timestamp": [r["timestamp"] for r in rows], "properties": [json.dumps(r.get("properties", {})) for r in rows],
    }), path)  # fmt: skip
    report = load_file(ch_conn, world.project_id, path, now=NOW)
    assert (report.loaded, report.rejected) == (5, 0)
    merged = ch.query_rows(f"SELECT count() FROM `{ch.database}`.person_overrides")[0][0]
    assert merged == 0  # anon-1's person took alice's distinct id: nothing to merge
    people = ch_conn.execute("SELECT count(DISTINCT person_id) FROM person_distinct_ids").fetchone()[0]
    assert people == 2


def test_a_file_with_property_columns_loads_row_by_row(ch_conn, ch, tmp_path, world):
    path = tmp_path / "flat.jsonl"
    path.write_text(json.dumps({"event": "e", "distinct_id": "a", "timestamp": "2026-01-10T10:00:00Z", "plan": "pro"}))
    report = load_file(ch_conn, world.project_id, path, now=NOW)
    assert report.loaded == 1
    assert ch.query_rows(f"SELECT properties FROM `{ch.database}`.events") == [('{"plan":"pro"}',)]


def assert_rows_1_to_3_alone_stored(ch_conn, ch) -> None:
    """anon-1's two pageviews and alice's $identify, in ClickHouse and SQLite alike, and nothing of bob's."""
    events = ch.query_rows(f"SELECT distinct_id FROM `{ch.database}`.events ORDER BY timestamp")
    assert events == [("anon-1",), ("anon-1",), ("alice",)]
    assert rows(ch_conn, "SELECT distinct_id FROM person_distinct_ids") == [("alice",), ("anon-1",)]
    assert rows(ch_conn, "SELECT name, volume FROM event_definitions") == [("$identify", 1), ("$pageview", 2)]


def test_a_batch_whose_copy_fails_leaves_the_batches_before_it_and_nothing_of_its_own(
    monkeypatch, ch_conn, ch, tmp_path, world
):
    """Batches of 3 rows; the copy of rows 4-6 fails (while rows 7-9 are being decided): rows 1-3 stay stored,
    with their persons, and neither SQLite nor ClickHouse holds anything of rows 4-6 (bob's events and person)."""
    path = write_jsonl(tmp_path)
    monkeypatch.setattr(columnar, "COLUMNAR_BATCH", 3)
    real_copy = staging.Stage.copy

    def copy(stage, groups, first, last, created_at):
        if first == 4:
            raise RuntimeError("ClickHouse went away")
        return real_copy(stage, groups, first, last, created_at)

    monkeypatch.setattr(staging.Stage, "copy", copy)
    with pytest.raises(RuntimeError, match="went away"):
        load_file(ch_conn, world.project_id, path, now=NOW, batch_size=3)
    assert_rows_1_to_3_alone_stored(ch_conn, ch)
    assert ch.query_rows(f"SHOW TABLES FROM `{ch.database}` LIKE '\\\\_load%'") == []  # the staging tables went


def test_a_batch_whose_next_fetch_fails_is_not_copied(monkeypatch, ch_conn, ch, tmp_path, world):
    """Batches of 3 rows; fetching rows 7-9 (on the worker, while rows 4-6's persons go into SQLite) fails: rows
    4-6 are not copied, so as with a failed copy rows 1-3 stay stored and nothing of rows 4-6 is."""
    path = write_jsonl(tmp_path)
    monkeypatch.setattr(columnar, "COLUMNAR_BATCH", 3)
    real_batch = staging.Stage.batch

    def batch(stage, first, last):
        if first == 7:
            raise RuntimeError("ClickHouse went away")
        return real_batch(stage, first, last)

    monkeypatch.setattr(staging.Stage, "batch", batch)
    with pytest.raises(RuntimeError, match="went away"):
        load_file(ch_conn, world.project_id, path, now=NOW, batch_size=3)
    assert_rows_1_to_3_alone_stored(ch_conn, ch)


def test_a_batch_copied_while_the_next_one_fails_to_be_decided_is_stored_whole(
    monkeypatch, ch_conn, ch, tmp_path, world
):
    """Batches of 3 rows; deciding rows 4-6 fails (Ctrl-C, say) while rows 1-3 are copied: the copy cannot be
    taken back, so rows 1-3 are committed with their persons and definitions before the error comes out, and
    SQLite holds what ClickHouse holds."""
    path = write_jsonl(tmp_path)
    monkeypatch.setattr(columnar, "COLUMNAR_BATCH", 3)
    real_decide = columnar._decide

    def decide(conn, project_id, memory, fetched):
        if fetched is not None and fetched.first == 4:
            raise KeyboardInterrupt
        return real_decide(conn, project_id, memory, fetched)

    monkeypatch.setattr(columnar, "_decide", decide)
    with pytest.raises(KeyboardInterrupt):
        load_file(ch_conn, world.project_id, path, now=NOW, batch_size=3)
    assert_rows_1_to_3_alone_stored(ch_conn, ch)


# Persons created by the rules between persons created bare: u1's identify creates u1 and x's person before x's
# first event (which then creates nothing), c's $set creates c's person, and a's identify merges e's person
# into a's. Worked out by hand in file order: a, then u1 (with x), then b, then c; e's person is merged away.
NUMBERING_ROWS = [
    {"event": "$pageview", "distinct_id": "a", "timestamp": "2026-01-10T10:00:00Z"},
    {"event": "$identify", "distinct_id": "u1", "timestamp": "2026-01-10T10:01:00Z",
     "properties": {"$anon_distinct_id": "x"}},
    {"event": "$pageview", "distinct_id": "x", "timestamp": "2026-01-10T10:02:00Z"},
    {"event": "$pageview", "distinct_id": "b", "timestamp": "2026-01-10T10:03:00Z"},
    {"event": "purchase", "distinct_id": "c", "timestamp": "2026-01-10T10:04:00Z",
     "properties": {"$set": {"plan": "pro"}}},
    {"event": "$pageview", "distinct_id": "e", "timestamp": "2026-01-10T10:05:00Z"},
    {"event": "$identify", "distinct_id": "a", "timestamp": "2026-01-10T10:06:00Z",
     "properties": {"$anon_distinct_id": "e"}},
]  # fmt: skip


@pytest.mark.parametrize("batch", [None, 3, 2], ids=["one-batch", "batches-of-3", "batches-of-2"])
def test_persons_are_numbered_in_the_order_of_the_events_that_created_them(
    batch, monkeypatch, ch_conn, ch, tmp_path, world
):
    path = tmp_path / "numbering.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in NUMBERING_ROWS))
    if batch is not None:
        monkeypatch.setattr(columnar, "COLUMNAR_BATCH", batch)
    assert load_file(ch_conn, world.project_id, path, now=NOW, batch_size=batch or 10_000).loaded == 7
    people = ch_conn.execute(
        "SELECT p.id, group_concat(d.distinct_id), p.created_at, p.is_identified, p.properties FROM persons p"
        " JOIN person_distinct_ids d ON d.person_id = p.id GROUP BY p.id ORDER BY p.id"
    ).fetchall()
    minute = 60_000_000
    t0 = int(datetime(2026, 1, 10, 10, tzinfo=UTC).timestamp()) * 1_000_000
    assert [(",".join(sorted(ids.split(","))), created, identified, json.loads(properties))
            for _, ids, created, identified, properties in people] == [
        ("a,e", t0, 1, {}),
        ("u1,x", t0 + minute, 1, {}),
        ("b", t0 + 3 * minute, 0, {}),
        ("c", t0 + 4 * minute, 0, {"plan": "pro"}),
    ]  # fmt: skip
    # each event's person in ClickHouse is its distinct id's person, through the overrides
    person_of = dict(ch_conn.execute("SELECT distinct_id, person_id FROM person_distinct_ids"))
    overrides = dict(ch.query_rows(
        f"SELECT old_person_id, argMax(person_id, version) FROM `{ch.database}`.person_overrides GROUP BY 1"
    ))  # fmt: skip
    for distinct_id, person_id in ch.query_rows(f"SELECT distinct_id, person_id FROM `{ch.database}`.events"):
        assert overrides.get(person_id, person_id) == person_of[distinct_id]


def test_a_bare_person_whose_uuid_is_taken_gets_a_random_one_in_both_stores(ch_conn, ch, tmp_path, world):
    first = tmp_path / "first.jsonl"
    first.write_text(json.dumps(NUMBERING_ROWS[3]) + "\n")  # b's pageview
    load_file(ch_conn, world.project_id, first, now=NOW)
    (b_uuid,) = ch_conn.execute("SELECT uuid FROM persons").fetchone()
    ch_conn.execute("DELETE FROM person_distinct_ids")
    again = tmp_path / "again.jsonl"
    again.write_text("".join(json.dumps({**row, "timestamp": "2026-01-11T10:00:00Z"}) + "\n"
                             for row in NUMBERING_ROWS[3:4] + NUMBERING_ROWS[5:6]))  # fmt: skip
    assert load_file(ch_conn, world.project_id, again, now=NOW).loaded == 2
    stored = dict(ch_conn.execute("SELECT id, uuid FROM persons"))
    assert len(stored) == len(set(stored.values())) == 3 and stored[1] == b_uuid
    copies = dict(ch.query_rows(f"SELECT id, argMax(uuid, version) FROM `{ch.database}`.persons GROUP BY id"))
    assert copies == stored


def test_reading_the_file_shows_a_bar_of_its_bytes_before_the_batches(capsys, ch_conn, tmp_path, world):
    path = write_jsonl(tmp_path)
    load_file(ch_conn, world.project_id, path, now=NOW, progress=True)
    lines = [line.strip() for line in capsys.readouterr().err.replace("\r", "\n").splitlines() if line.strip()]
    reading = [number for number, line in enumerate(lines) if line.startswith("events.jsonl (reading):")]
    batches = [number for number, line in enumerate(lines) if line.startswith("events.jsonl:")]
    size = tqdm.format_sizeof(path.stat().st_size)
    assert reading and "100%" in lines[reading[-1]] and f"{size}/{size}" in lines[reading[-1]]
    assert batches and batches[0] > reading[-1] and "13/13" in lines[batches[-1]]


def test_a_bare_persons_uuid_is_the_uuid5_of_its_project_and_distinct_id(ch_conn, ch, tmp_path, world):
    """The uuids of bare persons are made by ClickHouse; they are the standard uuid5 of "<project>:<distinct id>",
    as for a person the rules create."""
    path = tmp_path / "bare.jsonl"
    names = ["b", "zoë ✓", "with 'quotes' and \"more\" \\"]
    path.write_text("".join(json.dumps({"event": "$pageview", "distinct_id": name, "timestamp": "2026-01-10T10:00:00Z"})
                            + "\n" for name in names))  # fmt: skip
    assert load_file(ch_conn, world.project_id, path, now=NOW).loaded == 3
    namespace = uuid.UUID("0c2b6f5e-1f77-4d2b-9a55-6b8f3c0d9e21")
    expected = {name: str(uuid.uuid5(namespace, f"{world.project_id}:{name}")) for name in names}
    stored = dict(ch_conn.execute(
        "SELECT d.distinct_id, p.uuid FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id"
    ))  # fmt: skip
    assert stored == expected
    copies = {row[0] for row in ch.query_rows(f"SELECT uuid FROM `{ch.database}`.persons")}
    assert copies == set(expected.values())


# Each $groups key as it is written in the file, and the group column capture stores for it: Python's str() of
# the parsed value (a whole real keeps its point, small and large reals take an exponent, true is True), no
# group for a null or empty key, an object or an array.
GROUP_KEYS = [
    ("1.0", "1.0"), ("1e5", "100000.0"), ("2.5E-7", "2.5e-07"), ("1e16", "1e+16"), ("-0.0", "-0.0"),
    ("0.1", "0.1"), ("7", "7"), ("12345678901234567890123", "12345678901234567890123"), ("true", "True"),
    ('"acme"', "acme"), ("null", None), ('""', None), ('{"id": 1}', None), ("[1, 2]", None),
    # a whole real from 2^64 on, whose raw text in ClickHouse is its digits in quotes; and text of digits
    ("2.5e20", "2.5e+20"), ("-2.5e20", "-2.5e+20"), ('"250000000000000000000"', "250000000000000000000"),
]  # fmt: skip


def test_group_keys_of_every_json_type_are_stored_as_capture_stores_them(ch_conn, ch, tmp_path, world):
    path = tmp_path / "keys.jsonl"
    path.write_text("".join(
        f'{{"event": "order", "distinct_id": "u{n}", "timestamp": "2026-01-10T10:{n:02d}:00Z",'
        f' "properties": {{"$groups": {{"company": {written}}}}}}}\n'
        for n, (written, _) in enumerate(GROUP_KEYS)
    ))  # fmt: skip
    expected = [stored for _, stored in GROUP_KEYS]
    assert load_file(ch_conn, world.project_id, path, now=NOW).loaded == len(GROUP_KEYS)
    assert [row[0] for row in ch.query_rows(f"SELECT group_0 FROM `{ch.database}`.events ORDER BY timestamp")] == (
        expected
    )
    sqlite_conn, project = fresh(tmp_path, "reference.db")
    assert load_file(sqlite_conn, project, path, now=NOW).loaded == len(GROUP_KEYS)
    assert [row[0] for row in sqlite_conn.execute("SELECT group_0 FROM events ORDER BY timestamp")] == expected


def micros(text: str) -> int:
    return int(datetime.fromisoformat(text).timestamp() * 1_000_000)


def spy_on_columnar_store(monkeypatch) -> list:
    """A list that gets an item each time a chdb load goes column at a time."""
    used: list = []
    real = columnar._store
    monkeypatch.setattr(columnar, "_store", lambda *args, **kwargs: used.append(True) or real(*args, **kwargs))
    return used


def load_with_both_loaders(monkeypatch, ch_conn, ch, world, tmp_path, path, columns: str) -> list:
    """Load ``path`` into chdb (column at a time) and into SQLite (row by row): each load's report and its
    events' ``columns``."""
    used = spy_on_columnar_store(monkeypatch)
    ch_report = load_file(ch_conn, world.project_id, path, now=NOW)
    assert used, "the chdb load did not go column at a time"
    ch_rows = [tuple(row) for row in ch.query_rows(f"SELECT {columns} FROM `{ch.database}`.events")]
    sqlite_conn, project = fresh(tmp_path, "reference.db")
    sqlite_report = load_file(sqlite_conn, project, path, now=NOW)
    sqlite_rows = [tuple(row) for row in sqlite_conn.execute(f"SELECT {columns} FROM events")]
    return [(ch_report, ch_rows), (sqlite_report, sqlite_rows)]


# Each timestamp as written, and the UTC time stored or the reason the row is rejected: what the row-by-row
# loader does (ISO 8601 as Python reads it, no other spelling, every field in its range).
TIMESTAMPS = [
    ("2026-01-10T10:00:00Z", micros("2026-01-10T10:00:00+00:00")),
    ("2026-01-10 10:00:00", micros("2026-01-10T10:00:00+00:00")),
    ("2026-01-10", micros("2026-01-10T00:00:00+00:00")),
    ("2026-01-10T10:00+01:00", micros("2026-01-10T09:00:00+00:00")),
    ("2026-01-10T10:00:00-0530", micros("2026-01-10T15:30:00+00:00")),
    ("2026-01-10T10:00:00+12:61", micros("2026-01-09T20:59:00+00:00")),  # Python takes 61 minutes
    ("2026-01-10T10:00:00.1234567Z", micros("2026-01-10T10:00:00+00:00") + 123_456),
    ("\u00a02026-01-10T10:00:00Z\n", micros("2026-01-10T10:00:00+00:00")),
    ("2024-02-29T10:00:00Z", micros("2024-02-29T10:00:00+00:00")),
    ("Jan 10 2026 10:00", "not an ISO 8601 date-time"),
    ("2026/01/10 10:00:00", "not an ISO 8601 date-time"),
    ("2026-1-5T10:00:00Z", "not an ISO 8601 date-time"),
    ("2026-01-10T24:00:00Z", "not an ISO 8601 date-time"),
    ("2026-01-10T10:60:00Z", "not an ISO 8601 date-time"),
    ("2026-01-10T10:00:60Z", "not an ISO 8601 date-time"),
    ("2026-02-29T10:00:00Z", "not an ISO 8601 date-time"),
    ("2026-00-10", "not an ISO 8601 date-time"),
    ("2026-01-10T10:00:00+24:00", "not an ISO 8601 date-time"),
    ("0001-01-01T00:00:00+01:00", "out of range"),
]


def outcomes_by_row(report, stored: list[tuple[str, int]]) -> list:
    times = dict(stored)
    reasons = {r["row"]: r["reason"] for r in report.rejections}
    return [times.get(f"u{n}", reasons.get(n)) for n in range(1, len(TIMESTAMPS) + 1)]


def test_timestamps_are_read_as_the_row_by_row_loader_reads_them(monkeypatch, ch_conn, ch, tmp_path, world):
    path = tmp_path / "times.jsonl"
    path.write_text("".join(json.dumps({"event": "e", "distinct_id": f"u{n}", "timestamp": written}) + "\n"
                            for n, (written, _) in enumerate(TIMESTAMPS, start=1)))  # fmt: skip
    expected = [
        outcome if isinstance(outcome, int) else f"timestamp {written!r} is {outcome}"
        for written, outcome in TIMESTAMPS
    ]
    for report, stored in load_with_both_loaders(monkeypatch, ch_conn, ch, world, tmp_path, path,
                                                 "distinct_id, timestamp"):  # fmt: skip
        assert outcomes_by_row(report, stored) == expected


def test_a_timestamp_in_another_iso_form_sends_the_file_to_the_row_by_row_loader(
    monkeypatch, ch_conn, ch, tmp_path, world
):
    """The basic form (no dashes or colons) is ISO 8601 and Python reads it, as it reads some runs of digits but
    not others (an epoch time is rejected); the chdb bulk load reads neither, so the whole file is loaded row by
    row, with the same outcome."""
    path = tmp_path / "basic.jsonl"
    rows = [("a", "2026-01-10T10:00:00Z"), ("b", "20260110T110000Z"), ("c", "1700000000")]
    path.write_text("".join(json.dumps({"event": "e", "distinct_id": d, "timestamp": t}) + "\n" for d, t in rows))
    used = spy_on_columnar_store(monkeypatch)
    report = load_file(ch_conn, world.project_id, path, now=NOW)
    assert not used
    assert (report.loaded, [r["reason"] for r in report.rejections]) == (
        2,
        ["timestamp '1700000000' is not an ISO 8601 date-time"],
    )
    stored = ch.query_rows(f"SELECT distinct_id, timestamp FROM `{ch.database}`.events ORDER BY distinct_id")
    assert [tuple(row) for row in stored] == [
        ("a", micros("2026-01-10T10:00:00+00:00")),
        ("b", micros("2026-01-10T11:00:00+00:00")),
    ]


# Rows whose event, distinct id or uuid are not plain text, and what the row-by-row loader makes of each: the
# stored (event, distinct id, uuid) or the reason the row is rejected. (The chdb bulk load reads this file twice:
# as text first, then, since some values read like numbers or arrays, with the JSON types.)
UUIDS = [f"01890000-0000-7000-8000-0000000000a{n}" for n in range(3)]
TYPED_ROWS = [
    ({"distinct_id": 123}, ("e", "123", None)),
    ({"distinct_id": 12345678901234567890123}, ("e", "12345678901234567890123", None)),
    ({"distinct_id": 1.5}, "distinct_id is not text"),
    ({"distinct_id": 1.0}, "distinct_id is not text"),
    ({"distinct_id": True}, "distinct_id is not text"),
    ({"distinct_id": ["a"]}, "distinct_id is not text"),
    ({"distinct_id": {"a": 1}}, "distinct_id is not text"),
    ({"distinct_id": "2026-01-10"}, ("e", "2026-01-10", None)),
    ({"distinct_id": "1.5"}, ("e", "1.5", None)),  # text that reads like a number is text
    ({"distinct_id": None, "properties": {"distinct_id": 42}}, ("e", "42", None)),
    ({"distinct_id": "", "properties": {"distinct_id": 4.0}}, "distinct_id is not text"),
    ({"distinct_id": None, "properties": {"distinct_id": ""}}, "distinct_id is missing"),
    ({"event": 7}, "event is not text"),
    ({"event": None}, "event is missing"),
    ({"event": "2026-01-10"}, ("2026-01-10", "d", None)),
    ({"event": "7"}, ("7", "d", None)),
    ({"uuid": "{" + UUIDS[0].upper() + "}"}, ("e", "d", UUIDS[0])),
    ({"uuid": "urn:uuid:" + UUIDS[1]}, ("e", "d", UUIDS[1])),
    ({"uuid": UUIDS[2].replace("-", "")}, ("e", "d", UUIDS[2])),
    ({"uuid": "not-a-uuid"}, "uuid 'not-a-uuid' is not a UUID"),
    # what int(text, 16) reads besides digits, which uuid.UUID would take
    ({"uuid": "0x0123456789abcdef0123456789abcd"}, "uuid '0x0123456789abcdef0123456789abcd' is not a UUID"),
    ({"uuid": "01234567_89abcdef0123456789abcde"}, "uuid '01234567_89abcdef0123456789abcde' is not a UUID"),
    ({"uuid": " 0123456789abcdef0123456789abcde"}, "uuid ' 0123456789abcdef0123456789abcde' is not a UUID"),
]


def test_events_distinct_ids_and_uuids_that_are_not_plain_text_are_read_as_the_row_by_row_loader_reads_them(
    monkeypatch, ch_conn, ch, tmp_path, world
):
    path = tmp_path / "typed.jsonl"
    path.write_text("".join(
        json.dumps({"event": "e", "distinct_id": "d", "timestamp": f"2026-01-10T10:{n:02d}:00Z", **row}) + "\n"
        for n, (row, _) in enumerate(TYPED_ROWS)
    ))  # fmt: skip
    expected = [outcome for _, outcome in TYPED_ROWS]

    def outcomes(report, stored) -> list:
        by_time = {time: (event, distinct_id, event_uuid if event_uuid in UUIDS else None)
                   for time, event, distinct_id, event_uuid in stored}  # fmt: skip
        reasons = {r["row"]: r["reason"] for r in report.rejections}
        return [
            by_time.get(micros(f"2026-01-10T10:{n:02d}:00+00:00"), reasons.get(n + 1)) for n in range(len(TYPED_ROWS))
        ]

    for report, stored in load_with_both_loaders(monkeypatch, ch_conn, ch, world, tmp_path, path,
                                                 "timestamp, event, distinct_id, uuid"):  # fmt: skip
        assert outcomes(report, stored) == expected


def nested(levels: int) -> dict:
    """Properties ``levels`` deep, the outer object the first level."""
    value: object = 1
    for _ in range(levels - 1):
        value = [value]
    return {"v": value}


OUT_OF_RANGE = "properties are not valid JSON: Out of range float values are not JSON compliant"
SURROGATE = "properties hold text with a lone UTF-16 surrogate, which is not valid Unicode"
# Properties as written on the line (JSON text), and the row-by-row loader's outcome: stored, or the reason.
# Python reads NaN, Infinity, reals beyond a double and lone surrogate escapes, which ClickHouse's JSON reader
# refuses; it then refuses them itself, each with its own reason, as it refuses too deep a nesting.
PROPERTIES_ROWS = [
    (json.dumps(nested(100)), "stored"),
    (json.dumps(nested(101)), "properties nest more than 100 levels deep"),
    ('{"v": "' + "[" * 300 + '"}', "stored"),  # brackets inside a string nest nothing
    ('{"v": [["' + "[" * 300 + '"]]}', "stored"),
    ('{"v": NaN}', OUT_OF_RANGE),
    ('{"v": -Infinity}', OUT_OF_RANGE),
    ('{"v": 1e999}', OUT_OF_RANGE),
    ('{"v": 1' + "0" * 400 + ".5}", OUT_OF_RANGE),
    ('{"v": 1' + "0" * 400 + "}", "stored"),  # an integer of any size is a Python int
    ('{"v": -1e-999}', "stored"),  # underflows to -0.0
    ('{"v": "NaN Infinity 1e999"}', "stored"),
    ('"{\\"v\\": NaN}"', OUT_OF_RANGE),  # properties as a string holding JSON
    ('"{not json"', "properties is not valid JSON"),
    ('"hello"', "properties is not valid JSON"),
    ('"[1]"', "properties is not a JSON object"),
    ("[1]", "properties is not a JSON object"),
    ('{"v": "\\ud800"}', SURROGATE),
    ('{"v": "\\udc00"}', SURROGATE),
    ('{"\\ud800": 1}', SURROGATE),
    ('{"v": "\\\\ud800"}', "stored"),  # an escaped backslash, then text
    ('{"v": "\\ud83d\\ude00"}', "stored"),  # a pair: one character
    ('{"v": NaN, "w": "\\ud800"}', OUT_OF_RANGE),
]


def test_properties_python_reads_and_refuses_are_refused_as_the_row_by_row_loader_refuses_them(
    monkeypatch, ch_conn, ch, tmp_path, world
):
    path = tmp_path / "properties.jsonl"
    path.write_text("".join(
        f'{{"event": "e", "distinct_id": "d", "timestamp": "2026-01-10T10:{n:02d}:00Z", "properties": {written}}}\n'
        for n, (written, _) in enumerate(PROPERTIES_ROWS)
    ))  # fmt: skip
    expected = [outcome for _, outcome in PROPERTIES_ROWS]
    for report, stored in load_with_both_loaders(monkeypatch, ch_conn, ch, world, tmp_path, path, "timestamp"):
        times, reasons = {row[0] for row in stored}, {r["row"]: r["reason"] for r in report.rejections}
        assert [
            "stored" if micros(f"2026-01-10T10:{n:02d}:00+00:00") in times else reasons.get(n + 1)
            for n in range(len(PROPERTIES_ROWS))
        ] == expected


def event_property_types_of_both_loads(monkeypatch, ch_conn, world, tmp_path, path) -> list[list[tuple]]:
    """Load ``path`` into chdb (column at a time) and into SQLite (row by row): each load's event property
    definitions, (name, type) by name."""
    used = spy_on_columnar_store(monkeypatch)
    load_file(ch_conn, world.project_id, path, now=NOW)
    assert used, "the chdb load did not go column at a time"
    sqlite_conn, project = fresh(tmp_path, "reference.db")
    load_file(sqlite_conn, project, path, now=NOW)
    sql = "SELECT name, property_type FROM property_definitions WHERE project_id = ? AND type = 1 ORDER BY name"
    return [
        [tuple(row) for row in conn.execute(sql, (project_id,))]
        for conn, project_id in ((ch_conn, world.project_id), (sqlite_conn, project["id"]))
    ]


def test_a_property_first_seen_as_an_integer_beyond_64_bits_is_numeric_as_in_the_row_by_row_load(
    monkeypatch, ch_conn, ch, tmp_path, world
):
    """ClickHouse gives such an integer, like text of digits, as digits in quotes; the definitions tell them apart."""
    path = tmp_path / "big.jsonl"
    big, digits = 10**30, "1" * 25
    path.write_text(
        json.dumps({"event": "e", "distinct_id": "a", "timestamp": "2026-01-10T10:00:00Z",
                    "properties": {"big": big, "digits": digits, "small": 7}}) + "\n"
        + json.dumps({"event": "e", "distinct_id": "a", "timestamp": "2026-01-10T10:01:00Z",
                      "properties": {"big": "text", "digits": 5, "small": 8}}) + "\n"
    )  # fmt: skip
    expected = [("big", "Numeric"), ("digits", "String"), ("small", "Numeric")]
    assert event_property_types_of_both_loads(monkeypatch, ch_conn, world, tmp_path, path) == [expected, expected]


def test_a_repeated_event_defines_no_property_in_either_load(monkeypatch, ch_conn, ch, tmp_path, world):
    """The second line repeats the first one's uuid, so it is not stored: its text value of k defines nothing,
    and k is defined by the stored event after it, as capture defines it."""
    given = "01890000-0000-7000-8000-0000000000b1"
    path = tmp_path / "repeat.jsonl"
    path.write_text("".join(json.dumps({"event": "e", "distinct_id": "a", "timestamp": f"2026-01-10T10:0{n}:00Z",
                                        "properties": properties, **({"uuid": given} if n < 2 else {})}) + "\n"
                            for n, properties in enumerate([{"a": 1}, {"k": "text"}, {"k": 5}])))  # fmt: skip
    expected = [("a", "Numeric"), ("k", "Numeric")]
    assert event_property_types_of_both_loads(monkeypatch, ch_conn, world, tmp_path, path) == [expected, expected]


# Properties whose objects name a key twice, at each depth ClickHouse checks and beyond it (left to Python), and
# what a calculation then reads on the chdb engine: the last value, the one Python keeps and the row-by-row load
# stores alone (ClickHouse's and SQLite's JSON functions would read the first).
DEEP = "[" * 6
REPEATED_NAMES = [
    ('{"plan": "free", "plan": "paid"}', "JSONExtractString(properties, 'plan')", "paid"),
    ('{"$groups": {"company": "acme", "company": "initech"}}', "group_0", "initech"),
    ('{"obj": {"k": 1, "k": 2}}', "JSONExtractRaw(properties, 'obj')", '{"k":2}'),
    ('{"list": [1, {"k": 1, "k": 2}]}', "JSONExtractRaw(properties, 'list')", '[1,{"k":2}]'),
    ('{"deep": ' + DEEP + '{"k": 1, "k": 2}' + "]" * 6 + "}", "JSONExtractRaw(properties, 'deep')",
     DEEP + '{"k":2}' + "]" * 6),
]  # fmt: skip


def load_line_into_chdb(monkeypatch, ch_conn, ch, world, tmp_path, properties: str, read: str) -> tuple[bool, str]:
    """Load a file of two events, the second with ``properties`` (JSON text); whether the load went column at a
    time, and ``read`` (a ClickHouse expression) of the second event as stored."""
    path = tmp_path / "names.jsonl"
    path.write_text(
        '{"event": "e", "distinct_id": "a", "timestamp": "2026-01-11T10:00:00Z", "properties": {"plan": "x"}}\n'
        f'{{"event": "e", "distinct_id": "a", "timestamp": "2026-01-11T10:01:00Z", "properties": {properties}}}\n'
    )
    used = spy_on_columnar_store(monkeypatch)
    report = load_file(ch_conn, world.project_id, path, now=NOW)
    assert report.loaded == 2
    (value,) = ch.query_rows(
        f"SELECT {read} FROM `{ch.database}`.events WHERE timestamp = {{t:Int64}}",
        {"t": micros("2026-01-11T10:01:00+00:00")},
    )[0]
    return bool(used), value


@pytest.mark.parametrize(("properties", "read", "expected"), REPEATED_NAMES)
def test_properties_naming_a_key_twice_are_stored_as_python_reads_them(
    monkeypatch, ch_conn, ch, tmp_path, world, properties, read, expected
):
    if read == "group_0":
        load_file(ch_conn, world.project_id, write_jsonl(tmp_path), now=NOW)  # company: group type 0
    column_at_a_time, value = load_line_into_chdb(monkeypatch, ch_conn, ch, world, tmp_path, properties, read)
    assert (column_at_a_time, value) == (False, expected)


def test_the_same_name_in_different_objects_loads_column_at_a_time(monkeypatch, ch_conn, ch, tmp_path, world):
    properties = (
        '{"a": {"k": 1}, "b": {"k": 2}, "list": [{"k": 1}, {"k": 2}], "deep": ' + DEEP + '{"k": 1}, {"k": 2}'
        + "]" * 6 + "}"
    )  # fmt: skip
    column_at_a_time, value = load_line_into_chdb(
        monkeypatch, ch_conn, ch, world, tmp_path, properties, "JSONExtractRaw(properties, 'b')"
    )
    assert (column_at_a_time, value) == (True, '{"k":2}')
