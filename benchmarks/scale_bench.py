"""SQLite at scale against DuckDB on the same events: per-event load cost and the issue's queries, per size.

    python benchmarks/scale_bench.py [--sizes 1000000,5000000] [--dir /tmp/scale-bench] [--runs 3] [--reload]
                                     [--only total,dau,...] [--engine sqlite|chdb]

For each size it takes the demo events file of ``bulk_load_bench.py`` (JSON Lines in time order, written once
into ``--dir``; a multiple of a million is made of copies of the million-event file with their own visitors),
loads it with ``python -m local_backend load-events`` into a fresh database (kept in ``--dir`` for the next run;
``--reload`` loads again) and prints the load's events/s and microseconds per event, by wall-clock and CPU time.
A reused database prints the cost measured when it was loaded, with its date. DuckDB (in memory) is loaded with
the rows SQLite stored, so both count the same persons (an ``$identify`` merges visitors on load); its load
time is printed too.

Then, after one warm-up, the median of ``--runs`` runs of each query, through the backend's calculation code
(``compute_trends`` and ``funnel_payload``, as the endpoints run them without HTTP; wall and CPU time) and as
DuckDB SQL over the same rows (wall time, every core), with the ratio of wall times and whether the answers
are equal:

  total        daily count of ``$pageview``, 30 days
  dau          daily distinct persons of ``$pageview``, 30 days
  weekly       weekly active persons, 30 daily points
  monthly      monthly active persons, 30 daily points
  breakdown    ``$pageview`` where ``$browser`` = Chrome, broken down by ``utm_source`` (custom), top 10, 30 days
  materialized the same, with ``utm_source`` materialized (the column is made and backfilled once and kept)
  funnel       ``$pageview -> signed_up -> purchase``, ordered, 14-day window, 90 days (counts and medians)

Targets at 5M (issue 17): every query within 5x of DuckDB, the materialized breakdown within 3x. The machine
may be shared: the load average is printed with the numbers, and DuckDB uses every core.

``--engine chdb`` runs the same on a database whose events live in embedded ClickHouse (``create-project
--engine chdb``, the events in ``scale-<size>-chdb.db.chdb``); DuckDB is loaded with the rows ClickHouse stored
(persons after merges). chdb keeps one data folder per process, so each size runs in a process of its own. The
funnel's ``windowFunnel`` levels are timed too, as a reference only (the backend keeps its numpy funnel engine).
Targets at 5M (issue 18): every query within 1.5x of DuckDB (the breakdown with its property materialized), the
funnel faster than DuckDB.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bulk_load_bench import events_file
from chdb_scale import event_count, load_duckdb_from_chdb, window_funnel
from funnels_bench import DAY_US, STEPS, _duckdb_sql
from trends_bench import DAY, NOW, duck_series, load_duckdb

from local_backend.queries.filter_parsing import parse_filter
from local_backend.queries.funnels import funnel_payload
from local_backend.queries.trends import TrendsFilter, compute_trends
from local_backend.store.db import transaction
from local_backend.store.engine.choice import open_database
from local_backend.store.event_rows import to_micros
from local_backend.store.materialized import backfill, materialize
from local_backend.store.projects import get_project

_ROOT = Path(__file__).resolve().parents[1]
KEY = "utm_source"
PAGEVIEWS: dict[str, Any] = {"id": "$pageview"}
TRENDS: dict[str, dict[str, Any]] = {
    "total": {"events": [PAGEVIEWS], "date_from": "-30d"},
    "dau": {"events": [{**PAGEVIEWS, "math": "dau"}], "date_from": "-30d"},
    "weekly": {"events": [{**PAGEVIEWS, "math": "weekly_active"}], "date_from": "-30d"},
    "monthly": {"events": [{**PAGEVIEWS, "math": "monthly_active"}], "date_from": "-30d"},
    "breakdown": {
        "events": [PAGEVIEWS],
        "date_from": "-30d",
        "properties": [{"key": "$browser", "value": "Chrome"}],
        "breakdown": KEY,
        "breakdown_limit": 10,
    },
}
TRENDS["materialized"] = TRENDS["breakdown"]
FUNNEL = {
    "events": [{"id": name, "order": index} for index, name in enumerate(STEPS)],
    "funnel_order_type": "ordered",
    "funnel_window_interval": 14,
    "funnel_window_interval_type": "day",
    "date_from": "-90d",
}
QUERIES = (*TRENDS, "funnel")
TARGETS = {name: 3.0 if name == "materialized" else 5.0 for name in QUERIES}
CHDB_TARGETS = {name: 1.0 if name == "funnel" else 1.5 for name in QUERIES}
ENGINES = ("sqlite", "chdb")


def _cli(*args: str) -> str:
    environment = dict(os.environ, PYTHONPATH=str(_ROOT))
    command = [sys.executable, "-m", "local_backend", *args]
    return subprocess.run(command, check=True, capture_output=True, text=True, env=environment).stdout


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def load(source: Path, database: Path, size: int, reload: bool, engine: str = "sqlite") -> dict[str, Any]:
    """The database of ``source``, loaded by ``load-events`` unless kept from an earlier run; the load's cost
    (kept beside the database so that a reused one still reports it)."""
    record = database.with_suffix(".load.json")
    if database.exists() and record.exists() and not reload:
        return {**json.loads(record.read_text()), "reused": True}
    for stale in (database, Path(f"{database}-wal"), Path(f"{database}-shm"), record):
        stale.unlink(missing_ok=True)
    shutil.rmtree(f"{database}.chdb", ignore_errors=True)
    _cli("create-project", "--db", str(database), "--name", "scale", "--timezone", "UTC", "--engine", engine)
    load_average = os.getloadavg()[0]
    cpu, started = _children_cpu(), time.perf_counter()
    _cli("load-events", "--db", str(database), "--project", "1", str(source), "--quiet")
    cost = {
        "events": size,
        "wall": time.perf_counter() - started,
        "cpu": _children_cpu() - cpu,
        "load_average": load_average,
        "load_average_after": os.getloadavg()[0],
        "when": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }
    record.write_text(json.dumps(cost))
    return {**cost, "reused": False}


def _trend(conn: Any, project: dict[str, Any], name: str) -> list[tuple[Any, list[float]]]:
    series = compute_trends(conn, project, parse_filter(TrendsFilter, TRENDS[name]), NOW).series
    return sorted(
        ((s.get("breakdown_value"), [float(v) for v in s["data"]]) for s in series),
        key=lambda item: (item[0] is not None, str(item[0])),
    )


def _funnel(conn: Any, project: dict[str, Any]) -> list[Any]:
    steps = funnel_payload(conn, project, FUNNEL, NOW, lambda params: "")["result"]
    return [[step["count"] for step in steps], [step["median_conversion_time"] for step in steps][1:]]


def _active_sql(days: int, first: int, last: int, high: int) -> str:
    return f"""
        SELECT NULL, days.d, count(DISTINCT person_id)
        FROM range({first}, {last + 1}) AS days(d) JOIN ev
          ON ev.ts >= (days.d - {days - 1}) * {DAY} AND ev.ts < (days.d + 1) * {DAY} AND ev.ts <= {high}
        WHERE ev.event = '$pageview' GROUP BY days.d"""


def duck_sql(low: int, high: int) -> dict[str, str]:
    """The trend queries in DuckDB, answering with (breakdown value, day, number) rows as the backend's do."""
    first, last = low // DAY, high // DAY
    base = f"FROM ev WHERE event = '$pageview' AND ts >= {low} AND ts <= {high}"
    chrome = f"{base} AND json_extract_string(properties, '$.\"$browser\"') = 'Chrome'"
    value = f"coalesce(nullif(json_extract_string(properties, '$.\"{KEY}\"'), ''), '$$_posthog_breakdown_null_$$')"
    breakdown = f"""
        WITH v AS (SELECT {value} AS v, ts {chrome}),
        top AS (SELECT v FROM v GROUP BY v ORDER BY count(*) DESC, v DESC LIMIT 10)
        SELECT CASE WHEN v IN (SELECT v FROM top) THEN v ELSE '$$_posthog_breakdown_other_$$' END AS b,
               ts // {DAY} AS d, count(*) FROM v GROUP BY b, d"""
    return {
        "total": f"SELECT NULL, ts // {DAY} AS d, count(*) {base} GROUP BY d",
        "dau": f"SELECT NULL, ts // {DAY} AS d, count(DISTINCT person_id) {base} GROUP BY d",
        "weekly": _active_sql(7, first, last, high),
        "monthly": _active_sql(30, first, last, high),
        "breakdown": breakdown,
        # DuckDB's own materialized column: the property pulled out of the JSON once, as a real column
        "materialized": breakdown.replace("FROM ev WHERE", "FROM ev_mat WHERE")
        .replace(value, f"coalesce(nullif({KEY}, ''), '$$_posthog_breakdown_null_$$')")
        .replace("json_extract_string(properties, '$.\"$browser\"')", "browser"),
    }


