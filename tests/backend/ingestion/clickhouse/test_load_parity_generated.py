"""Generated files of odd events loaded both ways: chdb column at a time and SQLite row by row leave the same.

The files mix what real exports hold with what they rarely do: every JSON type in every property, `$groups`
keys of every type, identifies and aliases between a handful of ids (some of them ids that never merge),
`$groupidentify` with keys that name no group, `$set`/`$set_once`/`$unset` of every shape, repeated uuids and
lines, offsets and dates without times, and names and ids that are missing, empty or too long. Each file is made
from a seed, so a failure names the file that shows it. What is compared is what an analyst would see: the
report, every stored event (its properties as Python reads them, types included), who shares a person and each
person's properties, the groups, the group types' indexes, and the event and property definitions.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import local_backend.loading.columnar as columnar
from local_backend.loading import load_file

from .test_clickhouse_load import NOW, fresh, spy_on_columnar_store

TEXTS = ["", " ", "a", "Ünïcødé", "tab\there", 'quote"q', "back\\slash", "😀", "\u2028", "null", "1.0", "true",
         "[1]", "{}", "x" * 300, "line\nbreak", "\u00a0"]  # fmt: skip
INTEGERS = [0, 1, -1, 42, 2**53 + 1, 2**63 - 1, 2**63, -(2**63), 2**64, 10**30]
REALS = [1.0, -0.0, 0.5, 1e5, 1e16, 1e-7, 123456789.125, 1.5e300, 2.5e20]
KEYS = ["$browser", "$os", "$device_type", "$pathname", "$geoip_country_code", "$session_id", "plan", "k", "",
        "distinct_id", "$groups", "$set", "$set_once", "$unset", "$group_type", "$group_key", "$group_set",
        "$anon_distinct_id", "alias", "$process_person_profile"]  # fmt: skip
EVENTS = ["$pageview", "$identify", "$create_alias", "$merge_dangerously", "$groupidentify", "signup"]
IDS = ["u1", "u2", "u3", "anon1", "anon2", "anonymous", "null", "42", "x y"]
UUIDS = ["01890000-0000-7000-8000-000000000001", "{01890000-0000-7000-8000-000000000002}", "not-a-uuid"]
STAMPS = ["2026-01-10T11:00:00+01:00", "2026-01-10 10:30:00", "2026-01-10", "2026-01-10T10:00:00.5-05:30",
          "2099-01-01T00:00:00Z", "1969-12-31T23:59:59Z"]  # fmt: skip


def value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(7 if depth < 2 else 5)
    if kind == 0:
        return rng.choice(TEXTS)
    if kind == 1:
        return rng.choice(INTEGERS)
    if kind == 2:
        return rng.choice(REALS)
    if kind == 3:
        return rng.choice([True, False])
    if kind == 4:
        return None
    if kind == 5:
        return [value(rng, depth + 1) for _ in range(rng.randrange(3))]
    return {rng.choice(["a", "b", "$c", ""]): value(rng, depth + 1) for _ in range(rng.randrange(3))}


def properties(rng: random.Random) -> dict[str, Any]:
    made: dict[str, Any] = {}
    for _ in range(rng.randrange(6)):
        key = rng.choice(KEYS)
        if key == "$groups":
            made[key] = {rng.choice(["company", "team", "org", "g4", "g5", "g6"]):
                         rng.choice(["acme", "b", 1, 1.0, True, None, "", [1], {"a": 1}, 2.5e20, 10**30])
                         for _ in range(rng.randrange(3))}  # fmt: skip
        elif key in ("$set", "$set_once", "$group_set"):
            made[key] = (
                {rng.choice(["email", "name", "plan", "n"]): value(rng) for _ in range(rng.randrange(3))}
                if rng.random() < 0.9
                else value(rng)
            )
        elif key == "$unset":
            made[key] = rng.choice([["email"], ["plan", 1], {"name": 1}, "email", None])
        elif key in ("$anon_distinct_id", "alias"):
            made[key] = rng.choice([*IDS, 1, 1.5, None, "", ["a"]])
        elif key == "$group_type":
            made[key] = rng.choice(["company", "team", "", 1, None])
        elif key == "$group_key":
            made[key] = rng.choice(["acme", "b", 7, 7.0, None, "", True, {"id": 1}])
        elif key == "$process_person_profile":
            made[key] = rng.choice([True, False, "false", None])
        else:
            made[key] = value(rng)
    return made


def generated_rows(seed: int, count: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    for n in range(count):
        if rows and rng.random() < 0.05:
            rows.append(rng.choice(rows))  # a line repeated
            continue
        row: dict[str, Any] = {
            "event": rng.choice(EVENTS),
            "distinct_id": rng.choice(IDS),
            "timestamp": f"2026-01-10T10:{n // 60 % 60:02d}:{n % 60:02d}.{n:06d}Z",
            "properties": properties(rng),
        }
        if rng.random() < 0.1:
            row["properties"] = json.dumps(row["properties"])  # properties as JSON text
        if rng.random() < 0.05:
            row["uuid"] = rng.choice(UUIDS)
        if rng.random() < 0.05:
            row["timestamp"] = rng.choice(STAMPS)
        if rng.random() < 0.03:
            row["distinct_id"] = rng.choice([7, "", "   ", None, "a" * 250])
        if rng.random() < 0.02:
            row["event"] = rng.choice(["", None, "x" * 401])
        rows.append(row)
    return rows


def write(tmp_path: Path, rows: list[dict[str, Any]], kind: str) -> Path:
    if kind == "jsonl":
        path = tmp_path / "generated.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
        return path

    def text(cell: Any) -> str | None:
        return None if cell is None else cell if isinstance(cell, str) else json.dumps(cell)

    path = tmp_path / "generated.parquet"
    columns = ("event", "distinct_id", "timestamp", "properties", "uuid")
    pq.write_table(pa.table({c: pa.array([text(row.get(c)) for row in rows], pa.string()) for c in columns}), path)
    return path


def typed(item: Any) -> Any:
    """A JSON value with each scalar's Python type beside it (1 and 1.0 and True differ)."""
    if isinstance(item, dict):
        return {key: typed(inner) for key, inner in item.items()}
    if isinstance(item, list):
        return [typed(inner) for inner in item]
    return [type(item).__name__, item]


