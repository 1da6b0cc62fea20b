"""Where ``make test-fast`` spends its time, and the part no faster test code can take away: ClickHouse's own work.

    python benchmarks/suite_floor.py [--workers 2] [pytest arguments, default: make test-fast's selection]

Runs the suite as ``make test-fast`` runs it (pytest-xdist, a file's tests in one process, the schemathesis file
left out), with every chdb statement of every worker timed where it enters chdb. Each process's calls are
grouped by what the statement is; the sums are printed beside the run's wall and CPU time.

The calculation tests run on chdb as well as SQLite (where engines can differ), each on a handful of rows; a
statement then costs what ClickHouse takes to parse and analyse it, not to read rows: 2-25 ms, growing with the
statement's size (a stored property column's expression alone is about 10 ms to analyse, and an insert into
``events`` analyses all eight of them). That time is the floor of those tests: only fewer statements would
lower it, and every one is a test's own calculation or its data. The floor of the whole run is that time plus
everything else the tests do, spread over the cores; the printed ``chdb share`` says how much of the run's CPU
is ClickHouse's.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAST = [
    "tests",
    "--ignore=tests/browser",
    "--ignore=tests/backend/web/test_schemathesis.py",
    "-m",
    "not browser and not slow and not live",
]
# what a statement is, by how its text starts (the first that matches)
KINDS = (
    ("INSERT INTO", "inserts (a test's data, a load)"),
    ("SELECT name, engine", "test database checks"),
    ("TRUNCATE", "test database emptied"),
    ("SELECT 1 FROM", "merge checks"),
    ("SELECT name FROM system.columns", "stored column look-ups"),
    ("SELECT count() FROM system.columns", "stored column look-ups"),
    ("SELECT table, name", "test database checks"),
    ("ALTER", "schema changes"),
    ("CREATE", "schema changes"),
    ("DROP", "schema changes"),
    ("SET ", "statement limits set and reset"),
    ("SELECT", "calculations and other reads"),
)
PLUGIN = """
import atexit, collections, json, os, time
import chdb.session
KINDS = {kinds!r}
_times = collections.defaultdict(lambda: [0, 0.0])
_query = chdb.session.Session.query
def _timed(self, sql, *args, **kwargs):
    started = time.perf_counter()
    try:
        return _query(self, sql, *args, **kwargs)
    finally:
        text = sql.lstrip()
        kind = next((name for start, name in KINDS if text.startswith(start)), "other statements")
        entry = _times[kind]
        entry[0] += 1
        entry[1] += time.perf_counter() - started
chdb.session.Session.query = _timed
@atexit.register
def _write():
    with open(os.path.join({folder!r}, f"{{os.getpid()}}.json"), "w") as out:
        json.dump(dict(_times), out)
"""


def _cpu_of_children() -> float:
    usage = os.times()
    return usage.children_user + usage.children_system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    options, pytest_args = parser.parse_known_args()
    with tempfile.TemporaryDirectory(prefix="suite-floor-") as folder:
        plugin = Path(folder) / "chdb_statement_timer.py"
        plugin.write_text(PLUGIN.format(kinds=KINDS, folder=folder))
        command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "chdb_statement_timer", "-q"]
        command += ["-n", str(options.workers), "--dist", "loadfile", *(pytest_args or FAST)]
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join([folder, str(ROOT)])}
        cpu, started = _cpu_of_children(), time.perf_counter()
        run = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, check=False)
        wall, cpu = time.perf_counter() - started, _cpu_of_children() - cpu
        totals: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0])
        for written in Path(folder).glob("*.json"):
            for kind, (count, seconds) in json.loads(written.read_text()).items():
                totals[kind][0] += count
                totals[kind][1] += seconds
    summary = [line for line in run.stdout.splitlines() if " passed" in line or " failed" in line]
    print(summary[-1] if summary else run.stdout[-2000:] + run.stderr[-2000:])
    chdb = sum(seconds for _, seconds in totals.values())
    print(f"wall {wall:.0f} s, CPU {cpu:.0f} s on {options.workers} workers; inside chdb {chdb:.0f} s")
    print(f"{'statements':>10} {'seconds':>8} {'ms each':>8}  what")
    for kind, (count, seconds) in sorted(totals.items(), key=lambda item: -item[1][1]):
        print(f"{count:>10.0f} {seconds:>8.1f} {1000 * seconds / count:>8.1f}  {kind}")
    print(f"chdb share of the run's CPU: {chdb / cpu:.0%}; that time alone over {options.workers} cores: "
          f"{chdb / options.workers:.0f} s of wall")  # fmt: skip
    sys.exit(run.returncode)


if __name__ == "__main__":
    main()
