"""A plugin's ``reprocess_events`` job over every stored event: events/s on SQLite and on chdb.

    python benchmarks/reprocess_bench.py [--size 1000000] [--engines sqlite,chdb]
                                         [--cache-dir /tmp/bulk-load-bench]

The events are ``bulk_load_bench.py``'s demo file (made once and kept in ``--cache-dir``), loaded with
``load-events`` into a fresh database per engine. The job runs the Property Filter with ``$ip`` listed, so
every event that has it is changed and rewritten: the reading, the plugin, and the rewrite (one SQLite
transaction; on ClickHouse a staged table applied at the end) are all timed. SQLite is the reference.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bulk_load_bench import _ROOT, _cli, _load_average, events_file

sys.path.insert(0, str(_ROOT))

from local_backend.plugins.catalog import get_plugin  # noqa: E402
from local_backend.plugins.jobs import reprocess_events  # noqa: E402
from local_backend.store.engine.choice import open_database  # noqa: E402

PLUGIN_ID = 1  # Property Filter
CONFIG = {"event_properties": "$ip", "person_properties": ""}


def run(source: Path, workdir: Path, engine: str) -> tuple[float, float, dict[str, int]]:
    """Wall and CPU seconds of the job over every event of ``source`` loaded into ``engine``, and its counts."""
    database = workdir / f"{engine}.db"
    _cli("create-project", "--db", str(database), "--name", "bench", "--timezone", "UTC", "--engine", engine)
    _cli("load-events", "--db", str(database), "--project", "1", str(source), "--quiet")
    conn = open_database(database)
    plugin = get_plugin(PLUGIN_ID)
    payload = {"date_from": "1970-01-01", "date_to": datetime.now(UTC).date().isoformat()}
    cpu, started = time.process_time(), time.perf_counter()
    counts = reprocess_events(conn, project_id=1, process_event=plugin.process_event, config=CONFIG, payload=payload)
    wall = time.perf_counter() - started
    conn.close()
    return wall, time.process_time() - cpu, counts.as_dict()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--engines", default="sqlite,chdb")
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "bulk-load-bench")
    args = parser.parse_args()
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    source = events_file(args.cache_dir, args.size, "jsonl")
    print(f"reprocess_events (Property Filter, $ip) over {args.size:,} demo events, fresh database per engine")
    print(f"{'engine':>8} {'wall ev/s':>10} {'CPU ev/s':>10} {'changed':>10}  vs sqlite  load avg before -> after")
    reference = None
    with tempfile.TemporaryDirectory(prefix="reprocess-bench-") as tmp:
        for engine in args.engines.split(","):
            before = _load_average()
            wall, cpu, counts = run(source, Path(tmp), engine)
            rate = args.size / wall
            reference = reference or (rate if engine == "sqlite" else None)
            ratio = f"{rate / reference:.2f}x" if reference else "-"
            print(f"{engine:>8} {rate:>10,.0f} {args.size / cpu:>10,.0f} {counts['changed']:>10,}  {ratio:>9}"
                  f"  {before} -> {_load_average()}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
