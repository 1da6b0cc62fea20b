"""How closely the chdb engine holds a calculation's time limit, and how long capture waits meanwhile.

    python benchmarks/clickhouse_time_limit.py [--runs 5] [--captures 20]

Three measures, on a chdb folder of its own:

* **one slow statement**: a cross join of two 60,000-row ranges (about 9 s whole on one core) read through the
  event store under a guard of 0.5, 1 and 3 s: the time until :class:`~local_backend.errors.QueryTimeout`, and
  its overshoot past the limit (median and worst of ``--runs``);
* **many statements**: statements of about 0.5 s each (a smaller cross join), one after another, under a limit
  of 3 s: a calculation of many statements, each given only the time left;
* **capture during a read**: ``POST /batch/`` of 3 events, ``--captures`` times while a 6 s read runs on the same
  engine and as many times with nothing else running (median and worst answer time).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastapi.testclient import TestClient  # noqa: E402

from local_backend.app import create_app  # noqa: E402
from local_backend.clock import SystemClock, format_instant  # noqa: E402
from local_backend.config import Settings  # noqa: E402
from local_backend.errors import QueryTimeout  # noqa: E402
from local_backend.guard import CalculationGuard  # noqa: E402
from local_backend.store.engine.choice import (
    choose_engine,  # noqa: E402
    open_database,  # noqa: E402
)
from local_backend.store.engine.clickhouse.engine import client_for  # noqa: E402
from local_backend.store.engine.clickhouse.event_store import ClickHouseEventStore  # noqa: E402
from local_backend.store.engine.spec import parse_engine  # noqa: E402
from local_backend.store.migrations import migrate  # noqa: E402
from local_backend.store.projects import create_project  # noqa: E402

SLOW = "SELECT count() FROM numbers(60000) AS a, numbers(60000) AS b WHERE (a.number * 7 + b.number) % 1000003 = 1"
STEP = "SELECT count() FROM numbers(15000) AS a, numbers(15000) AS b WHERE (a.number * 7 + b.number) % 1000003 = 1"


def time_to_timeout(store: ClickHouseEventStore, conn, limit: float, statement: str, repeat: int) -> float:
    guard = CalculationGuard(timeout_seconds=limit)
    started = time.monotonic()
    try:
        with guard.watching(conn):
            for _ in range(repeat):
                store._rows(statement, [])
    except QueryTimeout:
        return time.monotonic() - started
    raise AssertionError("the calculation finished inside its limit")


def summary(seconds: list[float], limit: float = 0.0) -> str:
    over = [value - limit for value in seconds]
    return f"median {statistics.median(seconds):6.3f} s  worst {max(seconds):6.3f} s" + (
        f"  overshoot median {statistics.median(over):6.3f} s  worst {max(over):6.3f} s" if limit else ""
    )


def capture_times(client: TestClient, token: str, count: int) -> list[float]:
    times = []
    for number in range(count):
        batch = [{"event": "bench", "distinct_id": f"u{number}-{k}", "properties": {"k": k}} for k in range(3)]
        started = time.monotonic()
        answer = client.post("/batch/", json={"api_key": token, "batch": batch})
        times.append(time.monotonic() - started)
        assert answer.status_code == 200, answer.text
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--captures", type=int, default=20)
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="insightlab-time-limit-"))
    db_path = folder / "bench.db"
    migrate(db_path)
    conn = open_database(db_path)
    choose_engine(conn, parse_engine(f"chdb:{folder / 'chdb'}"))
    project = create_project(conn, name="Bench", timezone="UTC", now=format_instant(SystemClock().now()))
    conn.commit()
    store = ClickHouseEventStore(conn, client_for(conn))

    print("one slow statement (about 9 s whole):")
    for limit in (0.5, 1.0, 3.0):
        seconds = [time_to_timeout(store, conn, limit, SLOW, 1) for _ in range(args.runs)]
        print(f"  limit {limit:3.1f} s: {summary(seconds, limit)}")
    seconds = [time_to_timeout(store, conn, 3.0, STEP, 100) for _ in range(args.runs)]
    print(f"many statements of about 0.5 s, limit 3.0 s: {summary(seconds, 3.0)}")

    ch = client_for(conn)
    with TestClient(create_app(Settings(db_path=db_path)), raise_server_exceptions=False) as client:
        idle = capture_times(client, project["api_token"], args.captures)
        reader = threading.Thread(target=lambda: _stopped_read(ch))
        reader.start()
        time.sleep(0.3)
        busy = capture_times(client, project["api_token"], args.captures)
        running = reader.is_alive()
        reader.join()
    print(f"capture of 3 events, nothing else running: {summary(idle)}")
    print(f"capture of 3 events during a 6 s read:    {summary(busy)}  (read still running at the end: {running})")
    conn.close()
    return 0


def _stopped_read(ch) -> None:
    try:
        ch.query_rows(SLOW, timeout=6)
    except Exception as error:  # noqa: BLE001 - stopped at its limit, as intended
        if "TIMEOUT_EXCEEDED" not in str(error):
            raise


if __name__ == "__main__":
    raise SystemExit(main())
