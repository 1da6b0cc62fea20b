"""Inserting events into a chdb ``events`` table: what its stored columns cost each insert.

    python benchmarks/chdb_insert_bench.py [--events 1000000] [--runs 3] [--cache-dir /tmp/bulk-load-bench]

Capture, the row-by-row load, the demo and ``MATERIALIZE COLUMN`` leave the stored columns (the hot properties'
``v_*`` columns and ``session_id``) to ClickHouse, which computes each from ``properties`` as a row goes in.
This times one ``INSERT ... SELECT`` of the demo events file (``bulk_load_bench.py``'s, made once and kept) into
the ``events`` table as ``create_tables`` makes it, against the same insert into a copy of the table without
those columns (the reference: reading the file and writing the rows alone). CPU seconds are this process's,
ClickHouse's threads included.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from bulk_load_bench import _load_average, events_file

from local_backend.store.engine.clickhouse.client import ChdbClient
from local_backend.store.engine.clickhouse.schema import create_tables
from local_backend.store.engine.clickhouse.stored_columns import stored_columns

COLUMNS = "project_id, uuid, event, distinct_id, person_id, timestamp, created_at, properties, elements_chain"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _insert(client: ChdbClient, table: str, source: Path) -> tuple[float, float]:
    """Wall and CPU seconds of inserting every line of ``source`` into ``table`` (emptied first)."""
    client.command(f"TRUNCATE TABLE {table}")
    cpu, started = _cpu(), time.perf_counter()
    client.command(
        f"INSERT INTO {table} ({COLUMNS}) SELECT 1, generateUUIDv4(), event, distinct_id, 1,"
        " toUnixTimestamp64Micro(parseDateTime64BestEffort(timestamp, 6, 'UTC')), 0, properties, ''"
        f" FROM file('{source}', 'JSONEachRow', 'event String, distinct_id String, timestamp String,"
        " properties String') SETTINGS input_format_json_read_objects_as_strings = 1"
    )
    return time.perf_counter() - started, _cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "bulk-load-bench")
    args = parser.parse_args()
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    source = events_file(args.cache_dir, args.events, "jsonl")
    with tempfile.TemporaryDirectory(prefix="chdb-insert-bench-") as tmp:
        client = ChdbClient.open(str(Path(tmp) / "chdb"))
        create_tables(client)
        db = f"`{client.database}`"
        computed = sorted(stored_columns(client) - {"day"})
        # the reference: the same table without the stored property columns
        client.command(f"CREATE TABLE {db}.bare AS {db}.events")
        for column in computed:
            client.command(f"ALTER TABLE {db}.bare DROP COLUMN {column}")
        print(f"{args.events:,} demo events inserted into a chdb events table; stored columns: {', '.join(computed)}")
        print(f"{'run':>4} {'table':<22} {'wall s':>7} {'CPU s':>7} {'ev/s':>10} {'CPU ratio':>10}  load avg")
        for run in range(1, args.runs + 1):
            bare_wall, bare_cpu = _insert(client, f"{db}.bare", source)
            wall, cpu = _insert(client, f"{db}.events", source)
            for name, (w, c) in (("without stored columns", (bare_wall, bare_cpu)), ("events", (wall, cpu))):
                print(f"{run:>4} {name:<22} {w:>7.2f} {c:>7.2f} {args.events / w:>10,.0f} {c / bare_cpu:>10.2f}"
                      f"  {_load_average()}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
