"""The cluster layout: the DDL text sent ``ON CLUSTER``, and its Distributed tables running for real in chdb.

chdb cannot run ``ON CLUSTER`` or replicated engines (there is no Keeper), so the text is checked statement by
statement, and what chdb can run is run: the same statements without ``ON CLUSTER`` and with the plain engine
under each ``Replicated`` one, on a shim whose engine knows a one-shard cluster. Every query then reads the
``Distributed`` tables by the single-node names and must answer as the single-node tables do.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from local_backend.store.clickhouse.client import ChdbClient, require
from local_backend.store.clickhouse.http_client import CLUSTER_SETTINGS, HttpClient
from local_backend.store.clickhouse.schema import TABLES, cluster_statements, create_tables
from local_backend.store.clickhouse.stored_columns import property_expression
from local_backend.store.hot_properties import HOT_PROPERTIES
from tests.backend.store.clickhouse.chdb_session import fresh_chdb_client
from tests.backend.store.clickhouse.event_rows import AWKWARD, EVENTS, OVERRIDES, PERSONS, T0
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
    assert columns_of(local) == columns_of(TABLES["events"])
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
    """Collects the statements create_tables sends (the dispatch is under test, not the engine)."""

    def __init__(self, cluster: str | None = None) -> None:
        self.database = "insightlab"
        self.cluster = cluster
        self.sent: list[str] = []

    def command(self, sql: str, params: Any = None) -> None:
        self.sent.append(sql)

    def query_rows(self, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
        return []  # no column stored yet


def test_create_tables_uses_the_cluster_layout_when_the_client_has_a_cluster() -> None:
    on_cluster, single = RecordingClient(CLUSTER), RecordingClient()
    create_tables(on_cluster)  # type: ignore[arg-type]
    create_tables(single)  # type: ignore[arg-type]
    assert on_cluster.sent == STATEMENTS
    stored = [
        statement
        for key, column in HOT_PROPERTIES.items()
        for statement in (
            f"ALTER TABLE `insightlab`.events ADD COLUMN IF NOT EXISTS {column} Nullable(String)"
            f" MATERIALIZED {property_expression(key)}",
            f"ALTER TABLE `insightlab`.events MATERIALIZE COLUMN {column} SETTINGS mutations_sync = 1",
        )
    ]
    assert single.sent == [ddl.format(db="`insightlab`") for ddl in TABLES.values()] + stored
    assert not any("ON CLUSTER" in statement or "Replicated" in statement for statement in single.sent)


def runnable_in_chdb(statement: str) -> str:
    """The statement without what needs a Keeper: no ON CLUSTER, the plain engine under each Replicated one."""
    statement = statement.replace(f" ON CLUSTER `{CLUSTER}`", "")
    return re.sub(r"Replicated(\w*MergeTree)\('[^']*', '[^']*'(?:, )?", r"\1(", statement)


@pytest.fixture(scope="module")
def cluster_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    with start_shim(str(tmp_path_factory.mktemp("cluster-shim")), cluster=CLUSTER) as port:
        yield port


@pytest.fixture
def on_cluster(cluster_port: int) -> Iterator[HttpClient]:
    connection = require("clickhouse_connect").get_client(
        host="127.0.0.1", port=cluster_port, autogenerate_session_id=False, settings=dict(CLUSTER_SETTINGS)
    )
    connection.command("CREATE DATABASE IF NOT EXISTS insightlab")
    connection.database = "insightlab"
    client = HttpClient(connection, "insightlab", cluster=CLUSTER)
    for statement in cluster_statements("insightlab", CLUSTER):
        client.command(runnable_in_chdb(statement))
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


def test_inserts_through_the_distributed_table_land_in_the_local_one(on_cluster: HttpClient) -> None:
    on_cluster.insert_arrow("events", EVENTS)
    assert on_cluster.query_rows("SELECT count() FROM insightlab.events_local") == [(len(EVENTS),)]
    assert on_cluster.query_rows(
        "SELECT engine FROM system.tables WHERE database = 'insightlab' AND name = 'events'"
    ) == [("Distributed",)]


@pytest.mark.parametrize(("sql", "params"), QUERIES, ids=[f"query{i}" for i in range(len(QUERIES))])
def test_every_query_reads_the_cluster_tables_unchanged(
    on_cluster: HttpClient, single_node: ChdbClient, sql: str, params: dict[str, object]
) -> None:
    for client in (on_cluster, single_node):
        client.insert_arrow("events", EVENTS)
        client.insert_arrow("persons", PERSONS)
        client.insert_arrow("person_overrides", OVERRIDES)
    clustered = on_cluster.query_rows(sql.replace("{db}", "`insightlab`"), params)
    assert clustered
    assert clustered == single_node.query_rows(sql.replace("{db}", f"`{single_node.database}`"), params)
