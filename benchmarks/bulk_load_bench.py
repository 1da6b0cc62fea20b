"""Bulk-load cost per event as the file grows: ``load-events`` end to end, one fresh database per size.

    python benchmarks/bulk_load_bench.py [--sizes 1000000,5000000] [--cache-dir /tmp/bulk-load-bench]
                                         [--format jsonl|parquet]

For each size it writes a file of that many demo events once (no uuids, in time order: the shape of a typical
export; kept in ``--cache-dir`` for the next run), creates a fresh database and project with the CLI, and runs
``python -m local_backend load-events`` on it. It prints events/s and microseconds per event by wall-clock
time and by CPU time (the command and its reader process), the load average at the start and end (the
machine may be shared: CPU time is then the steadier figure), and the growth of the per-event cost against
the smallest size.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ingest_bench import file_rows, write_file

_ROOT = Path(__file__).resolve().parents[1]
_MILLION = 1_000_000


def _copies(source: Path, target: Path, copies: int) -> None:
    """``copies`` copies of a JSON Lines file, each with its own visitors (a prefix on every distinct id)."""
    with target.open("w", encoding="utf-8") as out:
        for copy in range(copies):
            with source.open(encoding="utf-8") as lines:
                for line in lines:
                    out.write(line.replace('distinct_id": "', f'distinct_id": "{copy}-'))


def events_file(cache: Path, events: int, kind: str) -> Path:
    """The demo events file of ``events`` rows, written once. A JSON Lines file of a multiple of a million
    events is made of copies of the million-event file with distinct visitors (generating is slower)."""
    path = cache / f"demo-{events}.{kind}"
    if not path.exists():
        started = time.perf_counter()
        partial = path.with_suffix(".partial")
        if kind == "jsonl" and events > _MILLION and events % _MILLION == 0:
            _copies(events_file(cache, _MILLION, kind), partial, events // _MILLION)
        else:
            write_file(partial, file_rows(events, "time"), kind)
        partial.rename(path)
        print(f"  wrote {path} ({path.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - started:.0f} s")
    return path


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ, PYTHONPATH=str(_ROOT))
    command = [sys.executable, "-m", "local_backend", *args]
    return subprocess.run(command, check=True, capture_output=True, text=True, env=environment)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def load(source: Path, workdir: Path) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (the command and its reader process) and the command's summary."""
    database = workdir / f"{source.stem}.db"
    _cli("create-project", "--db", str(database), "--name", "bench", "--timezone", "UTC")
    cpu, started = _children_cpu(), time.perf_counter()
    done = _cli("load-events", "--db", str(database), "--project", "1", str(source), "--quiet")
    wall = time.perf_counter() - started
    return wall, _children_cpu() - cpu, done.stdout.strip()


def _load_average() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000000,5000000", help="comma-separated event counts")
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "bulk-load-bench")
    parser.add_argument("--format", choices=["jsonl", "parquet"], default="jsonl")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bulk-load-bench-") as tmp:
        for size in sizes:
            source = events_file(args.cache_dir, size, args.format)
            before = _load_average()
            wall, cpu, summary = load(source, Path(tmp))
            rows.append((size, wall, cpu, before, _load_average()))
            print(f"  {size:,}: {summary.splitlines()[0]}")
            for line in summary.splitlines()[1:]:
                print(f"    {line}")
            (Path(tmp) / f"{source.stem}.db").unlink()
    base_wall, base_cpu = rows[0][1] / rows[0][0], rows[0][2] / rows[0][0]
    print(f"\nload-events, {args.format}, demo events in time order, fresh database (load average 1/5/15 min)")
    print(f"{'events':>12} {'wall ev/s':>10} {'µs/ev':>7} {'growth':>7} {'CPU ev/s':>10} {'µs/ev':>7} {'growth':>7}"
          "  load avg before -> after")  # fmt: skip
    for size, wall, cpu, before, after in rows:
        by_wall = f"{size / wall:>10,.0f} {wall / size * 1e6:>7.1f} {wall / size / base_wall:>6.2f}x"
        by_cpu = f"{size / cpu:>10,.0f} {cpu / size * 1e6:>7.1f} {cpu / size / base_cpu:>6.2f}x"
        print(f"{size:>12,} {by_wall} {by_cpu}  {before} -> {after}")


if __name__ == "__main__":
    main()
