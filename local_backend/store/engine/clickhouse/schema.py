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

With a cluster (``?cluster=NAME``), :func:`cluster_statements` turns the same DDL into PostHog's layout: every
statement runs ``ON CLUSTER``; ``events`` becomes ``events_local``, a ``ReplicatedMergeTree`` on each shard, split
across shards by person (``sipHash64(person_id)``, so one person's events sit on one shard), with a
``Distributed`` table named ``events`` in front; ``persons``, ``person_overrides`` and ``groups`` are
``Replicated...`` tables with one copy on every node (one replication path for the whole cluster), so a query
that joins them to events runs on each shard against a local copy. Every query names the same tables either way.
"""

from __future__ import annotations

import re
import weakref

from .client import ClickHouseClient
from .stored_columns import (
    PERSONLESS_COLUMN,
    SESSION_ID_EXPRESSION,
    add_hot_columns,
    event_tables,
    personless_expression,
)

__all__ = [
    "DAY_EXPRESSION",
    "EXACT_DAYS",
    "TABLES",
    "SHARDING_KEYS",
    "create_tables",
    "cluster_statements",
    "exact_days",
]

#: The events' ``day``: the UTC day of ``timestamp``, held at 1970-01-01 before it and at 2149-06-06 (the last
#: day a ``Date`` holds) after, so that on every day between, the rows of a day are exactly the events of that
#: day and a calculation over whole UTC days may read the 2-byte sorted ``day`` instead of the time. (``toDate``
#: of the time in seconds, as tables made before had it, reads a number under 65,536 as days: an event in 1970's
#: first 18 hours landed on a day up to 2149.)
DAY_EXPRESSION = "toDate(toUInt16(least(greatest(intDiv(timestamp, 86400000000), 0), 65535)))"
#: The day numbers (days since 1970-01-01) on which :data:`DAY_EXPRESSION` is exact: the two it holds times at
#: are left out.
EXACT_DAYS = range(1, 65_535)

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
            session_id Nullable(String) MATERIALIZED SESSION_ID_EXPRESSION,
            day Date MATERIALIZED DAY_EXPRESSION,
            PERSONLESS_COLUMN UInt8 MATERIALIZED PERSONLESS_EXPRESSION
        ) ENGINE = MergeTree
        ORDER BY (project_id, event, day, person_id, timestamp)
    """.replace("DAY_EXPRESSION", DAY_EXPRESSION)
    .replace("PERSONLESS_COLUMN", PERSONLESS_COLUMN)
    .replace("PERSONLESS_EXPRESSION", personless_expression("properties").replace("{", "{{").replace("}", "}}"))
    .replace("SESSION_ID_EXPRESSION", SESSION_ID_EXPRESSION.replace("{", "{{").replace("}", "}}")),
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


#: Tables split across the shards of a cluster, by this expression; the others have a full copy on every node.
SHARDING_KEYS: dict[str, str] = {"events": "sipHash64(person_id)"}

#: ZooKeeper/Keeper paths of the replicated tables; ``{shard}``, ``{replica}``, ``{database}`` and ``{table}``
#: are ClickHouse's macros, filled in by each node.
SHARDED_REPLICATION = ("/clickhouse/tables/{shard}/{database}/{table}", "{replica}")
WHOLE_REPLICATION = ("/clickhouse/tables/noshard/{database}/{table}", "{replica}-{shard}")

_HEADER = re.compile(r"CREATE TABLE IF NOT EXISTS (?P<db>`[^`]+`)\.(?P<table>\w+) \(")
_ENGINE = re.compile(r"ENGINE = (?P<engine>\w*MergeTree)(?:\((?P<args>[^)]*)\))?")


def _replicated(ddl: str, path: str, replica: str) -> str:
    def swap(match: re.Match[str]) -> str:
        args = [f"'{path}'", f"'{replica}'"] + ([match["args"]] if match["args"] else [])
        return f"ENGINE = Replicated{match['engine']}({', '.join(args)})"

    return _ENGINE.sub(swap, ddl, count=1)


def cluster_statements(database: str, cluster: str) -> list[str]:
    """The DDL that lays the tables out on ``cluster`` (see the module docstring), in the order to run it."""
    db, on_cluster = f"`{database}`", f"ON CLUSTER `{cluster}`"
    statements: list[str] = []
    for name, ddl in TABLES.items():
        text = ddl.format(db=db)
        key = SHARDING_KEYS.get(name)
        if key is None:
            header = f"CREATE TABLE IF NOT EXISTS {db}.{name} {on_cluster} ("
            statements.append(_replicated(_HEADER.sub(header, text, count=1), *WHOLE_REPLICATION))
            continue
        header = f"CREATE TABLE IF NOT EXISTS {db}.{name}_local {on_cluster} ("
        statements.append(_replicated(_HEADER.sub(header, text, count=1), *SHARDED_REPLICATION))
        statements.append(
            f"CREATE TABLE IF NOT EXISTS {db}.{name} {on_cluster} AS {db}.{name}_local\n"
            f"        ENGINE = Distributed(`{cluster}`, {db}, {name}_local, {key})"
        )
    return statements


def create_tables(client: ClickHouseClient) -> None:
    """Create every table that does not exist yet (idempotent), in the cluster layout when the client has a
    cluster (an ``HttpClient`` connected with ``?cluster=NAME``). Then the hot properties are stored as columns
    of the events table (:mod:`.stored_columns`; on a cluster, of ``events_local`` and the ``Distributed`` table
    in front of it).
    """
    cluster = getattr(client, "cluster", None)
    if cluster:
        for statement in cluster_statements(client.database, cluster):
            client.command(statement)
    else:
        for ddl in TABLES.values():
            client.command(ddl.format(db=f"`{client.database}`"))
    add_hot_columns(client)


_exact_days: weakref.WeakKeyDictionary[ClickHouseClient, bool] = weakref.WeakKeyDictionary()


def exact_days(client: ClickHouseClient) -> bool:
    """Whether the events table's ``day`` is :data:`DAY_EXPRESSION` (on a cluster, on both tables), asked once per
    client: a database made before holds another expression, and reads keep to ``timestamp`` there."""
    known = _exact_days.get(client)
    if known is None:
        tables = event_tables(client)
        rows = client.query_rows(
            "SELECT count() FROM system.columns WHERE database = {db:String} AND table IN {tables:Array(String)}"
            " AND name = 'day' AND default_expression = {expression:String}",
            {"db": client.database, "tables": tables, "expression": DAY_EXPRESSION},
        )
        known = _exact_days[client] = int(rows[0][0]) == len(tables)
    return known
