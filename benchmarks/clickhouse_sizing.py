"""How big the ClickHouse events table grows and how fast it takes rows: the figures docs/clickhouse.md sizes with.

    python benchmarks/clickhouse_sizing.py [--events 1000000] [--batch 100000] [--users 20000]

Generates SDK-like events (the properties of ``capture_bench.py``: URL, browser, OS, a session id, an amount;
random UUIDv4 event uuids, 30 days, ``--users`` people), inserts them into the engine's own ``events`` table
(:mod:`local_backend.store.clickhouse.schema`) through ``ChdbClient.insert_arrow`` in batches of ``--batch``
rows, merges the parts, and prints rows per second of insert, bytes on disk per million events (total and by
column) and two query times. chdb runs the same storage engine as a server, so bytes per event carry over;
insert rates over HTTP also pay the network and the server's parsing of Arrow, so measure those on the server.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time

import numpy as np
import pyarrow as pa

from local_backend.store.clickhouse.client import ChdbClient
from local_backend.store.clickhouse.schema import create_tables

NAMES = np.array(["$pageview", "$pageview", "$pageview", "$autocapture", "signed_up", "onboarding_done", "purchase"])
PAGES = np.array(["pricing", "docs", "home", "settings"])
BROWSERS = np.array(["Chrome", "Safari", "Firefox", "Edge"])
SYSTEMS = np.array(["Mac OS X", "Windows", "Linux"])
START_US = 1_759_276_800_000_000  # 2025-10-01 UTC
SPAN_US = 30 * 86_400_000_000


def batch(rng: np.random.Generator, start: int, count: int, users: int) -> pa.Table:
    """``count`` events, numbered from ``start``, as the Arrow columns the events table takes."""
    user = rng.integers(0, users, count)
    timestamps = START_US + (np.arange(start, start + count, dtype=np.int64) * (SPAN_US // 10_000_000))
    session = (user.astype(np.int64) << 20) + (timestamps // 1_800_000_000)  # a session per user per half hour
    pages, browsers, systems = PAGES[rng.integers(0, 4, count)], BROWSERS[user % 4], SYSTEMS[user % 3]
    amounts = rng.integers(1, 500, count)
    properties = [
        json.dumps(
            {
                "$current_url": f"https://app.example.com/{page}",
                "$browser": browser,
                "$os": system,
                "$session_id": f"0192{sid:028x}",
                "amount": int(amount),
            }
        )
        for page, browser, system, sid, amount in zip(pages, browsers, systems, session, amounts, strict=True)
    ]
    uuids = [f"{high:016x}{low:016x}" for high, low in rng.integers(0, 2**63, (count, 2))]
    return pa.table(
        {
            "project_id": pa.array(np.ones(count, dtype=np.int64)),
            "uuid": [f"{u[:8]}-{u[8:12]}-4{u[13:16]}-a{u[17:20]}-{u[20:]}" for u in uuids],
            "event": NAMES[rng.integers(0, len(NAMES), count)],
            "distinct_id": np.char.add("user-", user.astype(str)),
            "person_id": pa.array(user.astype(np.int64) + 1),
            "timestamp": pa.array(timestamps),
            "created_at": pa.array(timestamps),
            "properties": properties,
            "elements_chain": pa.array([""] * count),
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=20_000)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="insightlab-sizing-")
    try:
        client = ChdbClient.open(folder, "sizing")
        create_tables(client)
        rng = np.random.default_rng(7)
        batches = [
            batch(rng, start, min(args.batch, args.events - start), args.users)
            for start in range(0, args.events, args.batch)
        ]
        raw = sum(table.nbytes for table in batches)
        began = time.perf_counter()
        for table in batches:
            client.insert_arrow("events", table)
        seconds = time.perf_counter() - began
        client.command("OPTIMIZE TABLE sizing.events FINAL")
        ((on_disk, compressed, uncompressed, parts),) = client.query_rows(
            "SELECT sum(bytes_on_disk), sum(data_compressed_bytes), sum(data_uncompressed_bytes), count() "
            "FROM system.parts WHERE database = 'sizing' AND table = 'events' AND active"
        )
        columns = client.query_rows(
            "SELECT name, data_compressed_bytes, data_uncompressed_bytes FROM system.columns "
            "WHERE database = 'sizing' AND table = 'events' ORDER BY data_compressed_bytes DESC"
        )
        per_million = 1_000_000 / args.events
        print(f"events: {args.events:,} in batches of {args.batch:,}; Arrow in memory {raw / 2**20:.0f} MiB")
        print(f"insert: {seconds:.2f} s, {args.events / seconds:,.0f} rows/s (ChdbClient.insert_arrow)")
        print(
            f"on disk after merge: {on_disk / 2**20:.1f} MiB in {parts} part(s); per 1M events "
            f"{on_disk * per_million / 2**20:.1f} MiB ({compressed / max(on_disk, 1):.0%} column data), "
            f"{on_disk / args.events:.1f} bytes/event; compression {uncompressed / max(compressed, 1):.1f}x"
        )
        for name, packed, unpacked in columns:
            print(
                f"  {name:<16} {packed * per_million / 2**20:8.1f} MiB per 1M compressed"
                f" ({unpacked / max(packed, 1):5.1f}x)"
            )
        for label, sql in (
            (
                "daily count of $pageview",
                "SELECT day, count() FROM sizing.events WHERE project_id = 1 AND event = '$pageview' GROUP BY day",
            ),
            (
                "daily unique persons",
                "SELECT day, uniqExact(person_id) FROM sizing.events WHERE project_id = 1 GROUP BY day",
            ),
        ):
            began = time.perf_counter()
            client.query_rows(sql)
            print(f"query: {label}: {(time.perf_counter() - began) * 1000:.0f} ms")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
