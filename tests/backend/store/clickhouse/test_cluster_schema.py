"""The cluster layout: the DDL text sent ``ON CLUSTER``, and its Distributed tables running for real in chdb.

chdb cannot run ``ON CLUSTER`` or replicated engines (there is no Keeper), so the text is checked statement by
statement, and what chdb can run is run: the same statements without ``ON CLUSTER`` and with the plain engine
under each ``Replicated`` one, on a shim whose engine knows a one-shard cluster. Every query then reads the
``Distributed`` tables by the single-node names and must answer as the single-node tables do.

Stored property columns (hot and materialized) on a cluster: the exact ``ALTER ... ON CLUSTER`` statements, in
order, and the same statements run on the one-shard cluster, where inserts through the ``Distributed`` table
must still work and reads through it must get the values the shard stored.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from local_backend.store.engine.clickhouse.client import ChdbClient, require
from local_backend.store.engine.clickhouse.http_client import CLUSTER_SETTINGS, HttpClient
from local_backend.store.engine.clickhouse.schema import TABLES, cluster_statements, create_tables
from local_backend.store.engine.clickhouse.stored_columns import (
    HOT_COLUMNS,
    add_property_column,
    drop_property_column,
    property_expression,
    stored_columns,
)
from local_backend.store.hot_properties import HOT_PROPERTIES
from tests.backend.store.clickhouse.chdb_session import fresh_chdb_client
from tests.backend.store.clickhouse.event_rows import AWKWARD, DAY, EVENTS, OVERRIDES, PERSONS, T0, events_table
from tests.clickhouse_shim import start_shim

CLUSTER = "analytics"
STATEMENTS = cluster_statements("insightlab", CLUSTER)


def columns_of(ddl: str) -> str:
    """The column list of a CREATE TABLE statement, whitespace-normalized."""
    return " ".join(ddl[ddl.index("(") + 1 : ddl.rindex(") ENGINE")].split())


def sort_key_of(ddl: str) -> str:
    return re.search(r"ORDER BY \(.*\)", ddl).group(0)  # type: ignore[union-attr]


def test_the_statements_create_each_local_table_before_the_distributed_one_in_front_of_it() -> None:
    created = [re.search(r"IF NOT EXISTS `insightlab`\.(\w+)", statement).group(1) for statement in STATEMENTS]  # type: ignore[union-attr]
    assert created == ["events_local", "events", "persons", "person_overrides", "groups"]
    assert all(" ON CLUSTER `analytics` " in statement for statement in STATEMENTS)
    assert all(statement.lstrip().startswith("CREATE TABLE IF NOT EXISTS") for statement in STATEMENTS)


def test_events_are_replicated_on_each_shard_and_split_across_shards_by_person() -> None:
    local, distributed = STATEMENTS[0], STATEMENTS[1]
    assert "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}')" in local
    assert columns_of(local) == columns_of(TABLES["events"].format(db="`insightlab`"))
    assert sort_key_of(local) == "ORDER BY (project_id, event, day, person_id, timestamp)"
    assert " ".join(distributed.split()) == (
        "CREATE TABLE IF NOT EXISTS `insightlab`.events ON CLUSTER `analytics` AS `insightlab`.events_local "
        "ENGINE = Distributed(`analytics`, `insightlab`, events_local, sipHash64(person_id))"
    )


@pytest.mark.parametrize(("index", "name"), [(2, "persons"), (3, "person_overrides"), (4, "groups")])
def test_persons_overrides_and_groups_have_a_whole_copy_on_every_node(index: int, name: str) -> None:
    statement = STATEMENTS[index]
    assert (
        "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/noshard/{database}/{table}', '{replica}-{shard}', "
        "version)"
    ) in statement
    assert columns_of(statement) == columns_of(TABLES[name])
    assert sort_key_of(statement) == sort_key_of(TABLES[name])
    assert "Distributed" not in statement


class RecordingClient:
    """Collects the statements sent (the dispatch is under test, not the engine); no column is stored yet, and
    the events table holds ``events`` rows."""

    def __init__(self, cluster: str | None = None, events: int = 1) -> None:
        self.database = "insightlab"
        self.cluster = cluster
        self.events = events
        self.sent: list[str] = []
        self.asked: list[Any] = []

    def command(self, sql: str, params: Any = None) -> None:
        self.sent.append(sql)

    def query_rows(self, sql: str, params: Any = None, *, timeout: float | None = None) -> list[tuple[Any, ...]]:
        self.asked.append(params)
        return [(self.events,)] if sql.startswith("SELECT count() FROM") else []


def cluster_column_ddl(column: str, key: str) -> list[str]:
    """What storing ``key`` as ``column`` sends on the cluster, in order: the shards' table, the ``Distributed``
    one (the same MATERIALIZED column: see :mod:`.stored_columns`), then filling the shards' stored rows."""
    definition = f"ADD COLUMN IF NOT EXISTS {column} Nullable(String) MATERIALIZED {property_expression(key)}"
    return [
        f"ALTER TABLE `insightlab`.events_local ON CLUSTER `analytics` {definition}",
        f"ALTER TABLE `insightlab`.events ON CLUSTER `analytics` {definition}",
        f"ALTER TABLE `insightlab`.events_local ON CLUSTER `analytics` MATERIALIZE COLUMN {column}"
        " SETTINGS mutations_sync = 2",
    ]