def left_behind(conn, events: list[tuple]) -> dict[str, Any]:
    """What a load left, without person ids: events with their person's properties, who shares a person."""
    person_of = dict(conn.execute("SELECT distinct_id, person_id FROM person_distinct_ids").fetchall())
    persons = {row[0]: (json.loads(row[1]), row[2]) for row in conn.execute(
        "SELECT id, properties, is_identified FROM persons")}  # fmt: skip
    together = sorted(sorted(d for d in person_of if person_of[d] == p) for p in set(person_of.values()))
    stored = sorted(
        json.dumps([stamp, name, distinct_id, typed(json.loads(text)), groups,
                    typed(persons.get(person_of.get(distinct_id)))], sort_keys=True, default=repr)
        for stamp, name, distinct_id, text, *groups in events
    )  # fmt: skip

    def table(sql: str) -> list[tuple]:
        return sorted(tuple(row) for row in conn.execute(sql))

    return {
        "events": stored,
        "persons": together,
        "groups": table("SELECT group_type_index, group_key, properties, created_at FROM groups"),
        "group types": table("SELECT group_type, group_type_index FROM group_type_mappings"),
        "event definitions": table("SELECT name, volume, created_at, last_seen_at FROM event_definitions"),
        "property definitions": table(
            "SELECT type, name, group_type_index, property_type, is_numerical FROM property_definitions"
        ),
    }


COLUMNS = "timestamp, event, distinct_id, properties, group_0, group_1, group_2, group_3, group_4"


@pytest.mark.parametrize(
    ("seed", "kind", "batch"),
    [(1, "jsonl", None), (2, "jsonl", 53), (3, "parquet", 53), (4, "jsonl", 97)],
    ids=["seed1-one-batch", "seed2-batches-of-53", "seed3-parquet", "seed4-batches-of-97"],
)
def test_a_generated_file_leaves_the_same_on_both_loaders(
    monkeypatch, ch_conn, ch, tmp_path, world, seed: int, kind: str, batch: int | None
):
    path = write(tmp_path, generated_rows(seed, 600), kind)
    used = spy_on_columnar_store(monkeypatch)
    if batch is not None:
        monkeypatch.setattr(columnar, "COLUMNAR_BATCH", batch)
    ch_report = load_file(ch_conn, world.project_id, path, now=NOW, batch_size=batch or 10_000)
    assert used, "the chdb load did not go column at a time"
    sqlite_conn, project = fresh(tmp_path, "reference.db")
    sqlite_report = load_file(sqlite_conn, project, path, now=NOW)
    assert (ch_report.loaded, ch_report.rejected, ch_report.duplicates, ch_report.rejections) == (
        sqlite_report.loaded, sqlite_report.rejected, sqlite_report.duplicates, sqlite_report.rejections
    )  # fmt: skip
    assert ch_report.loaded > 500 and ch_report.rejected > 0 and ch_report.duplicates > 0
    ch_events = [tuple(row) for row in ch.query_rows(f"SELECT {COLUMNS} FROM `{ch.database}`.events")]
    sqlite_events = [tuple(row) for row in sqlite_conn.execute(f"SELECT {COLUMNS} FROM events")]
    ch_left, sqlite_left = left_behind(ch_conn, ch_events), left_behind(sqlite_conn, sqlite_events)
    for part in sqlite_left:
        assert ch_left[part] == sqlite_left[part], part
