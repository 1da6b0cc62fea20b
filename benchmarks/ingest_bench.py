"""Bulk load events/s from a generated file, and demo generation events/s, against a bare executemany.

    python benchmarks/ingest_bench.py [--events 1000000] [--format csv|jsonl|parquet] [--demo-events 200000]

1. Writes ``--events`` demo events to a file (no uuids, properties as JSON: the shape of a typical export).
2. Loads it with ``load_file`` into a fresh project without plugins (what ``load-events`` does), timing the
   whole load and, inside it, the time spent in ``ingest_events``; the rest is reading and checking rows.
3. Reference: the same stored rows copied by a bare ``executemany`` into a fresh database with the same
   schema and indexes, in the same batch size: the cost of SQLite alone.
4. The demo: the generator alone, then ``seed_demo`` end to end (ingestion plus the demo's plugins).

Run it on a quiet machine; numbers from a shared machine are indicative only.
"""

from __future__ import annotations

import argparse
import csv
import json
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from local_backend.clock import FixedClock
from local_backend.demo import seed_demo
from local_backend.demo_data import demo_events
from local_backend.loading import load_file, loader
from local_backend.store.db import connect
from local_backend.store.migrations import migrate
from local_backend.store.projects import create_project

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
BATCH = 10_000
TARGET = 150_000  # events/s for bulk load on the reference 2-core machine
COLUMNS = ("uuid, project_id, event, distinct_id, person_id, timestamp, properties, elements_chain,"
           " group_0, group_1, group_2, group_3, group_4, created_at")  # fmt: skip


def write_file(path: Path, events: int, kind: str) -> None:
    stream = demo_events(events=events, seed=1, end=NOW)
    if kind == "csv":
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["event", "distinct_id", "timestamp", "properties"])
            for e in stream:
                writer.writerow([e["event"], e["distinct_id"], e["timestamp"], json.dumps(e["properties"])])
    elif kind == "jsonl":
        with path.open("w", encoding="utf-8") as handle:
            for e in stream:
                e.pop("uuid")
                handle.write(json.dumps(e) + "\n")
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = pa.schema([(name, pa.string()) for name in ("event", "distinct_id", "timestamp", "properties")])
        with pq.ParquetWriter(path, schema) as writer:
            rows: list[dict[str, Any]] = []
            for e in stream:
                rows.append({"event": e["event"], "distinct_id": e["distinct_id"], "timestamp": e["timestamp"],
                             "properties": json.dumps(e["properties"])})  # fmt: skip
                if len(rows) == 100_000:
                    writer.write_table(pa.Table.from_pylist(rows, schema))
                    rows = []
            if rows:
                writer.write_table(pa.Table.from_pylist(rows, schema))


def fresh_project(path: Path) -> tuple[Any, dict[str, Any]]:
    migrate(path)
    conn = connect(path)
    return conn, create_project(conn, name="bench", timezone="UTC", now="2026-01-15T12:00:00Z")


def bulk_load(workdir: Path, source: Path) -> tuple[int, float, float, Path]:
    conn, project = fresh_project(workdir / "loaded.db")
    spent = [0.0]
    real: Callable[..., Any] = loader._ingest

    def timed_ingest(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - started

    loader._ingest = timed_ingest  # type: ignore[assignment]
    try:
        report = load_file(conn, project, source, now=NOW, batch_size=BATCH)
    finally:
        loader._ingest = real  # type: ignore[assignment]
    conn.close()
    return report.loaded, report.seconds, spent[0], workdir / "loaded.db"


def bare_executemany(workdir: Path, loaded: Path) -> tuple[int, float]:
    """The stored rows again, straight into an identical events table: the floor any ingestion pays."""
    source = connect(loaded)
    target, _ = fresh_project(workdir / "reference.db")
    cursor = source.execute(f"SELECT {COLUMNS} FROM events ORDER BY id")
    copied, spent = 0, 0.0
    while rows := cursor.fetchmany(BATCH):
        started = time.perf_counter()
        target.execute("BEGIN IMMEDIATE")
        target.executemany(f"INSERT INTO events ({COLUMNS}) VALUES ({', '.join('?' * 14)})", rows)
        target.execute("COMMIT")
        spent += time.perf_counter() - started
        copied += len(rows)
    source.close()
    target.close()
    return copied, spent


def demo_rates(workdir: Path, events: int) -> tuple[float, float, int]:
    started = time.perf_counter()
    for _ in demo_events(events=events, seed=2, end=NOW):
        pass
    generated = time.perf_counter() - started
    path = workdir / "demo.db"
    migrate(path)
    conn = connect(path)
    started = time.perf_counter()
    access = seed_demo(conn, FixedClock(NOW), events=events, seed=2)
    seeded = time.perf_counter() - started
    conn.close()
    return events / generated, events / seeded, access.events_loaded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--format", choices=["csv", "jsonl", "parquet"], default="csv")
    parser.add_argument("--demo-events", type=int, default=200_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ingest-bench-") as tmp:
        workdir = Path(tmp)
        source = workdir / f"events.{args.format}"
        started = time.perf_counter()
        write_file(source, args.events, args.format)
        print(f"wrote {args.events:,} events to {source.name} ({source.stat().st_size / 1e6:.0f} MB)"
              f" in {time.perf_counter() - started:.1f} s")  # fmt: skip
        loaded, total, in_ingest, loaded_db = bulk_load(workdir, source)
        copied, bare = bare_executemany(workdir, loaded_db)
        gen_rate, seed_rate, stored = demo_rates(workdir, args.demo_events)
    rate = args.events / total
    print(f"\nbulk load ({args.format}, batches of {BATCH:,}, no plugins): {loaded:,} events stored")
    print(f"  end to end            {rate:>10,.0f} ev/s   {total:6.1f} s   target {TARGET:,} ev/s:"
          f" {'met' if rate >= TARGET else 'missed'}")  # fmt: skip
    print(f"  in ingest_events      {args.events / in_ingest:>10,.0f} ev/s   {in_ingest:6.1f} s"
          f"   ({in_ingest / total:.0%} of the load)")  # fmt: skip
    print(f"  reading + checking    {args.events / (total - in_ingest):>10,.0f} ev/s   {total - in_ingest:6.1f} s")
    print(f"  bare executemany      {copied / bare:>10,.0f} ev/s   {bare:6.1f} s   (reference)")
    print(f"  ratio bulk load / bare executemany: {rate / (copied / bare):.2f}"
          f"  (ingest_events alone: {(args.events / in_ingest) / (copied / bare):.2f})")  # fmt: skip
    print(f"\ndemo dataset ({args.demo_events:,} events)")
    print(f"  generator alone       {gen_rate:>10,.0f} ev/s")
    print(f"  seed_demo end to end  {seed_rate:>10,.0f} ev/s   ({stored:,} stored; ingestion + the demo's plugins)")
    print(f"  ratio seed_demo / bare executemany: {seed_rate / (copied / bare):.2f}")


if __name__ == "__main__":
    main()
