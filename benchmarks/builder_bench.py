"""A builder's Run on the demo data, from the click to the figure and table in the output.

    python benchmarks/builder_bench.py [--db /tmp/builder_bench/demo.db] [--runs 15] [--events 100000]

Seeds the demo database once (what ``make run`` seeds: 100,000 events, seed 7, the clock at
2026-01-15T12:00:00Z; reused when the file exists), starts the local backend on it (`toolkit.local.start`),
and clicks Run on each builder ``--runs`` times after one warm-up. A Run is split in two parts, printed apart:

  api      the builder's call through the client (HTTP, the backend's calculation, the frame)
  drawing  the plot, its PNG and the readable table as the output shows them

Targets of issue 41 (median at most 0.3 s, p95 at most 0.6 s for the whole Run) apply to the trend with a
breakdown, the compared trend and the 3-step funnel; the other rows are for reference. The machine is
shared: the load average is printed with the numbers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolkit import local
from toolkit.frames.readable_tables import readable_table, table_html
from toolkit.widgets import FunnelBuilder, TrendBuilder
from toolkit.widgets.results import TABLE_ROWS, scrolling_table

NOW = "2026-01-15T12:00:00Z"
TARGET_MEDIAN = 0.3
TARGET_P95 = 0.6

CASES: dict[str, tuple[Callable[[Any], Any], bool]] = {
    "trend by $browser, 30 days": (
        lambda client: TrendBuilder(client, events=["$pageview"], date_from="-30d", breakdown="$browser"),
        True,
    ),
    "trend compared, 30 days": (
        lambda client: TrendBuilder(client, events=["$pageview"], date_from="-30d", compare=True),
        True,
    ),
    "funnel, 3 steps, 90 days": (
        lambda client: FunnelBuilder(client, steps=["signed_up", "onboarding_completed", "purchase"], date_from="-90d"),
        True,
    ),
    "trend, its start (7 days)": (lambda client: TrendBuilder(client, events=["$pageview"]), False),
    "funnel over time, 90 days": (
        lambda client: FunnelBuilder(
            client, steps=["signed_up", "purchase"], date_from="-90d", funnel_viz_type="trends"
        ),
        False,
    ),
}


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile, nearest rank (``p95`` of 15 runs is the 15th slowest but one)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def time_run(builder: Any) -> tuple[float, float]:
    """One Run as the button does it: (api seconds, drawing seconds, table included)."""
    spent: dict[str, float] = {}
    compute = builder._compute

    def timed_compute(request: Any) -> Any:
        start = time.perf_counter()
        try:
            return compute(request)
        finally:
            spent["api"] = time.perf_counter() - start

    builder._compute = timed_compute
    start = time.perf_counter()
    builder.run_button.click()
    frame = builder.df
    if builder.error or frame is None:
        raise SystemExit(f"the run failed: {builder.error}")
    # outside a kernel the output area shows nothing; build the table it would show
    scrolling_table(table_html(readable_table(frame), max_rows=TABLE_ROWS))
    total = time.perf_counter() - start
    builder._compute = compute
    return spent["api"], total - spent["api"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, default=Path("/tmp/builder_bench/demo.db"))
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--events", type=int, default=100_000)
    args = parser.parse_args()
    seeded = time.perf_counter()
    with local.start(args.db, now=NOW, events=args.events, seed=7) as client:
        print(f"backend up on {args.db} in {time.perf_counter() - seeded:.1f} s; load {os.getloadavg()[0]:.2f}")
        print(f"{'builder run':<28} {'median':>7} {'p95':>7} {'api med':>8} {'draw med':>9}  target")
        failed = []
        for name, (make, targeted) in CASES.items():
            builder = make(client)
            time_run(builder)  # warm-up: catalogs, caches, fonts
            parts = [time_run(builder) for _ in range(args.runs)]
            totals = [api + drawing for api, drawing in parts]
            median, p95 = statistics.median(totals), percentile(totals, 0.95)
            api = statistics.median(part[0] for part in parts)
            drawing = statistics.median(part[1] for part in parts)
            verdict = ""
            if targeted:
                ok = median <= TARGET_MEDIAN and p95 <= TARGET_P95
                verdict = "ok" if ok else f"MISSED (<= {TARGET_MEDIAN} / {TARGET_P95} s)"
                if not ok:
                    failed.append(name)
            print(f"{name:<28} {median:7.3f} {p95:7.3f} {api:8.3f} {drawing:9.3f}  {verdict}")
        print(f"load {os.getloadavg()[0]:.2f}; {args.runs} runs each, seconds")
        if failed:
            print("targets missed: " + ", ".join(failed))


if __name__ == "__main__":
    main()
