"""Trend queries on the demo dataset, timed against DuckDB on the same rows.

    python benchmarks/trends_bench.py [--sizes 1000000,5000000] [--dir /tmp/trends_bench] [--runs 5]

For each size, builds (once; reused when the file exists) the demo dataset's events for
``--events N --seed 7 --now 2026-01-15T12:00:00Z`` (:func:`local_backend.demo_data.demo_events`), written
straight into the events table with persons joined as ``$identify`` joins them, which takes minutes where
the full ingestion path (``python -m local_backend demo``, plugins, definitions) takes about an hour for 5M on a
busy machine (``--cli`` uses it anyway). Then it times, after one warm-up, the median of ``--runs`` runs of:

  (a) daily total of ``$pageview`` over 30 days         targets at 5M: < 0.4 s
  (b) daily unique users of ``$pageview`` over 30 days                   < 1 s
  (c) ``$pageview`` where ``$browser`` = Chrome, broken down by ``$os``, top 10   < 1.5 s
  (d) weekly active users of ``$pageview``, 30 daily points

through :func:`local_backend.queries.trends.compute_trends` (the endpoint's engine, SQL plus shaping), and the
same numbers in DuckDB (in memory, loaded with the same rows; loading is not timed). It prints both times,
the ratio and the table throughput (events in the database / our time), and checks both engines agree.
The machine is shared: the load average is printed with the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from local_backend.queries.filter_parsing import parse_filter
from local_backend.queries.trends import TrendsFilter, compute_trends
from local_backend.store.engine.choice import open_database
from local_backend.store.event_rows import to_micros
from local_backend.store.projects import get_project

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
DAY = 86_400_000_000
SEED = 7
FILTERS: dict[str, dict[str, Any]] = {
    "a total": {"events": [{"id": "$pageview"}], "date_from": "-30d"},
    "b dau": {"events": [{"id": "$pageview", "math": "dau"}], "date_from": "-30d"},
    "c filter+breakdown": {
        "events": [{"id": "$pageview"}],
        "date_from": "-30d",
        "properties": [{"key": "$browser", "value": "Chrome"}],
        "breakdown": "$os",
        "breakdown_limit": 10,
    },
    "d weekly active": {"events": [{"id": "$pageview", "math": "weekly_active"}], "date_from": "-30d"},
}
TARGETS = {"a total": 0.4, "b dau": 1.0, "c filter+breakdown": 1.5}


def build_fast(path: Path, events: int) -> None:
    """The demo events, stored directly: persons by distinct id, joined by ``$identify``; no plugins."""
    from local_backend.clock import parse_instant
    from local_backend.demo_data import demo_events
    from local_backend.store.db import transaction
    from local_backend.store.migrations import migrate
    from local_backend.store.projects import create_project

    migrate(path)
    conn = open_database(path)
    project = create_project(conn, name="Demo", timezone="UTC", now="2026-01-15T12:00:00Z", is_demo=True)
    persons: dict[str, int] = {}
    batch: list[tuple[Any, ...]] = []
    insert = (
        "INSERT INTO events (uuid, project_id, event, distinct_id, person_id, timestamp, properties, group_0,"
        " group_1, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
    for event in demo_events(events=events, seed=SEED, end=NOW):
        properties = dict(event.get("properties") or {})
        properties.pop("$ip", None)
        distinct_id = str(event["distinct_id"])
        anonymous = properties.get("$anon_distinct_id")
        if event["event"] == "$identify" and anonymous in persons and distinct_id not in persons:
            persons[distinct_id] = persons[anonymous]
        person_id = persons.setdefault(distinct_id, len(persons) + 1)
        groups = properties.get("$groups") or {}
        at = to_micros(parse_instant(event["timestamp"]))
        batch.append(
            (
                event["uuid"],
                project["id"],
                event["event"],
                distinct_id,
                person_id,
                at,
                json.dumps(properties),
                groups.get("company"),
                groups.get("team"),
                at,
            )
        )
        if len(batch) >= 50_000:
            with transaction(conn):
                conn.executemany(insert, batch)
            batch = []
    with transaction(conn):
        conn.executemany(insert, batch)
        conn.executemany(
            "INSERT INTO persons (id, project_id, uuid, created_at) VALUES (?, ?, ?, 0)",
            [(person_id, project["id"], f"person-{person_id}") for person_id in sorted(set(persons.values()))],
        )
        conn.executemany(
            "INSERT INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES (?, ?, ?)",
            [(project["id"], distinct_id, person_id) for distinct_id, person_id in persons.items()],
        )
    conn.execute("ANALYZE")
    conn.close()


def build(path: Path, events: int, *, cli: bool) -> None:
    if path.exists():
        return
    started = time.perf_counter()
    if not cli:
        build_fast(path, events)
        print(f"built {path} ({events:,} events) in {time.perf_counter() - started:.0f} s", flush=True)
        return
    subprocess.run(
        [sys.executable, "-m", "local_backend", "demo", "--db", str(path), "--events", str(events)]
        + ["--seed", str(SEED), "--now", NOW.isoformat().replace("+00:00", "Z")],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    print(f"built {path} ({events:,} events) in {time.perf_counter() - started:.0f} s", flush=True)


def median_time(run: Callable[[], Any], runs: int) -> tuple[float, Any]:
    result = run()  # warm-up
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def ours(conn: Any, project: dict[str, Any], name: str) -> list[tuple[Any, list[float]]]:
    filter = parse_filter(TrendsFilter, FILTERS[name])
    series = compute_trends(conn, project, filter, NOW).series
    return sorted((s.get("breakdown_value"), [float(v) for v in s["data"]]) for s in series)


def load_duckdb(conn: Any, project_id: int) -> Any:
    import duckdb
    import pyarrow as pa

    cursor = conn.execute(
        "SELECT event, person_id, timestamp, properties FROM events WHERE project_id = ?", (project_id,)
    )
    duck = duckdb.connect()
    duck.execute("CREATE TABLE ev (event VARCHAR, person_id BIGINT, ts BIGINT, properties JSON)")
    while batch := cursor.fetchmany(500_000):
        columns = list(zip(*batch, strict=True))
        table = pa.table({"event": columns[0], "person_id": columns[1], "ts": columns[2], "properties": columns[3]})
        duck.register("batch", table)
        duck.execute("INSERT INTO ev SELECT event, person_id, ts, properties::JSON FROM batch")
        duck.unregister("batch")
    return duck


def duck_queries(low: int, high: int) -> dict[str, str]:
    first, last = low // DAY, high // DAY
    base = f"FROM ev WHERE event = '$pageview' AND ts >= {low} AND ts <= {high}"
    chrome = f"{base} AND json_extract_string(properties, '$.\"$browser\"') = 'Chrome'"
    value = "coalesce(nullif(json_extract_string(properties, '$.\"$os\"'), ''), '$$_posthog_breakdown_null_$$')"
    return {
        "a total": f"SELECT NULL, ts // {DAY} AS d, count(*) {base} GROUP BY d",
        "b dau": f"SELECT NULL, ts // {DAY} AS d, count(DISTINCT person_id) {base} GROUP BY d",
        "c filter+breakdown": f"""
            WITH v AS (SELECT {value} AS v, ts {chrome}),
            top AS (SELECT v FROM v GROUP BY v ORDER BY count(*) DESC, v DESC LIMIT 10),
            n AS (SELECT count(DISTINCT v) AS n FROM v)
            SELECT CASE WHEN v IN (SELECT v FROM top) THEN v ELSE '$$_posthog_breakdown_other_$$' END AS b,
                   ts // {DAY} AS d, count(*) FROM v GROUP BY b, d""",
        "d weekly active": f"""
            SELECT NULL, days.d, count(DISTINCT person_id)
            FROM range({first}, {last + 1}) AS days(d) JOIN ev
              ON ev.ts >= (days.d - 6) * {DAY} AND ev.ts < (days.d + 1) * {DAY} AND ev.ts <= {high}
            WHERE ev.event = '$pageview' GROUP BY days.d""",
    }


