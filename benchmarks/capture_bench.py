"""Events per second into the store: ``ingest_events`` itself, and ``POST /batch/`` on a live server.

    python benchmarks/capture_bench.py [--events 200000] [--call-size 50000] [--http-events 60000]
                                       [--batch-size 500] [--senders 2] [--gzip] [--repeat 1]

1. ``ingest_events``: SDK-like events (a few properties, 20,000 users, some ``$set``, session ids that are
   UUIDv7 from the session's start as posthog-js makes them, no uuids, as a bulk load sends them) in calls
   of ``--call-size``. The reference is a bare ``executemany`` of the very rows ingestion stored, into a
   fresh database with the same schema: the cost of SQLite and the indexes alone.
2. ``/batch/``: a server started on a loopback port, ``--senders`` threads posting batches of
   ``--batch-size`` events (with uuids, as the SDKs send them; bodies encoded before the clock starts).
   The reference is a bare ``executemany`` of the rows the server stored, one transaction per batch: what
   SQLite and the indexes alone allow at that transaction size.

Each line also shows events per CPU-second of the process doing the work (the server's, for ``/batch/``),
which moves less than wall-clock rates when other work shares the machine. Run it on a quiet machine;
wall-clock numbers from a shared machine are indicative only.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import sqlite3
import statistics
import tempfile
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import requests

from local_backend.ingestion import ingest_events
from local_backend.ingestion.writer import WAL_AUTOCHECKPOINT_PAGES
from local_backend.store.engine.choice import open_database
from local_backend.store.ids import time_ordered_uuid
from local_backend.store.migrations import migrate
from local_backend.store.projects import create_project
from toolkit import local

NAMES = ["$pageview", "$pageview", "$pageview", "$autocapture", "signed_up", "onboarding_done", "purchase"]
BROWSERS = ["Chrome", "Safari", "Firefox", "Edge"]
START = datetime(2025, 10, 1, tzinfo=UTC)
COLUMNS = (
    "uuid, project_id, event, distinct_id, person_id, timestamp, properties, group_0, group_1, group_2, group_3,"
    " group_4, created_at"
)


def make_events(count: int, *, seed: int = 7, with_uuid: bool = False) -> list[dict]:
    rng = random.Random(seed)
    events = []
    sessions: dict[tuple[int, int], str] = {}
    for n in range(count):
        user = rng.randrange(20_000)
        block = n // 50
        if (user, block) not in sessions:  # posthog-js makes session ids UUIDv7 at the session's start
            started = START + timedelta(seconds=n * 7)
            sessions[user, block] = time_ordered_uuid(int(started.timestamp() * 1000), rng.getrandbits(74))
        properties = {
            "$current_url": f"https://app.example.com/{rng.choice(['pricing', 'docs', 'home', 'settings'])}",
            "$browser": rng.choice(BROWSERS),
            "$os": rng.choice(["Mac OS X", "Windows", "Linux"]),
            "$session_id": sessions[user, block],
            "amount": rng.randrange(1, 500),
        }
        if n % 20 == 0:
            properties["$set"] = {"plan": rng.choice(["free", "pro"]), "email": f"user{user}@example.com"}
        event = {
            "event": rng.choice(NAMES),
            "distinct_id": f"user-{user}",
            "timestamp": (START + timedelta(seconds=n * 7)).isoformat(),
            "properties": properties,
        }
        if with_uuid:
            event["uuid"] = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        events.append(event)
    return events


def fresh_database(folder: Path, name: str) -> tuple[sqlite3.Connection, dict]:
    path = folder / name
    migrate(path)
    conn = open_database(path)
    project = create_project(conn, name="Bench", timezone="UTC", now="2026-01-15T12:00:00Z")
    return conn, project


def server_cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bare_insert_rates(rows: list[tuple], transaction_size: int, folder: Path) -> tuple[float, float]:
    """A bare ``executemany`` of ``rows`` into a fresh database, one transaction per ``transaction_size`` rows:
    the cost of SQLite and the event indexes alone. Returns (events/s, events per CPU-second)."""
    for stale in folder.glob("bare.db*"):
        stale.unlink()
    bare, _ = fresh_database(folder, "bare.db")
    bare.execute(f"PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT_PAGES}")  # as ingestion runs
    marks = ", ".join("?" * len(COLUMNS.split(",")))
    started, cpu = time.perf_counter(), time.process_time()
    for start in range(0, len(rows), transaction_size):
        bare.execute("BEGIN IMMEDIATE")
        bare.executemany(f"INSERT INTO events ({COLUMNS}) VALUES ({marks})", rows[start : start + transaction_size])
        bare.execute("COMMIT")
    rates = len(rows) / (time.perf_counter() - started), len(rows) / (time.process_time() - cpu)
    bare.close()
    return rates


def bench_ingest(events: list[dict], call_size: int, folder: Path) -> None:
    conn, project = fresh_database(folder, "ingest.db")
    now = datetime(2026, 1, 15, 12, tzinfo=UTC)
    started, cpu = time.perf_counter(), time.process_time()
    accepted = 0
    for start in range(0, len(events), call_size):
        accepted += ingest_events(conn, project, events[start : start + call_size], now=now).accepted
    ingest_rate = accepted / (time.perf_counter() - started)
    ingest_cpu_rate = accepted / (time.process_time() - cpu)
    rows = conn.execute(f"SELECT {COLUMNS} FROM events ORDER BY id").fetchall()
    conn.close()

    bare_rate, bare_cpu_rate = bare_insert_rates(rows, call_size, folder)
    print(
        f"ingest_events        {accepted:>9,} events  {ingest_rate:>10,.0f} events/s"
        f"  {ingest_cpu_rate:>10,.0f} per CPU-s  (calls of {call_size:,})"
    )
    print(
        f"bare executemany     {len(rows):>9,} events  {bare_rate:>10,.0f} events/s  {bare_cpu_rate:>10,.0f} per CPU-s"
        "  (same rows, same schema)"
    )
    print(f"ratio ingest / bare  {ingest_rate / bare_rate:.2f} (wall)  {ingest_cpu_rate / bare_cpu_rate:.2f} (CPU)")


def bench_http(count: int, batch_size: int, senders: int, use_gzip: bool, folder: Path) -> tuple[float, float]:
    """Post ``count`` events to a fresh server; prints and returns (events/s, events per server CPU-second)."""
    events = make_events(count, seed=11, with_uuid=True)
    for stale in folder.glob("http.db*"):
        stale.unlink()
    with local.start(folder / "http.db", demo=False) as server:
        token = server.project_token()
        bodies = []
        for start in range(0, len(events), batch_size):
            body = json.dumps({"api_key": token, "batch": events[start : start + batch_size]}).encode()
            bodies.append(gzip.compress(body, compresslevel=1) if use_gzip else body)
        headers = {"Content-Type": "application/json", **({"Content-Encoding": "gzip"} if use_gzip else {})}
        accepted = [0] * senders
        failures: list[str] = []

        def send(number: int) -> None:
            with requests.Session() as session:
                for body in bodies[number::senders]:
                    answer = session.post(f"{server.base_url}/batch/", data=body, headers=headers, timeout=120)
                    if answer.status_code != 200:
                        failures.append(f"{answer.status_code}: {answer.text[:200]}")
                        continue
                    accepted[number] += answer.json()["accepted"]

        threads = [threading.Thread(target=send, args=(n,)) for n in range(senders)]
        started, cpu = time.perf_counter(), server_cpu_seconds(server.process.pid)
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
        server_cpu = server_cpu_seconds(server.process.pid) - cpu
    stored = open_database(folder / "http.db")
    rows = stored.execute(f"SELECT {COLUMNS} FROM events ORDER BY id").fetchall()
    stored.close()
    bare_rate, bare_cpu_rate = bare_insert_rates(rows, batch_size, folder)
    if failures:
        print(f"{len(failures)} requests failed, first: {failures[0]}")
    label = "gzip" if use_gzip else "plain"
    print(
        f"POST /batch/ ({label})  {sum(accepted):>9,} events  {sum(accepted) / elapsed:>10,.0f} events/s"
        f"  {sum(accepted) / max(server_cpu, 1e-9):>10,.0f} per server CPU-s"
        f"  (batches of {batch_size}, {senders} senders)"
    )
    print(
        f"bare executemany     {len(rows):>9,} events  {bare_rate:>10,.0f} events/s  {bare_cpu_rate:>10,.0f} per CPU-s"
        f"  (same rows, one transaction per {batch_size:,})"
    )
    return sum(accepted) / elapsed, sum(accepted) / max(server_cpu, 1e-9)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--call-size", type=int, default=50_000)
    parser.add_argument("--http-events", type=int, default=60_000)
    parser.add_argument("--batch-size", type=int, default=500)
    parser.add_argument("--senders", type=int, default=2)
    parser.add_argument("--gzip", action="store_true", help="compress /batch/ bodies")
    parser.add_argument("--repeat", type=int, default=1, help="/batch/ runs, each on a fresh server; prints medians")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="capture-bench-") as folder:
        if args.events:
            bench_ingest(make_events(args.events), args.call_size, Path(folder))
        runs = [
            bench_http(args.http_events, args.batch_size, args.senders, args.gzip, Path(folder))
            for _ in range(args.repeat if args.http_events else 0)
        ]
        if len(runs) > 1:
            print(
                f"POST /batch/ median of {len(runs)}: {statistics.median(r[0] for r in runs):>10,.0f} events/s"
                f"  {statistics.median(r[1] for r in runs):>10,.0f} per server CPU-s"
            )


if __name__ == "__main__":
    main()
