"""Trends on a custom property with and without materializing it, timed against DuckDB on the same rows.

    python benchmarks/materialize_bench.py [--sizes 1000000] [--dir /tmp/materialize_bench] [--runs 5]

For each size it builds (once; reused when the file exists) the demo events as ``trends_bench.py`` does, then
times, after one warm-up, the median of ``--runs`` runs of

  (e) ``$pageview`` where ``$browser`` = Chrome, broken down by ``utm_source`` (a custom property), 30 days
  (f) ``$pageview`` where ``utm_source`` = google, daily total, 30 days

through :func:`local_backend.queries.trends.compute_trends` reading the JSON; then materializes
``utm_source`` (timing the column, trigger and index, and the batched backfill), times both again reading the
column, checks the answers are the same both ways and the same as DuckDB's (in memory, loaded with the same
rows), and times inserting 50,000 events with and without the column's trigger. On exit the column is dropped
so that the file can be reused.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.trends_bench import DAY, NOW, build, duck_series, load_duckdb, median_time
from local_backend.queries.filter_parsing import parse_filter
from local_backend.queries.trends import TrendsFilter, compute_trends
from local_backend.store.db import transaction
from local_backend.store.engine.choice import open_database
from local_backend.store.event_rows import to_micros
from local_backend.store.materialized import backfill, drop_materialized, materialize
from local_backend.store.migrations import migrate
from local_backend.store.projects import get_project

KEY = "utm_source"
FILTERS: dict[str, dict[str, Any]] = {
    "e $browser+breakdown": {
        "events": [{"id": "$pageview"}],
        "date_from": "-30d",
        "properties": [{"key": "$browser", "value": "Chrome"}],
        "breakdown": KEY,
        "breakdown_limit": 10,
    },
    "f filter custom": {
        "events": [{"id": "$pageview"}],
        "date_from": "-30d",
        "properties": [{"key": KEY, "value": "google"}],
    },
}


def ours(conn: sqlite3.Connection, project: dict[str, Any], name: str) -> list[tuple[Any, list[float]]]:
    filter = parse_filter(TrendsFilter, FILTERS[name])
    series = compute_trends(conn, project, filter, NOW).series
    return sorted(
        ((s.get("breakdown_value"), [float(v) for v in s["data"]]) for s in series),
        key=lambda item: (item[0] is not None, str(item[0])),
    )


def duck_queries(low: int, high: int) -> dict[str, str]:
    base = f"FROM ev WHERE event = '$pageview' AND ts >= {low} AND ts <= {high}"
    chrome = f"{base} AND json_extract_string(properties, '$.\"$browser\"') = 'Chrome'"
    value = f"coalesce(nullif(json_extract_string(properties, '$.\"{KEY}\"'), ''), '$$_posthog_breakdown_null_$$')"
    return {
        "e $browser+breakdown": f"""
            WITH v AS (SELECT {value} AS v, ts {chrome}),
            top AS (SELECT v FROM v GROUP BY v ORDER BY count(*) DESC, v DESC LIMIT 10)
            SELECT CASE WHEN v IN (SELECT v FROM top) THEN v ELSE '$$_posthog_breakdown_other_$$' END AS b,
                   ts // {DAY} AS d, count(*) FROM v GROUP BY b, d""",
        "f filter custom": f"SELECT NULL, ts // {DAY} AS d, count(*) {base}"
        f" AND json_extract_string(properties, '$.\"{KEY}\"') = 'google' GROUP BY d",
    }


def insert_rate(conn: sqlite3.Connection, project_id: int, rows: int = 50_000) -> float:
    """Events per second for one ``executemany`` of ``rows`` copies of the latest events (rolled back)."""
    sample = conn.execute(
        "SELECT event, properties FROM events WHERE project_id = ? ORDER BY id DESC LIMIT ?", [project_id, rows]
    ).fetchall()
    batch = [
        (f"bench-{i}", project_id, event, "bench", 1, i, properties, i) for i, (event, properties) in enumerate(sample)
    ]
    conn.execute("BEGIN IMMEDIATE")
    started = time.perf_counter()
    conn.executemany(
        "INSERT INTO events (uuid, project_id, event, distinct_id, person_id, timestamp, properties, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        batch,
    )
    elapsed = time.perf_counter() - started
    conn.execute("ROLLBACK")
    return len(batch) / elapsed