def _duck_funnel(duck: Any, sql: str) -> list[Any]:
    row = duck.execute(sql).fetchone()
    return [[int(row[0]), int(row[1]), int(row[2])], [row[4], row[6]]]


def _same_funnel(ours: list[Any], theirs: list[Any]) -> bool:
    return ours[0] == theirs[0] and all(
        (a is None and b is None) or (a is not None and b is not None and abs(a - b) <= 1e-6 * max(1.0, abs(b)))
        for a, b in zip(ours[1], theirs[1], strict=True)
    )


class _Materialized:
    """``utm_source`` as a column: made and backfilled once (the file keeps it); the JSON runs mark it not
    ready for the time they take, so that the calculations read the JSON."""

    def __init__(self, conn: Any, project_id: int) -> None:
        self.conn = conn
        started = time.perf_counter()
        self.column = materialize(conn, project_id, KEY, now="2026-01-15T12:00:00Z")
        backfill(conn, self.column)
        self.seconds = time.perf_counter() - started

    def ready(self, ready: bool) -> None:
        with transaction(self.conn):
            self.conn.execute(
                "UPDATE materialized_columns SET state = ? WHERE column_name = ?",
                ["ready" if ready else "backfilling", self.column],
            )


def _ours(run: Callable[[], Any], runs: int) -> tuple[float, float, Any]:
    """Median wall and CPU seconds of ``run`` after one warm-up, and its answer: SQLite runs in this process,
    so on a shared machine its CPU time is the steadier figure."""
    answer = run()
    wall, cpu = [], []
    for _ in range(runs):
        started, started_cpu = time.perf_counter(), time.process_time()
        answer = run()
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return statistics.median(wall), statistics.median(cpu), answer


