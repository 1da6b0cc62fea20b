"""How big the ClickHouse events table grows and how fast it takes rows: the figures docs/clickhouse.md sizes with.

    python benchmarks/clickhouse_sizing.py [--events 1000000] [--batch 100000] [--users 20000]
                                           [--engine clickhouse://USER:PASSWORD@HOST:PORT/ANY[?cluster=NAME]]

Generates SDK-like events (the properties of ``capture_bench.py``: URL, browser, OS, a session id, an amount;
random UUIDv4 event uuids, 30 days, ``--users`` people), inserts them into the engine's own ``events`` table
(:mod:`local_backend.store.engine.clickhouse.schema`) through ``ChdbClient.insert_arrow`` in batches of ``--batch``
rows, merges the parts, and prints rows per second of insert, bytes on disk per million events (total and by
column) and two query times. chdb runs the same storage engine as a server, so bytes per event carry over;
insert rates over HTTP also pay the network and the server's parsing of Arrow: ``--engine`` measures a server
(through ``HttpClient``, in a scratch database ``insightlab_sizing`` that it drops at the end; on a cluster,
the bytes are those of the node asked).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from urllib.parse import urlsplit, urlunsplit

import numpy as np
import pyarrow as pa

from local_backend.store.engine.clickhouse.client import ChdbClient, ClickHouseClient
from local_backend.store.engine.clickhouse.http_client import HttpClient, parse_server_url
from local_backend.store.engine.clickhouse.schema import create_tables

NAMES = np.array(["$pageview", "$pageview", "$pageview", "$autocapture", "signed_up", "onboarding_done", "purchase"])
PAGES = np.array(["pricing", "docs", "home", "settings"])
BROWSERS = np.array(["Chrome", "Safari", "Firefox", "Edge"])
SYSTEMS = np.array(["Mac OS X", "Windows", "Linux"])
START_US = 1_759_276_800_000_000  # 2025-10-01 UTC
SPAN_US = 30 * 86_400_000_000
SCRATCH = "insightlab_sizing"


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


def open_client(engine: str | None, folder: str) -> tuple[ClickHouseClient, str]:
    """A client on a scratch database (chdb in ``folder``, or ``insightlab_sizing`` on the server ``engine`` names)."""
    if engine is None:
        return ChdbClient.open(folder, SCRATCH), "events"
    address = parse_server_url(engine)
    scratch = urlunsplit(urlsplit(engine)._replace(path=f"/{SCRATCH}"))
    client = HttpClient.connect(scratch)
    return client, "events_local" if address.cluster else "events"


def measure(client: ClickHouseClient, stored_in: str, args: argparse.Namespace) -> None:
    db = f"`{client.database}`"
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
    on_cluster = f" ON CLUSTER `{client.cluster}`" if getattr(client, "cluster", None) else ""
    client.command(f"OPTIMIZE TABLE {db}.{stored_in}{on_cluster} FINAL")
    where = {"db": client.database, "table": stored_in}
    ((on_disk, compressed, uncompressed, parts, codecs),) = client.query_rows(
        "SELECT sum(bytes_on_disk), sum(data_compressed_bytes), sum(data_uncompressed_bytes), count(), "
        "arrayStringConcat(groupUniqArray(default_compression_codec), ', ') "
        "FROM system.parts WHERE database = {db:String} AND table = {table:String} AND active",
        where,
    )
    columns = client.query_rows(
        "SELECT name, data_compressed_bytes, data_uncompressed_bytes FROM system.columns "
        "WHERE database = {db:String} AND table = {table:String} ORDER BY data_compressed_bytes DESC",
        where,
    )
    per_million = 1_000_000 / args.events
    print(f"events: {args.events:,} in batches of {args.batch:,}; Arrow in memory {raw / 2**20:.0f} MiB")
    print(f"insert: {seconds:.2f} s, {args.events / seconds:,.0f} rows/s ({type(client).__name__}.insert_arrow)")
    print(
        f"on disk after merge ({stored_in} on the node asked): {on_disk / 2**20:.1f} MiB in {parts} part(s); "
        f"per 1M events {on_disk * per_million / 2**20:.1f} MiB, {on_disk / args.events:.1f} bytes/event; "
        f"compression {uncompressed / max(compressed, 1):.1f}x ({codecs})"
    )
    for name, packed, unpacked in columns:
        print(
            f"  {name:<16} {packed * per_million / 2**20:8.1f} MiB per 1M compressed"
            f" ({unpacked / max(packed, 1):5.1f}x)"
        )
    for label, sql in (
        (
            "daily count of $pageview",
            f"SELECT day, count() FROM {db}.events WHERE project_id = 1 AND event = '$pageview' GROUP BY day",
        ),
        (
            "daily unique persons",
            f"SELECT day, uniqExact(person_id) FROM {db}.events WHERE project_id = 1 GROUP BY day",
        ),
    ):
        began = time.perf_counter()
        client.query_rows(sql)
        print(f"query: {label}: {(time.perf_counter() - began) * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=20_000)
    parser.add_argument("--engine", help="clickhouse://... to measure a server (in a scratch database it drops)")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="insightlab-sizing-")
    client, stored_in = open_client(args.engine, folder)
    try:
        create_tables(client)
        measure(client, stored_in, args)
    finally:
        on_cluster = f" ON CLUSTER `{client.cluster}`" if getattr(client, "cluster", None) else ""
        client.command(f"DROP DATABASE IF EXISTS `{client.database}`{on_cluster}")
        client.close()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