def hot_columns_ddl(column_of: dict[str, str] = HOT_PROPERTIES) -> str:
    """Every hot column as one ALTER's clauses."""
    return ", ".join(
        f"ADD COLUMN IF NOT EXISTS {column} Nullable(String) MATERIALIZED {property_expression(key)}"
        for key, column in column_of.items()
    )


def test_create_tables_uses_the_cluster_layout_when_the_client_has_a_cluster() -> None:
    """On the cluster the hot columns go to the shards' table, then the ``Distributed`` one (the same MATERIALIZED
    column: see :mod:`.stored_columns`), then the shards' stored rows are filled; on one server, to ``events``."""
    on_cluster, single = RecordingClient(CLUSTER), RecordingClient()
    create_tables(on_cluster)  # type: ignore[arg-type]
    create_tables(single)  # type: ignore[arg-type]
    columns = hot_columns_ddl()
    assert on_cluster.sent == STATEMENTS + [
        f"ALTER TABLE `insightlab`.events_local ON CLUSTER `analytics` {columns}",
        f"ALTER TABLE `insightlab`.events ON CLUSTER `analytics` {columns}",
    ] + [
        f"ALTER TABLE `insightlab`.events_local ON CLUSTER `analytics` MATERIALIZE COLUMN {column}"
        " SETTINGS mutations_sync = 2"
        for column in HOT_PROPERTIES.values()
    ]
    assert single.sent == [ddl.format(db="`insightlab`") for ddl in TABLES.values()] + [
        f"ALTER TABLE `insightlab`.events {columns}"
    ] + [
        f"ALTER TABLE `insightlab`.events MATERIALIZE COLUMN {column} SETTINGS mutations_sync = 1"
        for column in HOT_PROPERTIES.values()
    ]
    assert not any("ON CLUSTER" in statement or "Replicated" in statement for statement in single.sent)


def test_the_hot_columns_of_an_empty_events_table_need_no_filling() -> None:
    empty = RecordingClient(events=0)
    create_tables(empty)  # type: ignore[arg-type]
    assert empty.sent[-1] == f"ALTER TABLE `insightlab`.events {hot_columns_ddl()}"
    assert not any("MATERIALIZE COLUMN" in statement for statement in empty.sent)


def runnable_in_chdb(statement: str) -> str:
    """The statement without what needs a Keeper: no ON CLUSTER, the plain engine under each Replicated one."""
    statement = statement.replace(f" ON CLUSTER `{CLUSTER}`", "")
    return re.sub(r"Replicated(\w*MergeTree)\('[^']*', '[^']*'(?:, )?", r"\1(", statement)


class ChdbCluster:
    """A client of the one-shard cluster shim that keeps its cluster name, so the code under test sends its
    cluster DDL, and runs each statement as chdb can (:func:`runnable_in_chdb`); ``sent`` keeps them as sent."""

    def __init__(self, client: HttpClient) -> None:
        self._client = client
        self.database = client.database
        self.cluster = client.cluster
        self.sent: list[str] = []

    def command(self, sql: str, params: Any = None) -> None:
        self.sent.append(sql)
        self._client.command(runnable_in_chdb(sql), params)

    def query_arrow(self, sql: str, params: Any = None, *, timeout: float | None = None) -> Any:
        return self._client.query_arrow(sql, params, timeout=timeout)

    def query_rows(self, sql: str, params: Any = None, *, timeout: float | None = None) -> list[tuple[Any, ...]]:
        return self._client.query_rows(sql, params, timeout=timeout)

    def insert_arrow(self, table: str, data: Any) -> None:
        self._client.insert_arrow(table, data)

    def close(self) -> None:
        self._client.close()


