"""The API side of the builders' calls, timed through the app on the demo database.

    python benchmarks/builder_api_bench.py [--db /tmp/builder_api_bench/demo.db] [--runs 30] [--live]
                                           [--only CALL,...] [--profile [--sort tottime]] [--json FILE]

Builds (once; reused when the file exists) the database ``make run`` seeds, ``python -m local_backend demo``
(100,000 events, seed 0), as if the clock read ``2026-01-15T12:00:00Z``, and serves it with ``create_app`` on
that fixed clock and the default SQLite engine. Each call is the body a builder's Run sends (made by the
toolkit's own request classes), posted through an in-process ``TestClient`` with the demo key (``--live``: to
``python -m local_backend serve`` on a free port, in a process of its own, as a notebook reaches ``make run``;
the in-process transport adds about 8 ms of its own to each call):

  breakdown   TrendBuilder: $pageview, total, last 30 days, broken down by $browser
  test_accounts  the same, with the project's test-account filter (a person property: email not_icontains)
  compare     TrendBuilder: $pageview, total, last 30 days, compared to the previous period
  compare_test_accounts  the same, with the test-account filter (as the builder sends it on the demo)
  funnel      FunnelBuilder: $pageview -> signed_up -> purchase, last 30 days, 14-day window
  default     TrendBuilder's start: $pageview, total, last 7 days

Target: each at most 50 ms (issue 41). For each, after two warm-up calls, the median and p95 of ``--runs``
calls, the median CPU time a call costs (the server process's with ``--live``, over all its threads; in
process, the whole process's), which other work on a shared machine disturbs far less than the wall time,
and where the time of a call goes:

  filter, query, format   the phases the envelope's ``timings`` report (parsing, the calculation, the envelope)
  sql                     the statements the calculation ran, each run again alone and fully fetched
  rest                    everything else: middleware, auth, the connection, the fields check, response model
                          validation, JSON encoding, the transport (HTTP, or the in-process client's threads)

``--profile`` adds the functions where a call spends its time (cProfile in every thread, merged), ordered
by ``--sort`` (``cumulative``; ``tottime`` for each function's own time).
The machine is shared: the load average is printed with the numbers.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import requests
from fastapi.testclient import TestClient

from local_backend.app import create_app
from local_backend.clock import FixedClock
from local_backend.config import Settings
from local_backend.store.accounts import stored_demo_key
from local_backend.store.engine.choice import open_database
from toolkit import event
from toolkit.funnel_request import FunnelRequest
from toolkit.insight_requests import TrendRequest

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
TARGET_SECONDS = 0.050
# the profile lists the app's own functions and the libraries a request crosses, not the client's waits
_OURS = "local_backend|fastapi|starlette|pydantic|json|sqlite3"
CALLS: dict[str, tuple[str, Any]] = {
    "breakdown": (
        "trend",
        TrendRequest(
            events=[event("$pageview")],
            date_from="-30d",
            interval="day",
            display="ActionsLineGraph",
            breakdown="$browser",
            breakdown_type="event",
        ),
    ),
    "test_accounts": (
        "trend",
        TrendRequest(
            events=[event("$pageview")],
            date_from="-30d",
            interval="day",
            display="ActionsLineGraph",
            breakdown="$browser",
            breakdown_type="event",
            filter_test_accounts=True,
        ),
    ),
    "compare": (
        "trend",
        TrendRequest(
            events=[event("$pageview")], date_from="-30d", interval="day", display="ActionsLineGraph", compare=True
        ),
    ),
    "compare_test_accounts": (
        "trend",
        TrendRequest(
            events=[event("$pageview")],
            date_from="-30d",
            interval="day",
            display="ActionsLineGraph",
            compare=True,
            filter_test_accounts=True,
        ),
    ),
    "funnel": (
        "funnel",
        FunnelRequest(
            steps=[event("$pageview"), event("signed_up"), event("purchase")],
            date_from="-30d",
            interval="day",
            funnel_order_type="ordered",
            funnel_window_interval=14,
            funnel_window_interval_unit="day",
            funnel_viz_type="steps",
        ),
    ),
    "default": (
        "trend",
        TrendRequest(events=[event("$pageview")], date_from="-7d", interval="day", display="ActionsLineGraph"),
    ),
}


def build(path: Path) -> None:
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    now = NOW.isoformat().replace("+00:00", "Z")
    subprocess.run(
        [sys.executable, "-m", "local_backend", "demo", "--db", str(path), "--now", now],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    print(f"built {path} in {time.perf_counter() - started:.0f} s", flush=True)


def demo_access(path: Path) -> tuple[int, str]:
    conn = open_database(path)
    try:
        project_id = conn.execute("SELECT id FROM projects WHERE is_demo = 1 ORDER BY id LIMIT 1").fetchone()[0]
        user_id = conn.execute("SELECT id FROM users ORDER BY id LIMIT 1").fetchone()[0]
        key = stored_demo_key(conn, user_id=user_id)
    finally:
        conn.close()
    assert key is not None, "the demo database keeps its key"
    return project_id, key


@contextmanager
def traced_statements(app: Any) -> Iterator[list[str]]:
    """Every SQL statement the connections ``app`` lends to requests run while inside (their text, parameters
    inlined by SQLite)."""
    pool = app.state.connections
    statements: list[str] = []
    original = pool.take

    def tracing() -> Any:
        conn = original()
        conn.set_trace_callback(statements.append)  # removed when the pool takes the connection back
        return conn

    pool.take = tracing
    try:
        yield statements
    finally:
        del pool.take  # the class's own again


def sql_seconds(path: Path, statements: list[str], runs: int = 5) -> tuple[float, list[tuple[float, str]]]:
    """The median time of the calculation's statements run alone (fully fetched), and each one's."""
    conn = open_database(path)
    from local_backend.store.engine.choice import event_store

    event_store(conn)  # registers the SQL functions the statements call
    wanted = [text for text in statements if text.lstrip().upper().startswith(("SELECT", "WITH"))]
    each = []
    for text in wanted:
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            conn.execute(text).fetchall()
            times.append(time.perf_counter() - started)
        each.append((statistics.median(times), text))
    conn.close()
    return sum(seconds for seconds, _ in each), each


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


class LiveClient:
    """Posts to a server over one kept-alive HTTP connection, as the toolkit's session does."""

    def __init__(self, base: str, key: str, pid: int) -> None:
        self.base = base
        self.pid = pid
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {key}"

    def cpu_seconds(self) -> float:
        """The CPU time the server process has used, over all its threads (from /proc, in nanoseconds)."""
        total = 0
        for task in Path(f"/proc/{self.pid}/task").iterdir():
            try:
                total += int((task / "schedstat").read_text().split()[0])
            except (FileNotFoundError, ProcessLookupError):  # a worker thread that just ended
                continue
        return total / 1e9

    def post(self, url: str, *, content: str, headers: dict[str, str]) -> requests.Response:
        return self.session.post(f"{self.base}{url}", data=content, headers=headers, timeout=60)


