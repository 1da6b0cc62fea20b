"""Engine specs, the engine recorded in a database, and the error for opening one with another engine."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from local_backend.errors import APIError
from local_backend.ingestion import ingest_events
from local_backend.store.engine.choice import choose_engine, event_store
from local_backend.store.engine.clickhouse.client import MissingExtra
from local_backend.store.engine.clickhouse.engine import client_for
from local_backend.store.engine.spec import SQLITE, Engine, EngineError, EngineMismatch, parse_engine, recorded_engine
from local_backend.store.projects import get_project
from tests.factories import NOW


@pytest.mark.parametrize(
    ("text", "engine"),
    [
        ("sqlite", SQLITE),
        (" sqlite ", SQLITE),
        ("chdb", Engine("chdb")),
        ("chdb:/data/ev", Engine("chdb", path="/data/ev")),
        ("chdb:/data/ev?database=team_2", Engine("chdb", path="/data/ev", database="team_2")),
        ("chdb?database=team_2", Engine("chdb", database="team_2")),
        (
            "clickhouse://bob:s3cret@ch.example.com:8443/analytics",
            Engine("clickhouse", database="analytics", url="clickhouse://bob:s3cret@ch.example.com:8443/analytics"),
        ),
        (
            "clickhouse://bob:@10.0.0.5:8123/analytics?cluster=main",
            Engine(
                "clickhouse",
                database="analytics",
                url="clickhouse://bob:@10.0.0.5:8123/analytics?cluster=main",
                cluster="main",
            ),
        ),  # fmt: skip
    ],
)
def test_engine_specs_are_read(text, engine):
    assert parse_engine(text) == engine
    assert parse_engine(engine.spec) == engine


def test_a_relative_chdb_folder_is_made_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert parse_engine("chdb:events").path == str(tmp_path / "events")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "is not an engine"),
        ("duckdb", "is not an engine"),
        ("SQLite", "is not an engine"),
        ("chdb:", "names no folder"),
        ("chdb:/x?db=a", "takes one option, database=NAME"),
        ("chdb:/x?database=a-b", "not letters, digits and underscores"),
        ("clickhouse://bob:pw@host/analytics", "names no port"),
        ("clickhouse://bob:pw@host:http/analytics", "port that is not a number"),
        ("clickhouse://bob:pw@:8123/analytics", "names no host"),
        ("clickhouse://host:8123/analytics", "names no user"),
        ("clickhouse://bob:pw@host:8123", "names no database"),
        ("clickhouse://bob:pw@host:8123/a/b", "names no database"),
        ("clickhouse://bob:pw@host:8123/analytics?shard=1", "takes one option, cluster=NAME"),
        ("clickhouse://bob:pw@host:8123/analytics?cluster=a;b", "names a cluster"),
    ],
)
def test_bad_specs_say_why_in_one_line(text, why):
    with pytest.raises(EngineError) as raised:
        parse_engine(text)
    detail = raised.value.detail
    assert why in detail and "\n" not in detail
    assert detail.endswith("use sqlite, chdb[:PATH] or clickhouse://USER:PASSWORD@HOST:PORT/DATABASE[?cluster=NAME].")
    assert (raised.value.status, raised.value.attr) == (400, "engine")


def test_a_password_never_appears_in_a_description():
    engine = parse_engine("clickhouse://bob:s3cret@ch.example.com:8443/analytics?cluster=main")
    assert engine.describe() == "clickhouse://bob@ch.example.com:8443/analytics?cluster=main"


def test_a_database_without_a_recorded_engine_is_sqlite(conn):
    assert recorded_engine(conn) == SQLITE
    assert type(event_store(conn)).__name__ == "SQLiteEventStore"
    with pytest.raises(EngineError, match="keeps its events in SQLite"):
        client_for(conn)


def test_the_chosen_engine_is_recorded_and_its_tables_made(ch_conn, chdb_engine, ch):
    assert recorded_engine(ch_conn) == chdb_engine
    assert choose_engine(ch_conn, None) == chdb_engine
    tables = {row[0] for row in ch.query_rows(f"SHOW TABLES FROM `{ch.database}`")}
    assert tables == {"events", "persons", "person_overrides", "groups"}


def test_a_database_without_events_may_switch_engine(conn, chdb_engine, ch_conn):
    assert choose_engine(conn, SQLITE) == SQLITE
    assert recorded_engine(conn) == SQLITE
    assert choose_engine(conn, chdb_engine) == chdb_engine


def _one_event(conn, project_id: int) -> None:
    event = {"event": "signup", "distinct_id": "alice", "timestamp": "2026-01-10T10:00:00Z"}
    assert ingest_events(conn, get_project(conn, project_id), [event], now=NOW).accepted == 1


def test_opening_clickhouse_events_with_sqlite_names_both(ch_conn, chdb_engine, world):
    _one_event(ch_conn, world.project_id)
    with pytest.raises(EngineMismatch) as raised:
        choose_engine(ch_conn, SQLITE)
    detail = raised.value.detail
    assert f"events are in {chdb_engine.spec}, not sqlite" in detail
    assert "migrate-events" in detail
    assert raised.value.status == 409
    assert recorded_engine(ch_conn) == chdb_engine


def test_opening_sqlite_events_with_chdb_names_both(conn, world, chdb_engine):
    _one_event(conn, world.project_id)
    with pytest.raises(EngineMismatch, match=re.escape(f"events are in sqlite, not {chdb_engine.spec}")):
        choose_engine(conn, chdb_engine)
    assert recorded_engine(conn) == SQLITE


def test_an_in_memory_database_needs_a_chdb_folder():
    from local_backend.store.engine.clickhouse.clients import open_client

    with pytest.raises(EngineError, match="name one with chdb:PATH"):
        open_client(Engine("chdb"), "")


def test_chdb_missing_is_one_line_naming_the_extra(monkeypatch, tmp_path: Path):
    from local_backend.store.engine.clickhouse.clients import open_client

    monkeypatch.setitem(sys.modules, "chdb", None)  # importing chdb now fails as if it were not installed
    monkeypatch.setitem(sys.modules, "chdb.session", None)
    with pytest.raises(MissingExtra) as raised:
        open_client(Engine("chdb", path=str(tmp_path / "never")), "")
    assert "pip install 'insightlab[clickhouse]'" in raised.value.detail
    assert "\n" not in raised.value.detail
    assert isinstance(raised.value, APIError)


def test_a_server_engine_without_its_client_module_is_a_clear_error(monkeypatch):
    from local_backend.store.engine.clickhouse.clients import open_client

    monkeypatch.setitem(sys.modules, "local_backend.store.engine.clickhouse.http_client", None)
    with pytest.raises(EngineError, match="cannot reach a ClickHouse server"):
        open_client(parse_engine("clickhouse://bob:pw@localhost:8123/analytics"), "")
