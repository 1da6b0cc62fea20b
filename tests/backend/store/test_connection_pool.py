"""The app's connection pool: a connection lent again is as it was opened, and sees what others committed."""

from __future__ import annotations

import sqlite3

import pytest

from local_backend.store.engine.choice import open_database, open_engine
from local_backend.store.engine.pool import ConnectionPool
from local_backend.store.projects import create_project

NOW = "2026-01-15T12:00:00Z"


@pytest.fixture
def pool(db_path):
    connections = ConnectionPool(db_path, open_engine(db_path), keep=2)
    yield connections
    connections.close_idle()


def _projects(conn: sqlite3.Connection) -> list[str]:
    return [row["name"] for row in conn.execute("SELECT name FROM projects ORDER BY id")]


def test_a_connection_given_back_is_lent_again_and_reads_what_others_committed_since(pool, conn):
    lent = pool.take()
    before = _projects(lent)
    pool.give_back(lent)
    create_project(conn, name="Committed meanwhile", timezone="UTC", now=NOW)
    again = pool.take()
    assert again is lent
    assert _projects(again) == [*before, "Committed meanwhile"]


def test_a_transaction_left_open_is_rolled_back_when_given_back(pool, conn):
    lent = pool.take()
    before = _projects(lent)
    lent.execute("BEGIN IMMEDIATE")
    lent.execute("INSERT INTO projects (organization_id, name, api_token, timezone, created_at) SELECT organization_id,"
                 " 'Half written', 'phc_half', 'UTC', created_at FROM projects LIMIT 1")  # fmt: skip
    pool.give_back(lent)
    assert _projects(conn) == before  # nothing half-written is stored
    again = pool.take()
    assert again is lent and not again.in_transaction
    create_project(again, name="Next request", timezone="UTC", now=NOW)  # the write lock was released
    assert _projects(conn) == [*before, "Next request"]


def test_a_progress_handler_left_by_a_calculation_is_removed(pool):
    lent = pool.take()
    lent.set_progress_handler(lambda: 1, 1)  # a guard that says stop at once
    with pytest.raises(sqlite3.OperationalError, match="interrupted"):
        lent.execute("SELECT count(*) FROM projects").fetchone()
    pool.give_back(lent)
    again = pool.take()
    assert again is lent
    assert again.execute("SELECT count(*) FROM projects").fetchone()[0] >= 0


def test_past_its_size_the_pool_closes_what_is_given_back(pool):
    first, second, third = pool.take(), pool.take(), pool.take()
    for lent in (first, second, third):
        pool.give_back(lent)
    with pytest.raises(sqlite3.ProgrammingError):
        third.execute("SELECT 1")
    assert {id(pool.take()), id(pool.take())} == {id(first), id(second)}


def test_a_closed_connection_or_one_of_another_engine_is_not_lent_again(pool, db_path):
    closed = pool.take()
    closed.close()
    pool.give_back(closed)
    foreign = open_database(db_path, open_engine(db_path))
    foreign.engine = object()  # carrying another engine than the pool's (a command that moved the events)
    pool.give_back(foreign)
    lent = pool.take()
    assert lent is not closed and lent is not foreign
    assert lent.execute("SELECT 1").fetchone()[0] == 1
    with pytest.raises(sqlite3.ProgrammingError):
        foreign.execute("SELECT 1")


def test_closing_the_idle_connections_leaves_the_pool_usable(pool):
    lent = pool.take()
    pool.give_back(lent)
    pool.close_idle()
    with pytest.raises(sqlite3.ProgrammingError):
        lent.execute("SELECT 1")
    again = pool.take()
    assert again is not lent and again.execute("SELECT 1").fetchone()[0] == 1
