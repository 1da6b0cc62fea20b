"""Events per second through retention and paths, against a bare read of the same rows.

    python benchmarks/retention_paths_bench.py [--events 200000] [--persons 5000]

Builds a throw-away database of page views spread over 30 days, then times an 11-day retention
(recurring and first time) and a default paths query. The reference is the cheapest possible pass: reading
the range's rows in person order with no calculation, so the ratio is the price of the calculation itself.
Run it on a quiet machine; numbers from a shared machine are indicative only.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from local_backend.queries.paths import PathFilter, compute_paths
from local_backend.queries.retention import RetentionFilter
from local_backend.queries.retention.compute import count_retention
from local_backend.store.db import transaction
from local_backend.store.engine.choice import open_database
from local_backend.store.event_rows import EventRow, insert_events, to_micros
from local_backend.store.migrations import migrate
from local_backend.store.projects import create_project, get_project

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
PAGES = ["/", "/pricing", "/docs", "/signup", "/blog", "/about", "/docs/api", "/docs/sdk"]


def build(path: Path, events: int, persons: int, seed: int = 11) -> dict:
    migrate(path)
    conn = open_database(path)
    project = create_project(conn, name="bench", timezone="UTC", now="2026-01-15T12:00:00Z")
    rng = random.Random(seed)
    with transaction(conn):
        conn.executemany(
            "INSERT INTO persons (id, project_id, uuid, created_at) VALUES (?, ?, ?, 0)",
            [(n + 1, project["id"], f"person-{n}") for n in range(persons)],
        )
        start = NOW - timedelta(days=30)
        rows = []
        for _ in range(events):
            person = rng.randrange(persons) + 1
            at = start + timedelta(seconds=rng.randrange(30 * 86_400))
            rows.append(
                EventRow(
                    project_id=project["id"],
                    event="$pageview",
                    distinct_id=f"d{person}",
                    person_id=person,
                    timestamp=to_micros(at),
                    properties={"$current_url": rng.choice(PAGES)},
                )
            )
        insert_events(conn, rows)
    conn.execute("ANALYZE")
    conn.close()
    return project


def timed(label: str, run: Callable[[], object], rows: int) -> float:
    started = time.perf_counter()
    run()
    seconds = time.perf_counter() - started
    print(f"{label:<34} {seconds:7.3f} s  {rows / seconds:12,.0f} events/s")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--persons", type=int, default=5_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.db"
        project = build(path, args.events, args.persons)
        conn = open_database(path)
        project = get_project(conn, project["id"]) or project
        since = to_micros(NOW - timedelta(days=11))
        in_range = conn.execute("SELECT count(*) FROM events WHERE timestamp >= ?", (since,)).fetchone()[0]
        print(f"{args.events:,} events, {args.persons:,} persons, {in_range:,} in the last 11 days")

        def bare_read() -> None:
            conn.execute(
                "SELECT person_id, timestamp, event FROM events WHERE project_id = ? AND timestamp >= ?"
                " ORDER BY person_id, timestamp",
                (project["id"], since),
            ).fetchall()

        reference = timed("reference: bare read", bare_read, in_range)
        recurring = timed(
            "retention, recurring (Day, 11)",
            lambda: count_retention(conn, project, RetentionFilter(), NOW),
            in_range,
        )
        first = timed(
            "retention, first time (Day, 11)",
            lambda: count_retention(conn, project, RetentionFilter(retention_type="retention_first_time"), NOW),
            in_range,
        )
        week = to_micros(NOW - timedelta(days=8))
        in_week = conn.execute("SELECT count(*) FROM events WHERE timestamp >= ?", (week,)).fetchone()[0]
        paths = timed("paths, default (-7d)", lambda: compute_paths(conn, project, PathFilter(), NOW), in_week)
        print(f"ratios to the bare read: recurring {recurring / reference:.1f}x, first time {first / reference:.1f}x,")
        print(f"  paths {paths / (reference * in_week / in_range):.1f}x (scaled to the rows it reads)")
        conn.close()


if __name__ == "__main__":
    main()