@pytest.fixture(scope="module")
def cluster_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    with start_shim(str(tmp_path_factory.mktemp("cluster-shim")), cluster=CLUSTER) as port:
        yield port


@pytest.fixture
def on_cluster(cluster_port: int) -> Iterator[ChdbCluster]:
    connection = require("clickhouse_connect").get_client(
        host="127.0.0.1", port=cluster_port, autogenerate_session_id=False, settings=dict(CLUSTER_SETTINGS)
    )
    connection.command("CREATE DATABASE IF NOT EXISTS insightlab")
    connection.database = "insightlab"
    client = ChdbCluster(HttpClient(connection, "insightlab", cluster=CLUSTER))
    create_tables(client)  # type: ignore[arg-type]
    yield client
    client.command("DROP DATABASE insightlab")
    client.close()


@pytest.fixture
def single_node() -> Iterator[ChdbClient]:
    client = fresh_chdb_client("single_node")
    create_tables(client)
    yield client
    client.command(f"DROP DATABASE IF EXISTS `{client.database}`")


QUERIES: list[tuple[str, dict[str, object]]] = [
    ("SELECT event, count(), uniqExact(person_id) FROM {db}.events GROUP BY event ORDER BY event", {}),
    (
        "SELECT day, count() FROM {db}.events WHERE event = {e:String} AND timestamp >= {t:Int64} GROUP BY day "
        "ORDER BY day",
        {"e": "$pageview", "t": T0},
    ),
    (  # persons after merges: events joined to the overrides and the newest person version
        "SELECT if(o.person_id = 0, e.person_id, o.person_id) AS person, "
        "JSONExtractString(p.properties, 'email') AS email, count() AS n "
        "FROM {db}.events AS e "
        "LEFT JOIN (SELECT old_person_id, argMax(person_id, version) AS person_id FROM {db}.person_overrides "
        "GROUP BY old_person_id) AS o ON e.person_id = o.old_person_id "
        "LEFT JOIN (SELECT id, argMax(properties, version) AS properties FROM {db}.persons GROUP BY id) AS p "
        "ON p.id = if(o.person_id = 0, e.person_id, o.person_id) "
        "GROUP BY person, email ORDER BY person",
        {},
    ),
    (  # a subquery over the events inside a query over the events
        "SELECT uuid FROM {db}.events WHERE person_id IN (SELECT person_id FROM {db}.events WHERE event = {e:String}) "
        "ORDER BY uuid",
        {"e": AWKWARD},
    ),
    ("SELECT uuid, session_id, toString(day) FROM {db}.events WHERE session_id IS NOT NULL ORDER BY uuid", {}),
]


def test_inserts_through_the_distributed_table_land_in_the_local_one(on_cluster: ChdbCluster) -> None:
    on_cluster.insert_arrow("events", EVENTS)
    assert on_cluster.query_rows("SELECT count() FROM insightlab.events_local") == [(len(EVENTS),)]
    assert on_cluster.query_rows(
        "SELECT engine FROM system.tables WHERE database = 'insightlab' AND name = 'events'"
    ) == [("Distributed",)]


@pytest.mark.parametrize(("sql", "params"), QUERIES, ids=[f"query{i}" for i in range(len(QUERIES))])
def test_every_query_reads_the_cluster_tables_unchanged(
    on_cluster: ChdbCluster, single_node: ChdbClient, sql: str, params: dict[str, object]
) -> None:
    for client in (on_cluster, single_node):
        client.insert_arrow("events", EVENTS)
        client.insert_arrow("persons", PERSONS)
        client.insert_arrow("person_overrides", OVERRIDES)
    clustered = on_cluster.query_rows(sql.replace("{db}", "`insightlab`"), params)
    assert clustered
    assert clustered == single_node.query_rows(sql.replace("{db}", f"`{single_node.database}`"), params)


PLAN = "mat_plan_test"


def test_a_materialized_property_is_added_and_dropped_on_both_tables_of_the_cluster() -> None:
    client = RecordingClient(CLUSTER)
    assert add_property_column(client, PLAN, "plan") is True  # type: ignore[arg-type]
    drop_property_column(client, PLAN)  # type: ignore[arg-type]
    assert client.sent == [
        *cluster_column_ddl(PLAN, "plan"),
        # the Distributed table first: no read names a column the shards have lost
        f"ALTER TABLE `insightlab`.events ON CLUSTER `analytics` DROP COLUMN IF EXISTS {PLAN}",
        f"ALTER TABLE `insightlab`.events_local ON CLUSTER `analytics` DROP COLUMN IF EXISTS {PLAN}",
    ]
    # a column counts as stored when both tables have it
    assert client.asked == [{"db": "insightlab", "tables": ["events", "events_local"], "count": 2}]


