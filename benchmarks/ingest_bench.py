"""Bulk load events/s from a generated file, and demo generation events/s, against a bare executemany.

    python benchmarks/ingest_bench.py [--events 1000000] [--format csv|jsonl|parquet] [--demo-events 200000]
                                      [--order time|visitor]

1. Writes ``--events`` demo events to a file (no uuids, properties as JSON, in time order unless
   ``--order visitor``: the shape of a typical export).
2. Loads it with ``load_file`` into a fresh project without plugins (what ``load-events`` does), timing the
   whole load and, inside it, the time spent in ``ingest_events``; the rest is reading and checking rows.
3. Reference: the same stored rows copied by a bare ``executemany`` into a fresh database with the same
   schema and indexes, in the same batch size: the cost of SQLite alone.
4. The demo: the generator alone, then ``seed_demo`` end to end (ingestion plus the demo's plugins).

Each rate is given by wall-clock time and by this process's CPU time: on a shared machine the CPU figure is
what the code costs, the wall-clock one also counts waiting for the cores.
"""

from __future__ import annotations

import argparse
import csv
import json
import resource
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from local_backend.clock import FixedClock
from local_backend.demo_data import demo_events
from local_backend.demo_data.setup import seed_demo
from local_backend.loading import load_file, loader
from local_backend.store.engine.choice import open_database
from local_backend.store.migrations import migrate
from local_backend.store.projects import create_project

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
BATCH = 10_000
TARGET = 150_000  # events/s for bulk load on the reference 2-core machine
COLUMNS = ("uuid, project_id, event, distinct_id, person_id, timestamp, properties, elements_chain,"
           " group_0, group_1, group_2, group_3, group_4, created_at")  # fmt: skip


def file_rows(events: int, order: str) -> list[list[str]]:
    """The demo stream as export rows: event, distinct_id, timestamp, properties as JSON; no uuid."""
    rows = [
        [e["event"], e["distinct_id"], e["timestamp"], json.dumps(e["properties"])]
        for e in demo_events(events=events, seed=1, end=NOW)
    ]
    if order == "time":  # as an export usually is; "visitor" keeps the generator's visitor-by-visitor order
        rows.sort(key=lambda row: row[2])
    return rows


def write_file(path: Path, rows: list[list[str]], kind: str) -> None:
    header = ["event", "distinct_id", "timestamp", "properties"]
    if kind == "csv":
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(header)
            writer.writerows(rows)
    elif kind == "jsonl":
        with path.open("w", encoding="utf-8") as handle:
            for event, distinct_id, timestamp, properties in rows:
                handle.write(json.dumps({"event": event, "distinct_id": distinct_id, "timestamp": timestamp,
                                         "properties": json.loads(properties)}) + "\n")  # fmt: skip
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = pa.schema([(name, pa.string()) for name in header])
        with pq.ParquetWriter(path, schema) as writer:
            for start in range(0, len(rows), 100_000):
                chunk = rows[start : start + 100_000]
                writer.write_table(pa.table({name: [r[i] for r in chunk] for i, name in enumerate(header)}, schema))


def fresh_project(path: Path) -> tuple[Any, dict[str, Any]]:
    migrate(path)
    conn = open_database(path)
    return conn, create_project(conn, name="bench", timezone="UTC", now="2026-01-15T12:00:00Z")


