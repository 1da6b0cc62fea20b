"""``load-events`` into a chdb project, end to end: events/s by wall-clock and CPU time per file size.

    python benchmarks/chdb_load_bench.py [--sizes 1000000,5000000] [--format jsonl|parquet]
                                         [--cache-dir /tmp/bulk-load-bench]

The files are ``bulk_load_bench.py``'s (demo events in time order, no uuids, properties as a JSON object; made
once and kept in ``--cache-dir``). For each size: a fresh database with ``create-project --engine chdb`` (the
events in a folder beside it), then ``python -m local_backend load-events`` timed from start to exit, which
includes ClickHouse reading the file, the persons in SQLite and every insert. The target (issue 18) is 200,000
events/s at 5M on a 2-core machine with no plugin enabled; the load average shows whether the cores were shared.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from bulk_load_bench import _children_cpu, _cli, _load_average, events_file

TARGET = 200_000


def load(source: Path, workdir: Path) -> tuple[float, float, str, float]:
    """Wall seconds, CPU seconds, the command's summary, and the MB the chdb folder takes."""
    database = workdir / f"{source.stem}.db"
    _cli("create-project", "--db", str(database), "--name", "bench", "--timezone", "UTC", "--engine", "chdb")
    cpu, started = _children_cpu(), time.perf_counter()
    done = _cli("load-events", "--db", str(database), "--project", "1", str(source), "--quiet")
    wall = time.perf_counter() - started
    folder = Path(f"{database}.chdb")
    size = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file()) / 1e6
    return wall, _children_cpu() - cpu, done.stdout.strip(), size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000000,5000000", help="comma-separated event counts")
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "bulk-load-bench")
    parser.add_argument("--format", choices=["jsonl", "parquet"], default="jsonl")
    args = parser.parse_args()
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    print(f"load-events --engine chdb, {args.format}, demo events in time order, fresh database")
    print(f"{'events':>12} {'wall ev/s':>10} {'µs/ev':>7} {'CPU ev/s':>10} {'chdb MB':>8}  load avg before -> after")
    with tempfile.TemporaryDirectory(prefix="chdb-load-bench-") as tmp:
        for size in (int(text) for text in args.sizes.split(",")):
            source = events_file(args.cache_dir, size, args.format)
            before = _load_average()
            wall, cpu, summary, megabytes = load(source, Path(tmp))
            print(f"{size:>12,} {size / wall:>10,.0f} {wall / size * 1e6:>7.2f} {size / cpu:>10,.0f} {megabytes:>8,.0f}"
                  f"  {before} -> {_load_average()}", flush=True)  # fmt: skip
            print(f"    {summary.splitlines()[0]}", flush=True)
            for leftover in Path(tmp).iterdir():
                shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()
    print(f"target: {TARGET:,} events/s end to end at 5M")


if __name__ == "__main__":
    main()
