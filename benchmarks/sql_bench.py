"""Ten HogQL queries at scale on the backend's engines, beside DuckDB running the same question in its SQL.

    python benchmarks/sql_bench.py [--sizes 1000000,5000000] [--dir /tmp/scale-bench] [--runs 3]
                                   [--engine sqlite|chdb] [--translate-only]

The databases are those of ``scale_bench.py`` (the demo events file loaded by ``load-events``, kept in ``--dir``
and reused). For each query: the translation time (parse, check, rewrite and print, no engine; target under
5 ms), the median of ``--runs`` runs through :func:`local_backend.queries.sql.run_hogql_query` after a warm-up,
and DuckDB's time over its copy of the events (``ev``: event, person_id, ts, properties), with the ratio
(targets: chdb within 1.5x of DuckDB, SQLite within 5x). ``--translate-only`` times the translation alone.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from sqlglot import exp

from local_backend.queries.sql import read_hogql_node
from local_backend.queries.sql.allowlist import check_tree
from local_backend.queries.sql.parse import parse_hogql_fresh
from local_backend.queries.sql.rewrite import (
    apply_limit,
    bind_values,
    expand_stars,
    read_time_literals,
    rewrite_properties,
)
from local_backend.store.engine.sqlite.hogql_print import print_sqlite

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
_BROWSER = "json_extract_string(properties, '$.\"$browser\"')"
QUERIES: dict[str, tuple[str, str]] = {
    "count": ("select count() from events", "SELECT count(*) FROM ev"),
    "by-event": (
        "select event, count() as c from events group by event order by c desc limit 10",
        "SELECT event, count(*) AS c FROM ev GROUP BY event ORDER BY c DESC LIMIT 10",
    ),
    "by-browser": (
        "select properties.$browser as b, count() as c from events group by b order by c desc limit 10",
        f"SELECT {_BROWSER} AS b, count(*) AS c FROM ev GROUP BY b ORDER BY c DESC LIMIT 10",
    ),
    "daily": (
        "select toDate(timestamp) as d, count() from events group by d order by d",
        "SELECT CAST(make_timestamp(ts) AS DATE) AS d, count(*) FROM ev GROUP BY d ORDER BY d",
    ),
    "dau": (
        "select toDate(timestamp) as d, uniq(person_id) from events group by d order by d",
        "SELECT CAST(make_timestamp(ts) AS DATE) AS d, count(DISTINCT person_id) FROM ev GROUP BY d ORDER BY d",
    ),
    "pageviews-week": (
        "select count() from events where event = '$pageview' and timestamp > now() - interval 7 day",
        f"SELECT count(*) FROM ev WHERE event = '$pageview' AND ts > {int(NOW.timestamp() * 1e6) - 7 * 86_400_000_000}",
    ),
    "top-persons": (
        "select person_id, count() as c from events group by person_id order by c desc limit 10",
        "SELECT person_id, count(*) AS c FROM ev GROUP BY person_id ORDER BY c DESC LIMIT 10",
    ),
    "browser-share": (
        "select properties.$browser as b, countIf(event = '$pageview') / count() from events group by b order by b",
        f"SELECT {_BROWSER} AS b, count(*) FILTER (WHERE event = '$pageview') / count(*) FROM ev GROUP BY b ORDER BY b",
    ),
    "events-per-person": (
        "select avg(c) from (select person_id, count() as c from events group by person_id) as t",
        "SELECT avg(c) FROM (SELECT person_id, count(*) AS c FROM ev GROUP BY person_id) AS t",
    ),
    "distinct-events": ("select count(distinct event) from events", "SELECT count(DISTINCT event) FROM ev"),
}


def translate(query: str) -> str:
    """The query through every engine-free step and SQLite's printer, as a request runs it the first time (a
    text sent again finds its parsed tree kept)."""
    node = read_hogql_node({"kind": "HogQLQuery", "query": query})
    tree = parse_hogql_fresh(node.query)
    check_tree(tree)
    run_tree, _ = apply_limit(tree, 101)
    run_tree = read_time_literals(expand_stars(rewrite_properties(run_tree)))
    bind_values(run_tree, {})
    ctes = {cte.alias_or_name.lower() for cte in run_tree.find_all(exp.CTE)}
    now_us = int(NOW.timestamp() * 1e6)
    return print_sqlite(run_tree, ctes, timezone="UTC", now_us=now_us, browser_index="idx_events_browser")


def translation_ms(query: str, runs: int = 50) -> float:
    translate(query)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        translate(query)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def bench(size: int, directory: Path, runs: int, engine: str) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from bulk_load_bench import events_file
    from chdb_scale import load_duckdb_from_chdb
    from scale_bench import _ours, load
    from trends_bench import load_duckdb

    from local_backend.queries.sql import run_hogql_query
    from local_backend.store.engine.choice import open_database
    from local_backend.store.projects import get_project

    source = events_file(directory, size, "jsonl")
    database = directory / f"{size}-{engine}.db"
    load(source, database, size, reload=False, engine=engine)
    conn = open_database(database)
    project = get_project(conn, 1)
    try:
        duck = load_duckdb_from_chdb(conn, 1) if engine == "chdb" else load_duckdb(conn, 1)
    except ImportError:  # without DuckDB installed, the backend's own times
        duck = None
    for name, (hogql, duck_sql) in QUERIES.items():
        node = read_hogql_node({"kind": "HogQLQuery", "query": hogql})
        wall, _cpu, _answer = _ours(lambda node=node: run_hogql_query(conn, project, node, NOW), runs)
        beside = "  duckdb not installed"
        if duck is not None:
            started = time.perf_counter()
            for _ in range(runs):
                duck.execute(duck_sql).fetchall()
            duck_wall = (time.perf_counter() - started) / runs
            beside = f"  duckdb {duck_wall:7.3f} s  x{wall / duck_wall:5.1f}"
        print(
            f"{size:>9} {engine:6} {name:18} translate {translation_ms(hogql):5.2f} ms  ours {wall:7.3f} s{beside}"
            f"  load {os.getloadavg()[0]:.1f}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000000,5000000")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/scale-bench"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--engine", choices=["sqlite", "chdb"], default="sqlite")
    parser.add_argument("--translate-only", action="store_true")
    args = parser.parse_args()
    if args.translate_only:
        for name, (hogql, _) in QUERIES.items():
            print(f"{name:18} translate {translation_ms(hogql):5.2f} ms", flush=True)
        return
    args.dir.mkdir(parents=True, exist_ok=True)
    for size in (int(part) for part in args.sizes.split(",")):
        bench(size, args.dir, args.runs, args.engine)


if __name__ == "__main__":
    main()
