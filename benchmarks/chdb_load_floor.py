"""The least work a chdb bulk load of a file can do, step by step, in CPU seconds: how fast any load could be here.

    python benchmarks/chdb_load_floor.py [--size 5000000] [--format jsonl|parquet]
                                         [--cache-dir /tmp/bulk-load-bench]

``chdb_load_bench.py`` times ``load-events`` end to end. This script times, on the same file, only the steps no
bulk load into the chdb engine can skip, each alone in this process:

1. ClickHouse reads the file (every line parsed, the properties kept as text);
2. it splits each event's properties into names and raw values once (the stored property columns, ``$groups``
   and the person flags all need them);
3. it writes every event once into a table laid out as ``events`` (its sorting key, the properties as text);
4. SQLite stores one person and one distinct id for each distinct id of the file, with the statements and
   indexes the persons' tables have (``executemany``, one transaction).

Steps 2 and 3 include a read of the file, taken off when they are added up. The sum, spread over every core with
nothing idle, is the floor of the load's wall time; the events/s it allows is the ceiling of any design that
reads the file once, parses the properties once and writes each event and each person once.

Then it times the one statement a single-pass load would run at the least, into the real ``events`` table (its
``day`` and ``session_id``, the stored property columns): steps 1 to 3 together, plus the time read as the load
reads it and the uuid made from the content, the stored columns computed from the one split. No checks, no
groups, no definitions, no person rules; person ids a hash of the distinct id. With step 4 added, that is what
the fewest rules the load keeps cost on this machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bulk_load_bench import events_file

from local_backend.store.engine.choice import open_database
from local_backend.store.engine.clickhouse.client import ChdbClient
from local_backend.store.engine.clickhouse.loader.staging import stored_value
from local_backend.store.engine.clickhouse.loader.times import local_micros, stripped
from local_backend.store.engine.clickhouse.schema import create_tables
from local_backend.store.engine.clickhouse.stored_columns import stored_columns
from local_backend.store.migrations import migrate
from local_backend.store.person_rules import person_uuid
from local_backend.store.projects import create_project

TARGET = 200_000
_COLUMNS = ", ".join(f"{name} Nullable(String)" for name in ("event", "distinct_id", "timestamp", "properties"))


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed(step: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU seconds of ``step`` (chdb runs its threads in this process, so their time counts)."""
    cpu, started = _cpu(), time.perf_counter()
    step()
    return time.perf_counter() - started, _cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=5_000_000)
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "bulk-load-bench")
    parser.add_argument("--format", choices=["jsonl", "parquet"], default="jsonl")
    args = parser.parse_args()
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    from chdb import session

    path = events_file(args.cache_dir, args.size, args.format)
    source = f"file('{path}', 'JSONEachRow', '{_COLUMNS}')" if args.format == "jsonl" else f"file('{path}', 'Parquet')"
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="chdb-load-floor-") as tmp:
        chdb = session.Session(str(Path(tmp) / "chdb"))
        chdb.query(
            "CREATE TABLE events (project_id Int64, event String, distinct_id String, person_id Int64,"
            " timestamp String, properties String) ENGINE = MergeTree"
            " ORDER BY (project_id, event, person_id, timestamp)"
        )
        steps = {
            "read the file": f"SELECT count(), sum(length(properties)) FROM {source}",
            "read, split the properties": (
                f"SELECT sum(length(JSONExtractKeysAndValuesRaw(ifNull(properties, '{{}}')))) FROM {source}"
            ),
            "read, write each event once": (
                "INSERT INTO events SELECT 1, ifNull(event, ''), ifNull(distinct_id, ''), cityHash64(distinct_id),"
                f" ifNull(timestamp, ''), ifNull(properties, '') FROM {source} SETTINGS max_insert_threads = {cores}"
            ),
        }
        measured = {name: timed(lambda sql=sql: chdb.query(sql)) for name, sql in steps.items()}
        distinct_ids = chdb.query("SELECT DISTINCT distinct_id FROM events", "TabSeparatedRaw").bytes().decode()
        chdb.close()
        one_statement = _one_statement(Path(tmp) / "events", source, cores)
        measured["persons into SQLite"] = _persons(Path(tmp) / "persons.db", distinct_ids.splitlines())
    read = measured["read the file"][1]
    persons = len(distinct_ids.splitlines())
    parts = [
        ("read the file", read),
        ("split the properties (beyond reading)", measured["read, split the properties"][1] - read),
        ("write each event once (beyond reading)", measured["read, write each event once"][1] - read),
        (f"{persons:,} persons and distinct ids into SQLite", measured["persons into SQLite"][1]),
    ]
    print(f"the least work of a chdb bulk load: {args.size:,} events ({path.name}), {cores} cores")
    print(f"{'step':<52} {'CPU s':>7} {'µs/ev':>7}")
    for name, seconds in parts:
        print(f"{name:<52} {seconds:>7.1f} {seconds / args.size * 1e6:>7.2f}")
    total = sum(seconds for _, seconds in parts)
    wall = total / cores
    print(f"{'sum':<52} {total:>7.1f} {total / args.size * 1e6:>7.2f}")
    print(f"floor: {wall:.1f} s wall on {cores} cores with none idle -> at most {args.size / wall:,.0f} events/s"
          f" (target {TARGET:,}: {args.size / TARGET:.1f} s)")  # fmt: skip
    for name, (wall_seconds, cpu_seconds) in measured.items():
        print(f"    {name}: {wall_seconds:.1f} s wall, {cpu_seconds:.1f} s CPU")
    statement_wall, statement_cpu = one_statement
    least = statement_cpu + measured["persons into SQLite"][1]
    print(f"one statement into events (read, split once, time, uuid, stored columns, written once):"
          f" {statement_wall:.1f} s wall, {statement_cpu:.1f} s CPU")  # fmt: skip
    print(f"  with the persons: {least:.1f} s CPU -> at most {args.size / (least / cores):,.0f} events/s"
          f" on {cores} cores (the target of {TARGET:,} allows {args.size / TARGET * cores:.1f} s of CPU)")  # fmt: skip


