"""Stickiness, lifecycle, a retention breakdown and trend people at scale, beside DuckDB computing the same numbers.

    python benchmarks/kinds_scale_bench.py [--sizes 1000000,5000000] [--dir /tmp/scale-bench] [--runs 3]
                                           [--only stickiness,...] [--engine sqlite|chdb]

The databases are those of ``scale_bench.py`` (the demo events file loaded by ``load-events``, kept in ``--dir``
and reused by both scripts). DuckDB (in memory) holds the rows the engine stored, persons after merges and their
creation times, so both sides count the same people. After one warm-up, the median of ``--runs`` runs of each,
through the backend's calculation code as the endpoints run it without HTTP (wall and CPU time), beside DuckDB's
SQL (wall time, every core), with the ratio of wall times and whether the answers are equal:

  stickiness   ``$pageview``, daily, the 31 days to 2026-01-15: persons by number of active days
  lifecycle    ``$pageview``, daily, the same days: new, returning, resurrecting and dormant per day
  retention    ``$pageview`` returning on ``$pageview``, daily, 11 days, broken down by ``$browser``
  people-dau   the persons behind the 2026-01-14 point of a daily-active ``$pageview`` trend
  people-wau   the persons behind the 2026-01-14 point of a weekly-active ``$pageview`` trend

Targets (issue 39): within 2x of DuckDB on chdb, within 5x on SQLite. The machine may be shared: the load
average is printed with each line, and DuckDB uses every core.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bulk_load_bench import events_file
from chdb_scale import load_duckdb_from_chdb
from scale_bench import _ours, load
from trends_bench import DAY, NOW, load_duckdb

from local_backend.queries.filter_parsing import parse_filter
from local_backend.queries.lifecycle import LifecycleFilter, compute_lifecycle
from local_backend.queries.retention import retention_payload
from local_backend.queries.stickiness import StickinessFilter, compute_stickiness
from local_backend.queries.trends import TrendPoint, TrendsFilter, trend_actors
from local_backend.store.engine.choice import event_store, open_database
from local_backend.store.event_rows import to_micros
from local_backend.store.projects import get_project

PAGEVIEWS: dict[str, Any] = {"id": "$pageview"}
RANGE = {"date_from": "2025-12-16", "date_to": "2026-01-15"}
PEOPLE_DAY = {"date_from": "2026-01-14", "date_to": "2026-01-14"}
RETENTION = {
    "target_entity": {"id": "$pageview", "type": "events"},
    "returning_entity": {"id": "$pageview", "type": "events"},
    "period": "Day",
    "total_intervals": 11,
    "date_to": "2026-01-15",
    "breakdown": "$browser",
    "breakdown_type": "event",
}
QUERIES = ("stickiness", "lifecycle", "retention", "people-dau", "people-wau")
TARGETS = {"sqlite": 5.0, "chdb": 2.0}
ENGINES = ("sqlite", "chdb")


def _stickiness(conn: Any, project: dict[str, Any]) -> list[int]:
    filter = parse_filter(StickinessFilter, {"events": [PAGEVIEWS], **RANGE, "shown_as": "Stickiness"})
    (series,) = compute_stickiness(conn, project, filter, NOW).series
    return [int(value) for value in series["data"]]


def _lifecycle(conn: Any, project: dict[str, Any]) -> dict[str, list[int]]:
    filter = parse_filter(LifecycleFilter, {"events": [PAGEVIEWS], **RANGE, "shown_as": "Lifecycle"})
    return {s["status"]: [int(v) for v in s["data"]] for s in compute_lifecycle(conn, project, filter, NOW).series}


def _retention(conn: Any, project: dict[str, Any]) -> dict[str, list[list[int]]]:
    rows = retention_payload(conn, project, RETENTION, NOW, lambda params: "")["result"]
    table: dict[str, list[list[int]]] = {}
    for row in rows:
        table.setdefault(str(row.get("breakdown_value")), []).append([value["count"] for value in row["values"]])
    return table


def _people(conn: Any, project: dict[str, Any], math: str) -> list[int]:
    filter = parse_filter(TrendsFilter, {"events": [{**PAGEVIEWS, "math": math}], **PEOPLE_DAY})
    return list(trend_actors(conn, project, filter, NOW, TrendPoint(entity_order=0)).actors)


def _duck_stickiness(duck: Any, low: int, high: int) -> list[int]:
    days = (high // DAY) - (low // DAY) + 1
    rows = duck.execute(f"""
        SELECT n, count(*) FROM (
          SELECT person_id, count(DISTINCT ts // {DAY}) AS n FROM ev
          WHERE event = '$pageview' AND ts >= {low} AND ts <= {high} AND person_id IS NOT NULL GROUP BY person_id)
        GROUP BY n""").fetchall()  # fmt: skip
    counts = [0] * days
    for n, number in rows:
        counts[int(n) - 1] = int(number)
    return counts


def _duck_lifecycle(duck: Any, low: int, high: int) -> dict[str, list[int]]:
    """PostHog's statuses over each person's distinct active days, read from the day before the range: new on the
    first active day when it is the day the person was created, returning when the day before was active,
    resurrecting otherwise, dormant on the day after each run of active days (negative)."""
    first, last = low // DAY, high // DAY
    rows = duck.execute(f"""
        WITH active AS (
          SELECT DISTINCT person_id AS p, ts // {DAY} AS d FROM ev
          WHERE event = '$pageview' AND ts >= {low - DAY} AND ts <= {high} AND person_id IS NOT NULL),
        runs AS (
          SELECT p, d, lag(d) OVER (PARTITION BY p ORDER BY d) AS before,
                 lead(d) OVER (PARTITION BY p ORDER BY d) AS after FROM active),
        statuses AS (
          SELECT runs.p, runs.d, CASE WHEN before IS NULL AND runs.d = persons.created // {DAY} THEN 'new'
                                     WHEN before = runs.d - 1 THEN 'returning' ELSE 'resurrecting' END AS status
          FROM runs LEFT JOIN persons ON persons.id = runs.p
          UNION ALL
          SELECT p, d + 1, 'dormant' FROM runs WHERE after IS NULL OR after <> d + 1)
        SELECT status, d, count(*) FROM statuses WHERE d >= {first} AND d <= {last} GROUP BY status, d
        """).fetchall()  # fmt: skip
    counts = {status: [0] * (last - first + 1) for status in ("new", "returning", "resurrecting", "dormant")}
    for status, day, number in rows:
        counts[status][int(day) - first] = -int(number) if status == "dormant" else int(number)
    return counts


def _duck_retention(duck: Any, high: int) -> dict[str, list[list[int]]]:
    """Recurring daily retention over 11 days by the ``$browser`` of the person's first event in each start day
    (the cohort's day): a person is in day k's cohort when active that day, and returns on day k+j when active
    then too."""
    first = high // DAY - 10
    low = first * DAY
    browser = "coalesce(nullif(json_extract_string(properties, '$.\"$browser\"'), ''), '$$_posthog_breakdown_null_$$')"
    rows = duck.execute(f"""
        WITH active AS (
          SELECT person_id AS p, ts // {DAY} AS d, arg_min({browser}, ts) AS b FROM ev
          WHERE event = '$pageview' AND ts >= {low} AND ts <= {high} AND person_id IS NOT NULL GROUP BY p, d)
        SELECT start.b, start.d, later.d - start.d, count(*) FROM active AS start
        JOIN active AS later ON later.p = start.p AND later.d >= start.d
        GROUP BY start.b, start.d, later.d - start.d""").fetchall()  # fmt: skip
    table: dict[str, list[list[int]]] = {}
    for value, day, offset, number in rows:
        cells = table.setdefault(str(value), [[0] * (11 - k) for k in range(11)])
        cells[int(day) - first][int(offset)] = int(number)
    return table


def _duck_people(duck: Any, day: int, days: int) -> list[int]:
    rows = duck.execute(f"""
        SELECT DISTINCT person_id FROM ev WHERE event = '$pageview' AND person_id IS NOT NULL
          AND ts >= {(day - days + 1) * DAY} AND ts < {(day + 1) * DAY} ORDER BY person_id""").fetchall()  # fmt: skip
    return [int(row[0]) for row in rows]


def _load_persons(duck: Any, conn: Any, engine: str) -> None:
    """The persons' creation times, as the engine stores them, into DuckDB's ``persons``."""
    import pyarrow as pa

    if engine == "chdb":
        store = event_store(conn)
        table = store.client.query_arrow(  # type: ignore[attr-defined]
            f"SELECT id, min(created_at) AS created FROM {store.dialect.table('persons')}"  # type: ignore[attr-defined]
            " WHERE project_id = 1 GROUP BY id"
        )
    else:
        rows = conn.execute("SELECT id, created_at FROM persons WHERE project_id = 1").fetchall()
        table = pa.table({"id": [row[0] for row in rows], "created": [row[1] for row in rows]})
    duck.register("stored_persons", table)
    duck.execute("CREATE TABLE persons AS SELECT id::BIGINT AS id, created::BIGINT AS created FROM stored_persons")
    duck.unregister("stored_persons")


def bench(size: int, directory: Path, runs: int, only: list[str], engine: str) -> None:
    source = events_file(directory, size, "jsonl")
    database = directory / (f"scale-{size}.db" if engine == "sqlite" else f"scale-{size}-{engine}.db")
    load(source, database, size, False, engine)
    conn = open_database(database)
    project = get_project(conn, 1)
    assert project is not None
    duck = load_duckdb_from_chdb(conn, 1) if engine == "chdb" else load_duckdb(conn, 1)
    _load_persons(duck, conn, engine)
    low = to_micros(datetime(2025, 12, 16, tzinfo=UTC))
    high = to_micros(NOW.replace(hour=0) + timedelta(days=1)) - 1
    people_day = high // DAY - 1
    total = duck.execute("SELECT count(*) FROM ev").fetchone()[0]
    runners: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {
        "stickiness": (lambda: _stickiness(conn, project), lambda: _duck_stickiness(duck, low, high)),
        "lifecycle": (lambda: _lifecycle(conn, project), lambda: _duck_lifecycle(duck, low, high)),
        "retention": (lambda: _retention(conn, project), lambda: _duck_retention(duck, high)),
        "people-dau": (lambda: _people(conn, project, "dau"), lambda: _duck_people(duck, people_day, 1)),
        "people-wau": (lambda: _people(conn, project, "weekly_active"), lambda: _duck_people(duck, people_day, 7)),
    }
    target = TARGETS[engine]
    print(f"\n{total:,} events, {engine}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(
        f"{'query':<11} {engine + ' s':>9} {'cpu s':>7} {'duckdb s':>9} {'ratio':>6} {'target':>7}  load  same answer"
    )
    for name in only:
        ours_run, duck_run = runners[name]
        mine, cpu, ours = _ours(ours_run, runs)
        theirs, _, duck_answer = _ours(duck_run, runs)
        same = ours == duck_answer
        ratio = mine / theirs
        verdict = "ok" if ratio <= target else "MISSED"
        detail = "yes" if same else f"NO: {str(ours)[:160]} vs {str(duck_answer)[:160]}"
        print(
            f"{name:<11} {mine:9.3f} {cpu:7.3f} {theirs:9.3f} {ratio:6.2f} {target:6.1f}x {verdict:6}"
            f" {os.getloadavg()[0]:4.1f} {detail}",
            flush=True,
        )
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000000,5000000", help="comma-separated event counts")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/scale-bench"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default=",".join(QUERIES), help=f"comma-separated, of {','.join(QUERIES)}")
    parser.add_argument("--engine", choices=ENGINES, default="sqlite", help="where the backend's events live")
    args = parser.parse_args()
    only = [name for name in args.only.split(",") if name]
    unknown = sorted(set(only) - set(QUERIES))
    if unknown:
        parser.error(f"unknown queries: {', '.join(unknown)}")
    args.dir.mkdir(parents=True, exist_ok=True)
    sizes = [int(text) for text in args.sizes.split(",")]
    if args.engine == "chdb" and len(sizes) > 1:  # chdb keeps one data folder per process: one process a size
        for size in sizes:
            subprocess.run([sys.executable, *sys.argv, "--sizes", str(size)], check=True)
        return
    for size in sizes:
        bench(size, args.dir, args.runs, only, args.engine)


if __name__ == "__main__":
    main()
