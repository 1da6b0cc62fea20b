"""Funnel speed: `$pageview -> signed_up -> purchase`, 14-day window, 90 days, against DuckDB on the same rows.

    python benchmarks/funnels_bench.py [--events 1000000 5000000] [--repeat 5] [--folder /tmp/funnel-bench] [--demo]

For each size it builds (once, then reuses) a SQLite database with the backend's own schema and indexes,
holding synthetic product events over 90 days: page views, clicks, feature use, sign-ups and purchases of
persons whose activity follows a long-tailed distribution (``--demo``: the demo dataset of ``python -m
local_backend demo --events N``, whose visitors land, sign up and buy). Then, each in a fresh process so that the peak
resident memory belongs to that engine alone, it times the ordered, strict and unordered funnel computed by
the backend (scan, per-person pass and shaping, as the endpoint does, without HTTP), and the same funnels
written in DuckDB SQL (ASOF joins for ordered and unordered, LEAD for strict) over the same rows loaded into
DuckDB. It reports the median of ``--repeat`` runs after one warm-up, events/s, the ratio to DuckDB, peak
resident memory (which includes up to 512 MiB of the database file mapped by SQLite's mmap) and the peak heap
of the backend's own arrays (tracemalloc), the CPU seconds of each engine (DuckDB runs on every core; on a
busy machine CPU time is the steadier figure), the load average, and checks that both engines count the same
persons at every step with the same median times.
Needs the ``bench`` extra (duckdb). Numbers from a shared machine are indicative only: the load is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
DAY_US = 86_400 * 1_000_000
WINDOW_US = 14 * DAY_US
STEPS = ["$pageview", "signed_up", "purchase"]
NAMES = ["$pageview", "$autocapture", "feature_used", "$pageleave", "signed_up", "purchase"]
SHARES = [0.50, 0.24, 0.12, 0.06, 0.05, 0.03]
ORDERS = ("ordered", "strict", "unordered")


def build(path: Path, events: int, seed: int = 7) -> None:
    """The synthetic database (skipped when ``path`` exists)."""
    from local_backend.store.db import transaction
    from local_backend.store.engine.choice import open_database
    from local_backend.store.migrations import migrate
    from local_backend.store.projects import create_project

    if path.exists():
        return
    partial = path.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    migrate(partial)
    conn = open_database(partial)
    project = create_project(conn, name="bench", timezone="UTC", now="2026-01-15T12:00:00Z")
    rng = np.random.default_rng(seed)
    persons = max(events // 25, 1)
    end_us = int(NOW.timestamp() * 1_000_000)
    start_us = end_us - 90 * DAY_US
    with transaction(conn):
        conn.executemany(
            "INSERT INTO persons (id, project_id, uuid, created_at) VALUES (?, ?, ?, 0)",
            ((n + 1, project["id"], f"person-{n}") for n in range(persons)),
        )
    chunk = 500_000
    for offset in range(0, events, chunk):
        size = min(chunk, events - offset)
        who = np.minimum(rng.zipf(1.3, size), persons)  # long tail: a few very active persons
        who = (who * 7919 + rng.integers(0, persons, size)) % persons + 1
        when = rng.integers(start_us, end_us, size)
        what = rng.choice(len(NAMES), size=size, p=SHARES)
        rows = (
            (f"{offset + i}", project["id"], NAMES[int(what[i])], f"d{int(who[i])}", int(who[i]), int(when[i]),
             '{"$browser": "Chrome"}' if i % 3 else '{"$browser": "Safari"}', int(when[i]))
            for i in range(size)
        )  # fmt: skip
        with transaction(conn):
            conn.executemany(
                "INSERT INTO events (uuid, project_id, event, distinct_id, person_id, timestamp, properties,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
    conn.execute("ANALYZE")
    conn.close()
    partial.rename(path)


def build_demo(path: Path, events: int, seed: int = 1) -> None:
    """The demo dataset of ``demo --events N --seed S`` (skipped when ``path`` exists)."""
    if path.exists():
        return
    command = [sys.executable, "-m", "local_backend", "demo", "--db", str(path), "--events", str(events),
               "--seed", str(seed), "--now", NOW.isoformat()]  # fmt: skip
    subprocess.run(command, check=True, capture_output=True)


def funnel_filter(order: str) -> dict:
    return {
        "events": [{"id": name, "order": index} for index, name in enumerate(STEPS)],
        "funnel_order_type": order,
        "funnel_window_interval": 14,
        "funnel_window_interval_type": "day",
        "date_from": "-90d",
    }


def _no_link(params: dict) -> str:
    return ""


def measure_backend(path: Path, order: str, repeat: int) -> dict:
    from local_backend.queries.funnels import funnel_payload
    from local_backend.store.engine.choice import open_database
    from local_backend.store.projects import get_project

    conn = open_database(path)
    project = get_project(conn, 1)
    data = funnel_filter(order)
    payload = funnel_payload(conn, project, data, NOW, _no_link)  # warm-up
    times, cpu = [], []
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        payload = funnel_payload(conn, project, data, NOW, _no_link)
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    counts = [step["count"] for step in payload["result"]]
    medians = [step["median_conversion_time"] for step in payload["result"]]
    peak = _peak_mib()
    # one more run, untimed, for the heap alone: numpy and Python allocations, not SQLite's mmap window
    tracemalloc.start()
    funnel_payload(conn, project, data, NOW, _no_link)
    heap = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return {"seconds": statistics.median(times), "cpu": statistics.median(cpu), "counts": counts,
            "medians": medians, "peak_mib": peak, "heap_mib": heap, "load": os.getloadavg()[0]}  # fmt: skip


def _duckdb_sql(order: str, low: int, high: int) -> str:
    window = f"{WINDOW_US}"
    names = ", ".join(f"'{name}'" for name in STEPS)
    scope = f"timestamp >= {low} AND timestamp <= {high}"
    if order == "strict":
        ranked = (
            f"SELECT person_id p, timestamp t, event,"
            f" lead(event, 1) OVER w e1, lead(event, 2) OVER w e2, lead(timestamp, 1) OVER w t1,"
            f" lead(timestamp, 2) OVER w t2 FROM events WHERE {scope}"
            f" WINDOW w AS (PARTITION BY person_id ORDER BY timestamp,"
            f" CASE event WHEN '$pageview' THEN 0 WHEN 'signed_up' THEN 1 WHEN 'purchase' THEN 2 ELSE 3 END)"
        )
        attempts = (
            f"SELECT p, t AS t0, t1, t2, CASE WHEN e1 = 'signed_up' AND t1 <= t + {window} THEN"
            f" CASE WHEN e2 = 'purchase' AND t2 <= t + {window} THEN 3 ELSE 2 END ELSE 1 END AS steps"
            f" FROM ({ranked}) WHERE event = '$pageview'"
        )
        timed = "SELECT p, steps, (t1 - t0) / 1e6 c1, (t2 - t1) / 1e6 c2 FROM attempts"
    elif order == "ordered":
        attempts = (
            f"WITH ev AS (SELECT person_id p, timestamp t, event FROM events WHERE {scope} AND event IN ({names})),"
            " s0 AS (SELECT p, t AS t0 FROM ev WHERE event = '$pageview'),"
            " e1 AS (SELECT p, t FROM ev WHERE event = 'signed_up'),"
            " e2 AS (SELECT p, t FROM ev WHERE event = 'purchase'),"
            " a1 AS (SELECT s0.p, s0.t0, e1.t AS t1 FROM s0 ASOF LEFT JOIN e1 ON s0.p = e1.p AND e1.t >= s0.t0),"
            " a2 AS (SELECT a1.p, a1.t0, a1.t1, e2.t AS t2 FROM a1 ASOF LEFT JOIN e2 ON a1.p = e2.p AND e2.t >= a1.t1)"
            f" SELECT p, t0, t1, t2, CASE WHEN t1 IS NOT NULL AND t1 <= t0 + {window} THEN"
            f" CASE WHEN t2 IS NOT NULL AND t2 <= t0 + {window} THEN 3 ELSE 2 END ELSE 1 END AS steps FROM a2"
        )
        timed = "SELECT p, steps, (t1 - t0) / 1e6 c1, (t2 - t1) / 1e6 c2 FROM attempts"
    else:
        rotations = []
        for first in range(3):
            others = [k for k in range(3) if k != first]
            joins = " ".join(
                f"ASOF LEFT JOIN (SELECT p, t FROM ev WHERE event = '{STEPS[k]}') x{k}"
                f" ON s.p = x{k}.p AND x{k}.t > s.t0"
                for k in others
            )
            found = ", ".join(f"CASE WHEN x{k}.t <= s.t0 + {window} THEN x{k}.t END AS f{k}" for k in others)
            rotations.append(
                f"SELECT s.p, s.t0, {found.replace(f'f{others[0]}', 'fa').replace(f'f{others[1]}', 'fb')}"
                f" FROM (SELECT p, t AS t0 FROM ev WHERE event = '{STEPS[first]}') s {joins}"
            )
        attempts = (
            f"WITH ev AS (SELECT person_id p, timestamp t, event FROM events WHERE {scope} AND event IN ({names})),"
            f" r AS ({' UNION ALL '.join(rotations)})"
            " SELECT p, list_sort(list_filter([t0, fa, fb], lambda x: x IS NOT NULL)) AS l, len(l) AS steps FROM r"
        )
        timed = "SELECT p, steps, (l[2] - l[1]) / 1e6 c1, (l[3] - l[2]) / 1e6 c2 FROM attempts"
    return (
        f"WITH attempts AS ({attempts}), timed AS ({timed}),"
        " best AS (SELECT p, max(steps) AS steps FROM timed GROUP BY p),"
        " per AS (SELECT a.p, b.steps, avg(CASE WHEN b.steps >= 2 THEN c1 END) a1,"
        " median(CASE WHEN b.steps >= 2 THEN c1 END) m1, avg(CASE WHEN b.steps >= 3 THEN c2 END) a2,"
        " median(CASE WHEN b.steps >= 3 THEN c2 END) m2"
        " FROM timed a JOIN best b ON a.p = b.p AND a.steps = b.steps GROUP BY a.p, b.steps)"
        " SELECT count(*), count(*) FILTER (WHERE steps >= 2), count(*) FILTER (WHERE steps >= 3),"
        " avg(a1), median(m1), avg(a2), median(m2) FROM per"
    )


def measure_duckdb(path: Path, order: str, repeat: int) -> dict:
    import duckdb

    from local_backend.store.engine.choice import open_database

    conn = open_database(path)
    cursor = conn.cursor()
    cursor.row_factory = None
    rows = cursor.execute("SELECT person_id, timestamp, event FROM events").fetchall()
    conn.close()
    table = {
        "person_id": np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)),
        "timestamp": np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows)),
        "event": np.array([r[2] for r in rows], dtype=object),
    }
    del rows
    duck = duckdb.connect()
    duck.register("source", table)
    duck.execute("CREATE TABLE events AS SELECT * FROM source")
    duck.unregister("source")
    del table
    high = int(NOW.timestamp() * 1_000_000)
    high = high - high % DAY_US + DAY_US - 1  # the end of today, as the backend resolves date_to
    low = high + 1 - 91 * DAY_US  # 00:00 ninety days ago
    sql = _duckdb_sql(order, low, high)
    result = duck.execute(sql).fetchone()
    times, cpu = [], []
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        result = duck.execute(sql).fetchone()
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    assert result is not None
    return {
        "seconds": statistics.median(times),
        "cpu": statistics.median(cpu),
        "counts": [int(result[0]), int(result[1]), int(result[2])],
        "medians": [None, result[4], result[6]],
        "peak_mib": _peak_mib(),
    }


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _child(engine: str, path: Path, order: str, repeat: int) -> dict:
    command = [sys.executable, __file__, "--measure", engine, "--db", str(path), "--order", order,
               "--repeat", str(repeat)]  # fmt: skip
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, nargs="+", default=[1_000_000, 5_000_000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--folder", type=Path, default=Path("/tmp/funnel-bench"))
    parser.add_argument("--orders", nargs="+", default=list(ORDERS), choices=ORDERS)
    parser.add_argument("--demo", action="store_true", help="the demo dataset (demo --events N) instead of synthetic")
    parser.add_argument("--measure", choices=("backend", "duckdb"), help=argparse.SUPPRESS)
    parser.add_argument("--db", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--order", choices=ORDERS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure = measure_backend if args.measure == "backend" else measure_duckdb
        print(json.dumps(measure(args.db, args.order, args.repeat)))
        return
    args.folder.mkdir(parents=True, exist_ok=True)
    print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    for events in args.events:
        path = args.folder / (f"demo-{events}.db" if args.demo else f"funnel-{events}.db")
        started = time.perf_counter()
        (build_demo if args.demo else build)(path, events)
        print(f"\n{events:,} events ({path}, ready in {time.perf_counter() - started:.0f} s)")
        header = ("order", "backend", "cpu", "events/s", "rss", "heap", "duckdb", "cpu", "rss", "ratio", "load")
        print("{:<10} {:>9} {:>8} {:>12} {:>9} {:>8} {:>9} {:>8} {:>9} {:>6} {:>5}  counts".format(*header))
        for order in args.orders:
            ours = _child("backend", path, order, args.repeat)
            theirs = _child("duckdb", path, order, args.repeat)
            agree = ours["counts"] == theirs["counts"] and all(
                (a is None and b is None) or (a is not None and b is not None and abs(a - b) <= 1e-6 * max(1, abs(b)))
                for a, b in zip(ours["medians"], theirs["medians"], strict=True)
            )
            same = "same counts and medians" if agree else f"DIFFER: duckdb {theirs['counts']} {theirs['medians']}"
            print(
                f"{order:<10} {ours['seconds']:8.3f}s {ours['cpu']:7.2f}s {events / ours['seconds']:12,.0f}"
                f" {ours['peak_mib']:6.0f}MiB {ours['heap_mib']:5.0f}MiB {theirs['seconds']:8.3f}s"
                f" {theirs['cpu']:7.2f}s {theirs['peak_mib']:6.0f}MiB"
                f" {ours['seconds'] / theirs['seconds']:5.2f}x {ours['load']:5.1f}  {ours['counts']} {same}"
            )
    print(f"\nload average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