def duck_series(duck: Any, sql: str, first_day: int, days: int) -> list[tuple[Any, list[float]]]:
    by_value: dict[Any, list[float]] = {}
    for value, day, number in duck.execute(sql).fetchall():
        by_value.setdefault(value, [0.0] * days)[int(day) - first_day] = float(number)
    return sorted(by_value.items(), key=lambda item: (item[0] is not None, item[0]))


def bench(size: int, directory: Path, runs: int, cli: bool) -> None:
    path = directory / f"demo_{size}{'_cli' if cli else ''}.db"
    build(path, size, cli=cli)
    conn = open_database(path)
    project_id = conn.execute("SELECT id FROM projects WHERE is_demo = 1 ORDER BY id LIMIT 1").fetchone()[0]
    project = get_project(conn, project_id)
    assert project is not None
    total = conn.execute("SELECT count(*) FROM events").fetchone()[0]
    started = time.perf_counter()
    duck = load_duckdb(conn, project_id)
    print(f"\n{total:,} events stored ({size:,} generated); DuckDB loaded in {time.perf_counter() - started:.1f} s")
    low = to_micros(datetime(2025, 12, 16, tzinfo=UTC))
    high = to_micros(NOW.replace(hour=0) + timedelta(days=1)) - 1
    queries = duck_queries(low, high)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'query':<20} {'ours s':>8} {'duckdb s':>9} {'ratio':>6} {'M ev/s':>7}  5M target  same numbers")
    for name in FILTERS:
        mine, our_result = median_time(lambda name=name: ours(conn, project, name), runs)
        theirs, duck_result = median_time(
            lambda name=name: duck_series(duck, queries[name], low // DAY, (high // DAY) - (low // DAY) + 1), runs
        )
        target = TARGETS.get(name) if size >= 5_000_000 else None
        verdict = "" if target is None else ("ok" if mine < target else "MISSED")
        same = our_result == duck_result
        print(
            f"{name:<20} {mine:8.3f} {theirs:9.3f} {mine / theirs:6.1f} {total / mine / 1e6:7.1f}"
            f"  {verdict:9}  {'yes' if same else 'NO'}",
            flush=True,
        )
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000000,5000000")
    parser.add_argument("--dir", default="/tmp/trends_bench")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cli", action="store_true", help="build through `python -m local_backend demo`")
    args = parser.parse_args()
    directory = Path(args.dir)
    directory.mkdir(parents=True, exist_ok=True)
    for size in (int(text) for text in args.sizes.split(",")):
        bench(size, directory, args.runs, args.cli)


if __name__ == "__main__":
    main()
