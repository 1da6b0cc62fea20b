"""What the calculation guard costs: the same trends and funnels with and without it, on the same database.

    python benchmarks/guard_bench.py [--events 1000000] [--runs 7]

Every calculation the API runs is watched by a :class:`~local_backend.guard.CalculationGuard`:
SQLite's progress handler asks it every ``PROGRESS_STEPS`` virtual-machine steps whether the time limit has
passed or the client went away, and the funnel scan checks the deadline between chunks. This prints, for the
trend queries of ``trends_bench.py`` and the ordered funnel of ``funnels_bench.py``, the median time of the
bare engine and of the guarded one (runs interleaved, so load on the shared machine hits both alike), their
ratio, and the throughput (events in the table / guarded time). The answers must be the same both ways.
The databases are the ones those two benchmarks build (reused when present).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import funnels_bench  # noqa: E402
import trends_bench  # noqa: E402

from local_backend.guard import CalculationGuard  # noqa: E402
from local_backend.store.engine.choice import open_database  # noqa: E402
from local_backend.store.projects import get_project  # noqa: E402

TIMEOUT_SECONDS = 60.0


def interleaved(bare: Callable[[], Any], guarded: Callable[[], Any], runs: int) -> tuple[float, float, bool]:
    """Median seconds of each, run alternately after one warm-up each, and whether they answered the same."""
    first, second = bare(), guarded()
    bare_times, guarded_times = [], []
    for _ in range(runs):
        for run, times in ((bare, bare_times), (guarded, guarded_times)):
            started = time.perf_counter()
            run()
            times.append(time.perf_counter() - started)
    return statistics.median(bare_times), statistics.median(guarded_times), first == second


def watched(conn: Any, guard: bool) -> Any:
    return CalculationGuard(timeout_seconds=TIMEOUT_SECONDS).watching(conn) if guard else nullcontext()


def trend_rows(path: Path, runs: int) -> list[tuple[str, float, float, bool, int]]:
    conn = open_database(path)
    project_id = conn.execute("SELECT id FROM projects WHERE is_demo = 1 ORDER BY id LIMIT 1").fetchone()[0]
    project = get_project(conn, project_id)
    total = conn.execute("SELECT count(*) FROM events").fetchone()[0]
    rows = []
    for name in trends_bench.FILTERS:

        def run(guard: bool, name: str = name) -> Any:
            with watched(conn, guard):
                return trends_bench.ours(conn, project, name)

        rows.append((f"trend {name}", *interleaved(lambda: run(False), lambda: run(True), runs), total))
    conn.close()
    return rows


def funnel_row(path: Path, runs: int) -> tuple[str, float, float, bool, int]:
    from local_backend.queries.funnels import funnel_payload

    conn = open_database(path)
    project = get_project(conn, 1)
    data = funnels_bench.funnel_filter("ordered")
    total = conn.execute("SELECT count(*) FROM events").fetchone()[0]

    def run(guard: bool) -> Any:
        with watched(conn, guard):
            return [
                step["count"]
                for step in funnel_payload(conn, project, data, funnels_bench.NOW, funnels_bench._no_link)["result"]
            ]

    row = ("funnel ordered, 3 steps", *interleaved(lambda: run(False), lambda: run(True), runs), total)
    conn.close()
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    trends_dir, funnels_dir = Path("/tmp/trends_bench"), Path("/tmp/funnel-bench")
    trends_dir.mkdir(parents=True, exist_ok=True)
    funnels_dir.mkdir(parents=True, exist_ok=True)
    trends_db = trends_dir / f"demo_{args.events}.db"
    funnels_db = funnels_dir / f"funnel-{args.events}.db"
    trends_bench.build(trends_db, args.events, cli=False)
    funnels_bench.build(funnels_db, args.events)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {args.runs} runs each, interleaved")
    print(f"{'calculation':<32} {'bare s':>8} {'guarded s':>10} {'ratio':>6} {'M ev/s':>7}  same answer")
    for name, bare, guarded, same, total in [*trend_rows(trends_db, args.runs), funnel_row(funnels_db, args.runs)]:
        print(
            f"{name:<32} {bare:8.3f} {guarded:10.3f} {guarded / bare:6.2f} {total / guarded / 1e6:7.1f}"
            f"  {'yes' if same else 'NO'}",
            flush=True,
        )
    print(f"load average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
