"""The ClickHouse tables of the event engine, in one database (``client.database``).

Laid out as PostHog lays out its own: events sorted by what every calculation filters on first (project, event,
day) and then by person and time, so a trend reads a narrow range and a funnel's rows come out nearly ordered.
Times are UTC microseconds (``Int64``) as in SQLite, so the calculations' spans compare as integers.

* ``events``: one row per stored event. ``person_id`` is the person the distinct id belonged to when the event
  was written; ``person_overrides`` maps persons merged away since to the person they became, and every read
  applies it (PostHog's person-overrides design: events are never rewritten in place).
* ``persons`` and ``groups``: the current properties of each, one row per version (``ReplacingMergeTree``);
  reads take the newest version with ``FINAL`` or ``argMax``.
* ``person_overrides``: ``(project_id, old_person_id) -> person_id``, newest version wins.

With a cluster (``?cluster=NAME``) each table is created ``ON CLUSTER`` as a ``Replicated...`` table sharded by
person, with a ``Distributed`` table of the same name in front; the single-node DDL is below.
"""

from __future__ import annotations

from .client import ClickHouseClient

__all__ = ["TABLES", "create_tables"]

TABLES: dict[str, str] = {
    "events": """
        CREATE TABLE IF NOT EXISTS {db}.events (
            project_id Int64,
            uuid String,
            event String,
            distinct_id String,
            person_id Int64,
            timestamp Int64,
            created_at Int64,
            properties String,
            elements_chain String,
            group_0 Nullable(String),
            group_1 Nullable(String),
            group_2 Nullable(String),
            group_3 Nullable(String),
            group_4 Nullable(String),
            session_id Nullable(String) MATERIALIZED multiIf(
                JSONType(properties, '$session_id') = 'String', JSONExtractString(properties, '$session_id'),
                JSONType(properties, '$session_id') IN ('Null', 'Object', 'Array'), NULL,
                JSONHas(properties, '$session_id'), JSONExtractRaw(properties, '$session_id'), NULL),
            day Date MATERIALIZED toDate(intDiv(timestamp, 1000000))
        ) ENGINE = MergeTree
        ORDER BY (project_id, event, day, person_id, timestamp)
    """,
    "persons": """
        CREATE TABLE IF NOT EXISTS {db}.persons (
            project_id Int64,
            id Int64,
            uuid String,
            properties String,
            created_at Int64,
            version Int64
        ) ENGINE = ReplacingMergeTree(version)
        ORDER BY (project_id, id)
    """,
    "person_overrides": """
        CREATE TABLE IF NOT EXISTS {db}.person_overrides (
            project_id Int64,
            old_person_id Int64,
            person_id Int64,
            version Int64
        ) ENGINE = ReplacingMergeTree(version)
        ORDER BY (project_id, old_person_id)
    """,
    "groups": """
        CREATE TABLE IF NOT EXISTS {db}.groups (
            project_id Int64,
            group_type_index UInt8,
            group_key String,
            properties String,
            created_at Int64,
            version Int64
        ) ENGINE = ReplacingMergeTree(version)
        ORDER BY (project_id, group_type_index, group_key)
    """,
}


def create_tables(client: ClickHouseClient) -> None:
    """Create every table that does not exist yet (idempotent)."""
    for ddl in TABLES.values():
        client.command(ddl.format(db=f"`{client.database}`"))
