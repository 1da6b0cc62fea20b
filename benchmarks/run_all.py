"""Run every benchmark in turn, each as its own process, and print what each prints.

    python benchmarks/run_all.py [--sizes 1000000 5000000] [--scale-sizes 1000000 5000000]
                                 [--chdb-sizes 5000000] [--only trends ...]

``--sizes`` are the dataset sizes of the calculation benchmarks (trends and funnels, the issue's 1M and 5M by
default; building a 5M dataset takes minutes); ``--scale-sizes`` those of ``scale_bench.py`` (load cost and
the issue's queries against DuckDB; ``make bench`` adds 20M, about an hour to load); ``--chdb-sizes`` those
of the same on the chdb engine (``make bench``: 5M and 20M). The other benchmarks run
with their own defaults. A benchmark
that fails is reported and the others still run; the exit code is 1 if any failed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def commands(sizes: list[int], scale_sizes: list[int], chdb_sizes: list[int] | None = None) -> dict[str, list[str]]:
    """Each benchmark's script and arguments, in the order the data flows: in, then calculations."""
    return {
        "plugins": ["plugin_pipeline.py"],
        "capture": ["capture_bench.py"],
        "ingest": ["ingest_bench.py"],
        "catalog": ["catalog_bench.py"],
        "trends": ["trends_bench.py", "--sizes", ",".join(str(size) for size in sizes)],
        "funnels": ["funnels_bench.py", "--events", *(str(size) for size in sizes)],
        "retention_paths": ["retention_paths_bench.py"],
        "scale": ["scale_bench.py", "--sizes", ",".join(str(size) for size in scale_sizes)],
        "scale_chdb": [
            "scale_bench.py",
            "--engine",
            "chdb",
            "--sizes",
            ",".join(str(size) for size in chdb_sizes or [5_000_000]),
            # the queries of issue 18's table; without the JSON breakdown DuckDB fits 20M events in memory
            "--only",
            "total,dau,materialized,funnel",
        ],
        "guard": ["guard_bench.py", "--events", str(min(sizes))],
        "reprocess": ["reprocess_bench.py", "--size", str(min(sizes))],
        "chdb_insert": ["chdb_insert_bench.py", "--events", str(min(sizes))],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 5_000_000])
    parser.add_argument("--scale-sizes", type=int, nargs="+", default=[1_000_000, 5_000_000])
    parser.add_argument("--chdb-sizes", type=int, nargs="+", default=[5_000_000], help="scale_bench.py --engine chdb")
    parser.add_argument("--only", nargs="+", choices=sorted(commands([1], [1])), help="run just these")
    args = parser.parse_args(argv)
    failed = []
    for name, (script, *extra) in commands(args.sizes, args.scale_sizes, args.chdb_sizes).items():
        if args.only and name not in args.only:
            continue
        print(f"\n=== {name}: {script} {' '.join(extra)}", flush=True)
        started = time.perf_counter()
        code = subprocess.call([sys.executable, str(HERE / script), *extra])
        print(f"=== {name}: {'ok' if code == 0 else f'failed (exit {code})'} in {time.perf_counter() - started:.0f} s")
        if code != 0:
            failed.append(name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
