"""The events' ``day`` column, which daily counts over whole UTC days read instead of the time.

Tables made by this version hold :data:`~local_backend.store.engine.clickhouse.schema.DAY_EXPRESSION`; a database made
before holds ``toDate`` of the time in seconds, which puts an event in 1970's first 18 hours on a day up to
2149. There the store keeps to the time, so an old database still answers right.
"""

from __future__ import annotations

import sqlite3

from local_backend.store.engine.clickhouse.event_store import ClickHouseEventStore
from local_backend.store.engine.clickhouse.schema import DAY_EXPRESSION, TABLES, create_tables, exact_days
from local_backend.store.engine.interface import COUNT, SpanAggregate
from tests.backend.store.clickhouse.chdb_session import fresh_chdb_client
from tests.backend.store.clickhouse.event_rows import DAY, events_table
from tests.backend.store.clickhouse.mirror import release_database

APRIL_14_2019 = 1_555_200_000_000_000  # 2019-04-14 00:00 UTC, day 18,000
EVENTS = events_table(
    [
        ("u1", "$pageview", "alice", 1, 18_000_000_000, "{}"),  # 1970-01-01 05:00 UTC: 18,000 s
        ("u2", "$pageview", "bob", 2, APRIL_14_2019 + 8 * 3_600_000_000, "{}"),
    ]
)
PAGEVIEWS = ("e.event = ?", ["$pageview"])
APRIL_13_TO_15 = [(APRIL_14_2019 + offset * DAY, APRIL_14_2019 + (offset + 1) * DAY) for offset in (-1, 0, 1)]


def daily_counts(client) -> dict[int, float]:
    store = ClickHouseEventStore(sqlite3.connect(":memory:"), client)
    cells = store.aggregate_spans(SpanAggregate(project_id=1, spans=APRIL_13_TO_15, where=PAGEVIEWS, measure=COUNT))
    return {index: value for (index, _), value in cells.items()}


def test_a_new_database_counts_whole_days_by_the_exact_day():
    client = fresh_chdb_client("days")
    try:
        create_tables(client)
        client.insert_arrow(f"`{client.database}`.events", EVENTS)
        assert exact_days(client) is True
        assert daily_counts(client) == {1: 1}
    finally:
        release_database(client)


def test_a_database_made_with_the_earlier_day_counts_by_the_time():
    client = fresh_chdb_client("days")
    try:
        client.command(f"CREATE DATABASE IF NOT EXISTS `{client.database}`")
        earlier = TABLES["events"].replace(DAY_EXPRESSION, "toDate(intDiv(timestamp, 1000000))")
        client.command(earlier.format(db=f"`{client.database}`"))
        client.insert_arrow(f"`{client.database}`.events", EVENTS)
        # that day puts the 1970 event on 2019-04-14 too
        [(misplaced,)] = client.query_rows(f"SELECT countIf(day = '2019-04-14') FROM `{client.database}`.events")
        assert misplaced == 2
        assert daily_counts(client) == {1: 1}
        assert exact_days(client) is False
    finally:
        release_database(client)
