"""HttpClient against a real ClickHouse engine: clickhouse-connect talks HTTP to the shim, which runs chdb.

The same statements go to an embedded :class:`ChdbClient` over the same rows, and both must answer alike.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator

import pyarrow as pa
import pytest

from local_backend.errors import ValidationError
from local_backend.store.engine.clickhouse.client import ChdbClient, MissingExtra
from local_backend.store.engine.clickhouse.http_client import (
    HttpClient,
    ServerAddress,
    ServerUnavailable,
    parse_server_url,
)
from local_backend.store.engine.clickhouse.schema import TABLES, create_tables
from tests.backend.store.clickhouse.chdb_session import fresh_chdb_client
from tests.backend.store.clickhouse.event_rows import AWKWARD, EVENTS, T0
from tests.clickhouse_shim import start_shim


@pytest.fixture(scope="module")
def server_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    with start_shim(str(tmp_path_factory.mktemp("shim"))) as port:
        yield port


@pytest.fixture
def server(server_port: int, request: pytest.FixtureRequest) -> Iterator[HttpClient]:
    name = "http_" + request.node.name.split("[")[0][-40:]
    client = HttpClient.connect(f"clickhouse://default:@127.0.0.1:{server_port}/{name}")
    yield client
    client.command(f"DROP DATABASE IF EXISTS `{client.database}`")
    client.close()


@pytest.fixture
def embedded() -> Iterator[ChdbClient]:
    client = fresh_chdb_client("beside_http")
    yield client
    client.command(f"DROP DATABASE IF EXISTS `{client.database}`")


def test_connect_creates_the_database_and_create_tables_makes_every_table(server: HttpClient) -> None:
    names = server.query_rows("SELECT name FROM system.databases WHERE name = {db:String}", {"db": server.database})
    assert names == [(server.database,)]
    create_tables(server)
    create_tables(server)  # idempotent
    tables = server.query_rows(
        "SELECT name FROM system.tables WHERE database = {db:String} ORDER BY name", {"db": server.database}
    )
    assert [name for (name,) in tables] == sorted(TABLES)


def test_an_arrow_insert_reads_back_as_arrow_with_the_materialized_columns(server: HttpClient) -> None:
    create_tables(server)
    server.insert_arrow("events", EVENTS)
    table = server.query_arrow(
        f"SELECT uuid, event, person_id, day, session_id FROM `{server.database}`.events ORDER BY uuid"
    )
    assert isinstance(table, pa.Table)
    assert table.column_names == ["uuid", "event", "person_id", "day", "session_id"]
    assert table.column("uuid").to_pylist() == ["u1", "u2", "u3", "u4", "u5", "u6"]
    assert table.column("event").to_pylist()[4] == AWKWARD
    assert table.schema.field("person_id").type == pa.int64()
    assert [str(day) for day in table.column("day").to_pylist()] == [
        "2023-11-14", "2023-11-14", "2023-11-15", "2023-11-15", "2023-11-16", "2023-11-16",
    ]  # fmt: skip
    assert table.column("session_id").to_pylist() == [None] * 5 + ["s1"]


def test_a_value_with_quotes_backslashes_and_braces_is_bound_and_comes_back_intact(server: HttpClient) -> None:
    create_tables(server)
    server.insert_arrow("events", EVENTS)
    assert server.query_rows("SELECT {v:String}", {"v": AWKWARD}) == [(AWKWARD,)]
    found = server.query_rows(
        f"SELECT uuid FROM `{server.database}`.events WHERE event = {{e:String}} AND person_id = {{p:Int64}}",
        {"e": AWKWARD, "p": 2},
    )
    assert found == [("u5",)]
    injected = server.query_rows(
        f"SELECT count() FROM `{server.database}`.events WHERE event = {{e:String}}", {"e": "x' OR 1 = 1 --"}
    )
    assert injected == [(0,)]


def test_parameters_too_long_for_a_url_travel_in_a_form_and_still_bind(server: HttpClient) -> None:
    long_value = AWKWARD * 400  # past clickhouse-connect's 4 KiB URL budget: sent as multipart form fields
    assert server.query_rows("SELECT length({v:String}), {v:String} = {w:String}", {"v": long_value, "w": long_value})[
        0
    ] == (len(long_value.encode()), True)


def test_arrays_nulls_and_booleans_bind_as_on_the_embedded_engine(server: HttpClient, embedded: ChdbClient) -> None:
    sql = (
        "SELECT {a:Array(String)}, {n:Nullable(String)}, {b:Bool}, {i:UInt8}, {f:Float64}, has({a:Array(String)}, 'x')"
    )
    params = {"a": [AWKWARD, "x"], "n": None, "b": True, "i": False, "f": 0.1}
    assert (
        server.query_rows(sql, params) == embedded.query_rows(sql, params) == [([AWKWARD, "x"], None, True, 0, 0.1, 1)]
    )


STATEMENTS: list[tuple[str, dict[str, object]]] = [
    ("SELECT event, count() AS n FROM {db}.events GROUP BY event ORDER BY event", {}),
    (
        "SELECT day, uniqExact(person_id) FROM {db}.events WHERE event = {e:String} AND timestamp >= {t:Int64} "
        "GROUP BY day ORDER BY day",
        {"e": "$pageview", "t": T0},
    ),
    (
        "SELECT JSONExtractString(properties, {k:String}) AS v, count() FROM {db}.events "
        "WHERE match(JSONExtractString(properties, 'path'), {re:String}) GROUP BY v ORDER BY v",
        {"k": "$browser", "re": "^/p|table"},
    ),
    (
        "SELECT person_id, groupArray(event) FROM (SELECT * FROM {db}.events ORDER BY timestamp, uuid) "
        "GROUP BY person_id ORDER BY person_id",
        {},
    ),  # fmt: skip
    (
        "SELECT uuid, session_id, toString(day) FROM {db}.events WHERE has({ids:Array(String)}, uuid) ORDER BY uuid",
        {"ids": ["u1", "u6", AWKWARD]},
    ),  # fmt: skip
    (
        "SELECT quantileExact(0.5)(timestamp) - {t:Int64} FROM {db}.events WHERE distinct_id != {d:String}",
        {"t": T0, "d": "carol"},
    ),  # fmt: skip
]


@pytest.mark.parametrize(("sql", "params"), STATEMENTS, ids=[f"statement{i}" for i in range(len(STATEMENTS))])
def test_the_server_gives_the_same_rows_as_the_embedded_engine(
    server: HttpClient, embedded: ChdbClient, sql: str, params: dict[str, object]
) -> None:
    for client in (server, embedded):
        create_tables(client)
        client.insert_arrow("events", EVENTS)
    over_http = server.query_rows(sql.replace("{db}", f"`{server.database}`"), params)
    in_process = embedded.query_rows(sql.replace("{db}", f"`{embedded.database}`"), params)
    assert over_http == in_process
    assert over_http  # every statement answers something: an empty answer would prove nothing
    assert server.query_arrow(sql.replace("{db}", f"`{server.database}`"), params).schema.types == (
        embedded.query_arrow(sql.replace("{db}", f"`{embedded.database}`"), params).schema.types
    )


def test_one_client_serves_several_threads_at_once(server: HttpClient) -> None:
    create_tables(server)
    server.insert_arrow("events", EVENTS)
    answers: list[object] = []
    failures: list[BaseException] = []

    def ask(person: int) -> None:
        try:
            for _ in range(5):
                rows = server.query_rows(
                    f"SELECT count() FROM `{server.database}`.events WHERE person_id = {{p:Int64}}", {"p": person}
                )
                answers.append((person, rows))
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            failures.append(exc)

    threads = [threading.Thread(target=ask, args=(person,)) for person in (1, 2, 3, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert sorted(set(map(repr, answers))) == ["(1, [(3,)])", "(2, [(2,)])", "(3, [(1,)])"]
    assert len(answers) == 20


def test_a_statement_the_server_refuses_raises_with_its_message(server: HttpClient) -> None:
    with pytest.raises(Exception, match="UNKNOWN_TABLE|Unknown table"):
        server.query_rows(f"SELECT * FROM `{server.database}`.no_such_table")


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "clickhouse://alice:s%40cret%2F1@ch.internal:9123/events_db",
            ServerAddress("ch.internal", 9123, "alice", "s@cret/1", "events_db", secure=False),
        ),
        ("clickhouse://ch.internal", ServerAddress("ch.internal", 8123, "default", "", "insightlab", secure=False)),
        (
            "clickhouses://default:pw@abc.eu-west-1.aws.clickhouse.cloud/analytics",
            ServerAddress("abc.eu-west-1.aws.clickhouse.cloud", 8443, "default", "pw", "analytics", secure=True),
        ),
        (
            "clickhouse://u:p@h:8443/db?secure=1&cluster=main",
            ServerAddress("h", 8443, "u", "p", "db", secure=True, cluster="main"),
        ),
        ("CLICKHOUSE://u@h/db?secure=0", ServerAddress("h", 8123, "u", "", "db", secure=False)),
    ],
)
def test_engine_urls_name_the_server_database_and_cluster(url: str, expected: ServerAddress) -> None:
    assert parse_server_url(url) == expected


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgres://h/db", "starts with clickhouse://"),
        ("clickhouse:///db", "names no host"),
        ("clickhouse://h/db?clustr=x", "Unknown option"),
        ("clickhouse://h/db?secure=maybe", "secure= takes"),
        ("clickhouse://h/my-db", "database name"),
        ("clickhouse://h/db?cluster=a;DROP", "cluster name"),
        ("clickhouse://h:port/db", "port"),
    ],
)
def test_a_bad_engine_url_is_a_validation_error_naming_the_engine(url: str, message: str) -> None:
    with pytest.raises(ValidationError, match=message) as raised:
        parse_server_url(url)
    assert (raised.value.status, raised.value.code, raised.value.attr) == (400, "invalid_engine", "engine")


def test_the_password_never_shows_in_the_address_repr() -> None:
    assert "s3cret" not in repr(parse_server_url("clickhouse://u:s3cret@h/db"))


def test_without_clickhouse_connect_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "clickhouse_connect", None)
    with pytest.raises(MissingExtra, match=r"clickhouse_connect.*insightlab\[clickhouse\]"):
        HttpClient.connect("clickhouse://127.0.0.1:1/db")


def test_unqualified_names_resolve_in_the_client_database(server: HttpClient) -> None:
    assert server.query_rows("SELECT currentDatabase()") == [(server.database,)]


def test_an_empty_answer_is_an_empty_table_on_both_clients(server: HttpClient, embedded: ChdbClient) -> None:
    sql = "SELECT number AS n, toString(number) AS s FROM numbers(3) WHERE n > {above:Int64}"
    assert server.query_rows(sql, {"above": 5}) == embedded.query_rows(sql, {"above": 5}) == []
    over_http, in_process = server.query_arrow(sql, {"above": 5}), embedded.query_arrow(sql, {"above": 5})
    assert (over_http.num_rows, in_process.num_rows) == (0, 0)
    assert over_http.schema.names == in_process.schema.names


def test_a_server_that_does_not_answer_is_one_clear_error_without_the_password() -> None:
    with pytest.raises(ServerUnavailable, match=r"127\.0\.0\.1:1/db.*did not accept") as raised:
        HttpClient.connect("clickhouse://u:secretpw@127.0.0.1:1/db")
    assert "secretpw" not in str(raised.value.detail)
    assert (raised.value.status, raised.value.code) == (503, "engine_unavailable")


def test_a_statement_refused_while_connecting_is_the_same_error(server_port: int) -> None:
    with pytest.raises(ServerUnavailable, match="did not accept"):
        HttpClient.connect(f"clickhouse://default:@127.0.0.1:{server_port}/bad?cluster=no_such_cluster")


def test_a_database_that_does_not_exist_is_the_server_error_not_a_dropped_connection(server: HttpClient) -> None:
    server._client.database = "no_such_database"
    with pytest.raises(Exception, match="UNKNOWN_DATABASE|does not exist"):
        server.query_rows("SELECT 1")
    server._client.database = server.database