def _cpu_seconds() -> tuple[float, float]:
    """CPU seconds of this process and of its finished child processes (the load's reader process)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time(), children.ru_utime + children.ru_stime


def bulk_load(workdir: Path, source: Path, parallel: bool) -> tuple[int, float, float, float, float, Path]:
    """Events stored, wall seconds, writer CPU seconds, reader-process CPU seconds, CPU seconds storing."""
    conn, project = fresh_project(workdir / "loaded.db")
    spent = [0.0]
    real: Callable[..., Any] = loader._write

    def timed_ingest(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return real(*args, **kwargs)
        finally:
            spent[0] += time.process_time() - started

    loader._write = timed_ingest  # type: ignore[assignment]
    cpu, child_cpu = _cpu_seconds()
    try:
        report = load_file(conn, project, source, now=NOW, batch_size=BATCH, parallel=parallel)
    finally:
        loader._write = real  # type: ignore[assignment]
    cpu_after, child_after = _cpu_seconds()
    conn.close()
    return report.loaded, report.seconds, cpu_after - cpu, child_after - child_cpu, spent[0], workdir / "loaded.db"


def bare_executemany(workdir: Path, loaded: Path) -> tuple[int, float, float]:
    """The stored rows again, straight into an identical events table: the floor any ingestion pays."""
    source = open_database(loaded)
    target, _ = fresh_project(workdir / "reference.db")
    cursor = source.execute(f"SELECT {COLUMNS} FROM events ORDER BY id")
    copied, wall, cpu = 0, 0.0, 0.0
    while rows := cursor.fetchmany(BATCH):
        started, started_cpu = time.perf_counter(), time.process_time()
        target.execute("BEGIN IMMEDIATE")
        target.executemany(f"INSERT INTO events ({COLUMNS}) VALUES ({', '.join('?' * 14)})", rows)
        target.execute("COMMIT")
        wall += time.perf_counter() - started
        cpu += time.process_time() - started_cpu
        copied += len(rows)
    source.close()
    target.close()
    return copied, wall, cpu


def demo_rates(workdir: Path, events: int) -> tuple[float, float, float, int]:
    """Generator events/s (CPU), seed_demo events/s (wall, CPU), events stored."""
    started = time.process_time()
    for _ in demo_events(events=events, seed=2, end=NOW):
        pass
    generated = time.process_time() - started
    path = workdir / "demo.db"
    migrate(path)
    conn = open_database(path)
    started, started_cpu = time.perf_counter(), time.process_time()
    access = seed_demo(conn, FixedClock(NOW), events=events, seed=2)
    wall, cpu = time.perf_counter() - started, time.process_time() - started_cpu
    conn.close()
    return events / generated, events / wall, events / cpu, access.events_loaded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--format", choices=["csv", "jsonl", "parquet"], default="csv")
    parser.add_argument("--demo-events", type=int, default=200_000)
    parser.add_argument("--order", choices=["time", "visitor"], default="time", help="row order of the file")
    parser.add_argument("--one-process", action="store_true", help="read and store in one process")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ingest-bench-") as tmp:
        workdir = Path(tmp)
        source = workdir / f"events.{args.format}"
        started = time.perf_counter()
        rows = file_rows(args.events, args.order)
        write_file(source, rows, args.format)
        del rows
        print(f"wrote {args.events:,} events to {source.name} ({source.stat().st_size / 1e6:.0f} MB)"
              f" in {time.perf_counter() - started:.1f} s")  # fmt: skip
        loaded, wall, cpu, reader_cpu, storing, loaded_db = bulk_load(workdir, source, not args.one_process)
        copied, bare_wall, bare_cpu = bare_executemany(workdir, loaded_db)
        gen_rate, seed_wall, seed_cpu, stored = demo_rates(workdir, args.demo_events)
    n = args.events
    bare_rate = copied / bare_cpu
    reading = cpu - storing + reader_cpu
    how = "reader process + writer" if reader_cpu else "one process"
    print(f"\nbulk load ({args.format}, {args.order} order, batches of {BATCH:,}, no plugins, {how}):"
          f" {loaded:,} stored")  # fmt: skip
    print(f"  end to end, wall      {n / wall:>10,.0f} ev/s   {wall:6.1f} s   target {TARGET:,} ev/s:"
          f" {'met' if n / wall >= TARGET else 'missed'}")  # fmt: skip
    print(f"  all processes, CPU    {n / (cpu + reader_cpu):>10,.0f} ev/s   {cpu + reader_cpu:6.1f} s"
          f"   (writer process {cpu:.1f} s, reader process {reader_cpu:.1f} s)")  # fmt: skip
    print(f"  storing, CPU          {n / storing:>10,.0f} ev/s   {storing:6.1f} s   (the writer's share)")
    print(f"  reading + checks, CPU {n / reading:>10,.0f} ev/s   {reading:6.1f} s")
    print(f"  bare executemany, CPU {bare_rate:>10,.0f} ev/s   {bare_cpu:6.1f} s   (reference; wall {bare_wall:.1f} s)")
    print(f"  ratio bulk load (wall) / bare executemany: {n / wall / bare_rate:.2f}"
          f"  (storing alone: {n / storing / bare_rate:.2f})")  # fmt: skip
    print(f"\ndemo dataset ({args.demo_events:,} events)")
    print(f"  generator alone, CPU  {gen_rate:>10,.0f} ev/s")
    print(f"  seed_demo, wall       {seed_wall:>10,.0f} ev/s")
    print(f"  seed_demo, CPU        {seed_cpu:>10,.0f} ev/s   ({stored:,} stored; ingestion + the demo's plugins)")
    print(f"  ratio seed_demo / bare executemany: {seed_cpu / bare_rate:.2f}")


if __name__ == "__main__":
    main()