def virtual_alternative(conn: sqlite3.Connection, project_id: int) -> tuple[float, float]:
    """The road not taken: a VIRTUAL column and its index, built in one statement (seconds) and the insert
    rate with it; both removed again."""
    value = f"(CASE json_type(properties, '$.\"{KEY}\"') WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'" + (
        f" ELSE json_extract(properties, '$.\"{KEY}\"') END)"
    )
    conn.execute(f"ALTER TABLE events ADD COLUMN bench_virtual GENERATED ALWAYS AS {value} VIRTUAL")
    started = time.perf_counter()
    conn.execute(
        "CREATE INDEX bench_virtual_idx ON events (project_id, event, bench_virtual, timestamp)"
        " WHERE bench_virtual IS NOT NULL"
    )
    built = time.perf_counter() - started
    rate = insert_rate(conn, project_id)
    conn.execute("DROP INDEX bench_virtual_idx")
    conn.execute("ALTER TABLE events DROP COLUMN bench_virtual")
    return built, rate


def bench(size: int, directory: Path, runs: int) -> None:
    path = directory / f"demo_{size}.db"
    build(path, size, cli=False)
    migrate(path)
    conn = open_database(path)
    project_id = conn.execute("SELECT id FROM projects WHERE is_demo = 1 ORDER BY id LIMIT 1").fetchone()[0]
    project = get_project(conn, project_id)
    assert project is not None
    total = conn.execute("SELECT count(*) FROM events").fetchone()[0]
    duck = load_duckdb(conn, project_id)
    low = to_micros(datetime(2025, 12, 16, tzinfo=UTC))
    high = to_micros(NOW.replace(hour=0) + timedelta(days=1)) - 1
    queries = duck_queries(low, high)
    print(f"\n{total:,} events; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    before: dict[str, tuple[float, Any]] = {
        name: median_time(lambda n=name: ours(conn, project, n), runs) for name in FILTERS
    }
    plain_rate = insert_rate(conn, project_id)
    virtual_built, virtual_rate = virtual_alternative(conn, project_id)
    print(
        f"VIRTUAL column + index instead: CREATE INDEX {virtual_built:.2f} s in one statement (capture waits for"
        f" all of it), inserts {virtual_rate:,.0f} ev/s"
    )

    started = time.perf_counter()
    column = materialize(conn, project_id, KEY, now="2026-01-15T12:00:00Z")
    added = time.perf_counter() - started
    started = time.perf_counter()
    batches: list[float] = []
    last = [time.perf_counter()]

    def progress(done: int, all_rows: int) -> None:
        now = time.perf_counter()
        batches.append(now - last[0])
        last[0] = now

    backfill(conn, column, progress=progress)
    filled = time.perf_counter() - started
    print(
        f"materialize {KEY}: column + triggers + index {added:.2f} s, backfill {filled:.1f} s"
        f" ({total / filled / 1e3:.0f}k rows/s; longest batch, i.e. longest wait for capture, {max(batches):.2f} s)"
    )
    trigger_rate = insert_rate(conn, project_id)
    print(
        f"insert the latest 50k events again: {plain_rate:,.0f} ev/s without the column,"
        f" {trigger_rate:,.0f} ev/s with its trigger"
    )
    print(f"{'query':<22} {'JSON s':>8} {'column s':>9} {'duckdb s':>9} {'JSON/duck':>9} {'col/duck':>9}  same")
    try:
        for name in FILTERS:
            json_time, json_result = before[name]
            column_time, column_result = median_time(lambda n=name: ours(conn, project, n), runs)
            duck_time, duck_result = median_time(
                lambda n=name: duck_series(duck, queries[n], low // DAY, (high // DAY) - (low // DAY) + 1), runs
            )
            same = json_result == column_result and sorted(map(str, column_result)) == sorted(map(str, duck_result))
            print(
                f"{name:<22} {json_time:8.3f} {column_time:9.3f} {duck_time:9.3f} {json_time / duck_time:9.1f}"
                f" {column_time / duck_time:9.1f}  {'yes' if same else 'NO'}",
                flush=True,
            )
    finally:
        started = time.perf_counter()
        drop_materialized(conn, project_id, KEY)
        print(f"drop: {time.perf_counter() - started:.1f} s")
        with transaction(conn):
            conn.execute("DELETE FROM property_usage")
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000000")
    parser.add_argument("--dir", default="/tmp/materialize_bench")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    directory = Path(args.dir)
    directory.mkdir(parents=True, exist_ok=True)
    for size in (int(text) for text in args.sizes.split(",")):
        bench(size, directory, args.runs)


if __name__ == "__main__":
    main()