def bench(size: int, directory: Path, runs: int, reload: bool, only: list[str], engine: str = "sqlite") -> None:
    source = events_file(directory, size, "jsonl")
    database = directory / (f"scale-{size}.db" if engine == "sqlite" else f"scale-{size}-{engine}.db")
    cost = load(source, database, size, reload, engine)
    conn = open_database(database)
    project = get_project(conn, 1)
    assert project is not None
    started = time.perf_counter()
    # without the JSON breakdown, DuckDB holds only the two properties the queries read (20M events' JSON would
    # not fit in memory beside ClickHouse)
    extract = () if "breakdown" in only else ("$browser", KEY)
    if engine == "chdb":
        total = event_count(conn, 1)
        duck = load_duckdb_from_chdb(conn, 1, extract)
    else:
        total = conn.execute("SELECT count(*) FROM events").fetchone()[0]
        duck = load_duckdb(conn, 1)
    duck_load = time.perf_counter() - started
    if extract and engine == "chdb":
        duck.execute(f"CREATE TABLE ev_mat AS SELECT event, person_id, ts, browser, {KEY} FROM ev")
    else:
        duck.execute(
            f"CREATE TABLE ev_mat AS SELECT event, person_id, ts, json_extract_string(properties, '$.\"$browser\"')"
            f" AS browser, json_extract_string(properties, '$.\"{KEY}\"') AS {KEY} FROM ev"
        )
    duck.execute("CREATE VIEW events AS SELECT person_id, ts AS timestamp, event FROM ev")
    when = " (measured when loaded, " + cost["when"] + ")" if cost["reused"] else ""
    after = cost.get("load_average_after")  # not recorded by the first version of this script
    loads = f"{cost['load_average']:.1f}" + (f" -> {after:.1f}" if after is not None else "")
    print(
        f"\n{total:,} events, {engine}. load-events: {size / cost['wall']:,.0f} ev/s, {cost['wall'] / size * 1e6:.1f}"
        f" µs/ev wall; {size / cost['cpu']:,.0f} ev/s, {cost['cpu'] / size * 1e6:.1f} µs/ev CPU (the command and its"
        f" reader process); load average {loads}{when}. DuckDB from the stored rows: {duck_load:.1f} s"
        f" ({duck_load / total * 1e6:.1f} µs/ev)",
        flush=True,
    )
    column = _Materialized(conn, 1)
    print(f"materialize + backfill {KEY}: {column.seconds:.1f} s", flush=True)
    low = to_micros(datetime(2025, 12, 16, tzinfo=UTC))
    high = to_micros(NOW.replace(hour=0) + timedelta(days=1)) - 1
    sql = duck_sql(low, high)
    funnel_low, funnel_high = high + 1 - 91 * DAY_US, high
    funnel_sql = _duckdb_sql("ordered", funnel_low, funnel_high)
    first_day, days = low // DAY, (high // DAY) - (low // DAY) + 1
    targets = CHDB_TARGETS if engine == "chdb" else TARGETS
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; CPU s is this process's (both engines"
          " run in it), every thread")  # fmt: skip
    print(f"{'query':<13} {engine + ' s':>9} {'cpu s':>7} {'duckdb s':>9} {'cpu s':>7} {'ratio':>6} {'target':>7}"
          f"  load  same answer")  # fmt: skip
    for name in only:
        if name == "funnel":
            mine, cpu, ours = _ours(lambda: _funnel(conn, project), runs)
            theirs, duck_cpu, duck_answer = _ours(lambda: _duck_funnel(duck, funnel_sql), runs)
            same = _same_funnel(ours, duck_answer)
        else:
            column.ready(name == "materialized")
            try:
                mine, cpu, ours = _ours(lambda name=name: _trend(conn, project, name), runs)
            finally:
                column.ready(True)
            theirs, duck_cpu, duck_answer = _ours(lambda name=name: duck_series(duck, sql[name], first_day, days), runs)
            same = sorted(map(str, ours)) == sorted(map(str, duck_answer))
        ratio = mine / theirs
        verdict = "ok" if ratio <= targets[name] else "MISSED"
        print(
            f"{name:<13} {mine:9.3f} {cpu:7.3f} {theirs:9.3f} {duck_cpu:7.3f} {ratio:6.2f} {targets[name]:6.1f}x"
            f" {verdict:6} {os.getloadavg()[0]:4.1f}"
            f" {'yes' if same else 'NO: ' + str(ours)[:200] + ' vs ' + str(duck_answer)[:200]}",
            flush=True,
        )
        if name == "funnel" and engine == "chdb":
            wall, cpu, levels = _ours(lambda: window_funnel(conn, 1, STEPS, 14 * DAY_US, funnel_low, funnel_high), runs)
            print(f"{'  windowFunnel':<13} {wall:9.3f} {cpu:7.3f} (levels only, reference) {levels}"
                  f" {'same counts' if levels == ours[0] else 'counts differ from ' + str(ours[0])}")  # fmt: skip
    with transaction(conn):
        conn.execute("DELETE FROM property_usage")
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000000,5000000", help="comma-separated event counts")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/scale-bench"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--reload", action="store_true", help="load the files again into fresh databases")
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
        bench(size, args.dir, args.runs, args.reload, only, args.engine)


if __name__ == "__main__":
    main()