def _one_statement(folder: Path, source: str, cores: int) -> tuple[float, float]:
    """Wall and CPU seconds of the least single statement from ``source`` into ``events`` (module docstring)."""
    client = ChdbClient.open(str(folder))
    try:
        create_tables(client)
        stored = [column for column in sorted(stored_columns(client)) if column != "day"]
        names = "".join(f", {column}" for column in stored)
        values = "".join(f", {stored_value(column)}" for column in stored)
        sql = (
            f"INSERT INTO `{client.database}`.events (project_id, uuid, event, distinct_id, person_id, timestamp,"
            f" created_at, properties, elements_chain{names})"
            " SELECT 1, concat(leftPad(lower(hex(bitAnd(toUInt64(intDiv(t, 1000)), 281474976710655))), 12, '0'),"
            " lower(hex(cityHash64(event, did, t, properties))), lower(hex(cityHash64(t, did, event)))),"
            f" event, did, toInt64(cityHash64(did) % 1000000000), t, 0, properties, ''{values}"
            " FROM (SELECT ifNull(event, '') AS event, ifNull(distinct_id, '') AS did,"
            " ifNull(properties, '{}') AS properties, JSONExtractKeysAndValuesRaw(properties) AS kv,"
            " arrayMap(x -> x.1, kv) AS keys, arrayMap(x -> x.2, kv) AS raws, ifNull(timestamp, '') AS stamp,"
            f" ifNull({local_micros(stripped('stamp'))}, 0) AS t FROM {source})"
            f" SETTINGS max_insert_threads = {cores}, short_circuit_function_evaluation = 'force_enable',"
            " insert_allow_materialized_columns = 1"
        )
        return timed(lambda: client.command(sql))
    finally:
        client.close()


def _persons(path: Path, distinct_ids: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of storing a bare person and a distinct id for each of ``distinct_ids``."""
    migrate(path)
    conn = open_database(path)
    project = create_project(conn, name="floor", timezone="UTC", now="2026-01-01T00:00:00Z")["id"]
    conn.execute("PRAGMA cache_size = -1048576")
    persons = [(n, project, person_uuid(project, d), "{}", 0, 0) for n, d in enumerate(distinct_ids, start=1)]
    mappings = [(project, d, n) for n, d in enumerate(distinct_ids, start=1)]

    def store() -> None:
        conn.execute("BEGIN")
        conn.executemany(
            "INSERT OR IGNORE INTO persons (id, project_id, uuid, properties, is_identified, created_at)"
            " VALUES (?,?,?,?,?,?)",
            persons,
        )
        conn.executemany(
            "INSERT OR REPLACE INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES (?, ?, ?)",
            mappings,
        )
        conn.execute("COMMIT")

    try:
        return timed(store)
    finally:
        conn.close()


if __name__ == "__main__":
    main()