def column_kinds(client: ChdbCluster, column: str) -> dict[str, str]:
    rows = client.query_rows(
        "SELECT table, default_kind FROM system.columns WHERE database = 'insightlab' AND name = {c:String}",
        {"c": column},
    )
    return {str(table): str(kind) for table, kind in rows}


def stored_in_parts(client: ChdbCluster, column: str) -> bool:
    """Whether every active part of the shard's table holds ``column`` (stored, not computed on read)."""
    where = "database = 'insightlab' AND table = 'events_local' AND active"
    parts = client.query_rows(f"SELECT count() FROM system.parts WHERE {where}")[0][0]
    holding = client.query_rows(
        f"SELECT count() FROM system.parts_columns WHERE {where} AND column = {{c:String}}", {"c": column}
    )[0][0]
    return parts > 0 and holding == parts


def test_the_hot_columns_are_stored_on_the_cluster_and_read_through_the_distributed_table(
    on_cluster: ChdbCluster, single_node: ChdbClient
) -> None:
    assert set(HOT_COLUMNS) <= stored_columns(on_cluster)  # type: ignore[arg-type]
    assert column_kinds(on_cluster, "v_browser") == {"events": "MATERIALIZED", "events_local": "MATERIALIZED"}
    for client in (on_cluster, single_node):
        client.insert_arrow("events", EVENTS)  # through the Distributed table: the shard computes the columns
    assert stored_in_parts(on_cluster, "v_browser")
    sql = "SELECT uuid, v_browser FROM {db}.events ORDER BY uuid"
    clustered = on_cluster.query_rows(sql.replace("{db}", "`insightlab`"))
    assert clustered == [
        ("u1", "Chrome"),
        ("u2", "Chrome"),
        ("u3", None),
        ("u4", None),  # its properties hold a raw tab and newline: not JSON, so no property is read
        ("u5", None),
        ("u6", "Safari"),
    ]
    assert clustered == single_node.query_rows(sql.replace("{db}", f"`{single_node.database}`"))


def test_a_materialized_property_on_the_cluster_fills_old_rows_takes_new_ones_and_goes(
    on_cluster: ChdbCluster,
) -> None:
    on_cluster.insert_arrow("events", EVENTS)  # u3 has plan "pro"
    on_cluster.sent.clear()
    assert add_property_column(on_cluster, PLAN, "plan") is True  # type: ignore[arg-type]
    assert add_property_column(on_cluster, PLAN, "plan") is False  # type: ignore[arg-type]
    assert on_cluster.sent == cluster_column_ddl(PLAN, "plan")
    assert PLAN in stored_columns(on_cluster)  # type: ignore[arg-type]
    assert stored_in_parts(on_cluster, PLAN)  # the rows stored before were filled on the shard
    later = events_table([("u7", "signup", "dave", 4, T0 + 3 * DAY, '{"plan": "free"}')])
    on_cluster.insert_arrow("events", later)  # still accepted through the Distributed table
    read = f"SELECT uuid, {PLAN} FROM `insightlab`.events WHERE {PLAN} IS NOT NULL ORDER BY uuid"
    assert on_cluster.query_rows(read) == [("u3", "pro"), ("u7", "free")]

    drop_property_column(on_cluster, PLAN)  # type: ignore[arg-type]
    assert column_kinds(on_cluster, PLAN) == {}
    assert PLAN not in stored_columns(on_cluster)  # type: ignore[arg-type]
    on_cluster.insert_arrow("events", events_table([("u8", "signup", "erin", 5, T0, "{}")]))
    assert on_cluster.query_rows("SELECT count() FROM `insightlab`.events") == [(8,)]


def test_a_plain_column_on_the_distributed_table_would_refuse_inserts(on_cluster: ChdbCluster) -> None:
    """Why the Distributed table's column is MATERIALIZED too, where PostHog's reading table has a plain one:
    an insert through ``events`` would send the plain column's default to the shard, which refuses it."""
    definition = f"ADD COLUMN {PLAN} Nullable(String)"
    on_cluster.command(f"ALTER TABLE `insightlab`.events_local {definition} MATERIALIZED {property_expression('plan')}")
    on_cluster.command(f"ALTER TABLE `insightlab`.events {definition}")
    with pytest.raises(Exception, match="MATERIALIZED column"):
        on_cluster.insert_arrow("events", EVENTS)