@contextmanager
def live_client(path: Path, key: str) -> Iterator[LiveClient]:
    """A client of the backend served from ``path`` by ``python -m local_backend serve`` (clock at :data:`NOW`)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    now = NOW.isoformat().replace("+00:00", "Z")
    command = [sys.executable, "-m", "local_backend", "serve", "--db", str(path), "--port", str(port), "--now", now]
    server = subprocess.Popen([*command, "--auto-materialize-every", "0"], stderr=subprocess.DEVNULL)
    client = LiveClient(f"http://127.0.0.1:{port}", key, server.pid)
    try:
        for _ in range(400):
            try:
                client.session.get(f"{client.base}/_health", timeout=5)
                break
            except requests.ConnectionError:
                time.sleep(0.05)
        yield client
    finally:
        client.session.close()
        server.terminate()
        server.wait(timeout=10)


def time_call(
    client: Any, url: str, body: str, runs: int
) -> tuple[list[float], list[float], dict[str, list[float]], Any]:
    """Wall times, CPU times (the server's; in process, the whole process's, the client's included), phases."""
    headers = {"Content-Type": "application/json"}
    for _ in range(2):
        client.post(url, content=body, headers=headers).raise_for_status()
    cpu = getattr(client, "cpu_seconds", time.process_time)
    totals: list[float] = []
    cpus: list[float] = []
    phases: dict[str, list[float]] = {}
    answer: Any = None
    for _ in range(runs):
        used, started = cpu(), time.perf_counter()
        response = client.post(url, content=body, headers=headers)
        totals.append(time.perf_counter() - started)
        cpus.append(cpu() - used)
        response.raise_for_status()
        answer = response.json()
        for item in answer.get("timings", []):
            phases.setdefault(item["k"].lstrip("./"), []).append(item["t"])
    return totals, cpus, phases, answer["result"]


def profiled(app: Any, key: str, url: str, body: str, runs: int, sort: str = "tottime", lines: int = 25) -> str:
    """The top functions of ``runs`` calls, by own time, profiled in every thread (the calculation runs in
    one): a client of its own, so that its event loop and worker threads start under the profiler."""
    profilers: list[cProfile.Profile] = []

    def start_in_thread(*_: Any) -> None:
        sys.setprofile(None)
        profiler = cProfile.Profile()
        profilers.append(profiler)
        profiler.enable()

    threading.setprofile(start_in_thread)
    main = cProfile.Profile()
    profilers.append(main)
    main.enable()
    try:
        with TestClient(app, headers={"Authorization": f"Bearer {key}"}) as client:
            for _ in range(runs):
                client.post(url, content=body, headers={"Content-Type": "application/json"}).raise_for_status()
    finally:
        main.disable()
        threading.setprofile(None)  # type: ignore[arg-type]
    for profiler in profilers:
        profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profilers[0], stream=out)
    for profiler in profilers[1:]:
        try:
            stats.add(profiler)
        except TypeError:  # a worker thread that never ran a call
            continue
    stats.sort_stats(sort).print_stats(_OURS, lines)
    return out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, default=Path("/tmp/builder_api_bench/demo.db"))
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--sort", default="cumulative", help="the profile's order: cumulative, tottime, ...")
    parser.add_argument("--live", action="store_true", help="call a server process over HTTP")
    parser.add_argument("--only", default=",".join(CALLS), help="comma-separated call names")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args()
    build(args.db)
    project_id, key = demo_access(args.db)
    settings = Settings(db_path=args.db, clock=FixedClock(NOW), materialize_auto_interval=0)
    app = create_app(settings)
    auth = {"Authorization": f"Bearer {key}"}
    transport = "HTTP to a server process" if args.live else "in-process TestClient"
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {args.runs} runs per call; {transport}")
    header = f"{'call':<21} {'median ms':>9} {'p95 ms':>7} {'cpu ms':>6} {'target':>7} | {'filter':>6} {'query':>6}"
    print(f"{header} {'format':>6} {'sql':>6} {'rest':>6}  (medians, ms)")
    numbers: dict[str, Any] = {}
    client_of = (lambda: live_client(args.db, key)) if args.live else (lambda: TestClient(app, headers=auth))
    with client_of() as client:
        for name in args.only.split(","):
            endpoint, request = CALLS[name]
            url = f"/api/projects/{project_id}/insights/{endpoint}/"
            body = request.to_json()
            with traced_statements(app) as statements, TestClient(app, headers=auth) as traced:
                traced.post(url, content=body, headers={"Content-Type": "application/json"}).raise_for_status()
            sql, each = sql_seconds(args.db, statements)
            totals, cpus, phases, _ = time_call(client, url, body, args.runs)
            median = statistics.median(totals)
            phase = {key: statistics.median(values) for key, values in phases.items()}
            timed = sum(phase.values())
            verdict = "ok" if median <= TARGET_SECONDS else "MISSED"
            print(
                f"{name:<21} {median * 1e3:9.1f} {percentile(totals, 0.95) * 1e3:7.1f}"
                f" {statistics.median(cpus) * 1e3:6.1f} {verdict:>7} |"
                f" {phase.get('filter', 0) * 1e3:6.1f} {phase.get('query', 0) * 1e3:6.1f}"
                f" {phase.get('format', 0) * 1e3:6.1f} {sql * 1e3:6.1f} {(median - timed) * 1e3:6.1f}",
                flush=True,
            )
            numbers[name] = {
                "median": median,
                "p95": percentile(totals, 0.95),
                "cpu": statistics.median(cpus),
                "phases": phase,
                "sql": sql,
                "statements": [(seconds, text[:300]) for seconds, text in each],
            }
            if args.profile:
                for seconds, text in each:
                    print(f"    sql {seconds * 1e3:6.1f} ms  {' '.join(text.split())[:160]}")
                print(profiled(app, key, url, body, max(5, args.runs // 3), sort=args.sort, lines=45))
    if args.json:
        args.json.write_text(json.dumps(numbers, indent=1))


if __name__ == "__main__":
    main()
