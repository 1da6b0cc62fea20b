"""The real write path into ClickHouse gives SQLite's answers: the same events captured through ``/batch/`` (or
loaded with ``load-events``) into a SQLite database and a ClickHouse one (chdb, or a server reached over HTTP through
clickhouse-connect), then trends, funnels, retention and paths through the API on both. The expected numbers are
worked out by hand from the events of :mod:`.end_to_end`.

Persons once the second send is stored: A = anon-1 + alice (plan pro, merged after both had events),
B = bob (plan free), C = carol (plan free). Each day's pageviews: 12th A A A; 13th B A; 14th C C.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from local_backend.__main__ import main
from local_backend.store.engine.choice import open_database
from local_backend.store.engine.clickhouse.engine import client_for
from tests.backend.ingestion.clickhouse.end_to_end import FIRST, SECOND, answers, site, write_jsonl
from tests.clickhouse_shim import start_shim

MIN = 60_000  # ms

EXPECTED: dict[str, Any] = {
    "total": [3, 2, 2],
    # the 12th: anon-1 and alice were two persons when their pageviews were stored, one person now
    "dau": [1, 2, 1],
    "by_browser": {"Chrome": [2, 1, 0], "Firefox": [1, 1, 0], "Safari": [0, 0, 2]},
    # person properties as they are now: anon-1's pageviews count for alice's plan
    "by_plan": {"pro": [3, 1, 0], "free": [0, 1, 2]},
    "purchases": [0, 1, 1],  # bob's purchase sent twice with one uuid counts once
    "companies": [0, 1, 1],
    # A: pageview 12th 09:00 -> signup 10:10 -> purchase 14th; B: all three on the 13th; C: a pageview only
    "funnel": [3, 2, 2],
    # each person's breakdown value is that of the pageview the funnel starts from: A's first is Chrome
    "funnel_by_browser": {"Chrome": [2, 2, 2], "Safari": [1, 0, 0]},
    # cohorts 12th (A), 13th (A, B), 14th (C), 15th (nobody); A back on the 13th
    "retention": [[1, 1, 0, 0], [2, 0, 0], [1, 0], [0]],
    # sessions: A [/home, /pricing, /signup] (the 12th 09:00-09:20, one session only after the merge),
    # A [/pricing], B [/home], C [/home, /pricing]
    "paths": [("1_/home", "2_/pricing", 2, 5 * MIN), ("2_/pricing", "3_/signup", 1, 15 * MIN)],
}


def create(db: Path, engine: str) -> Path:
    assert main(["create-project", "--db", str(db), "--name", "E2E", "--engine", engine]) == 0
    return db


@pytest.fixture(scope="module")
def server_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A ClickHouse HTTP interface (the test shim, chdb in a process of its own) for the server engine."""
    with start_shim(str(tmp_path_factory.mktemp("shim"))) as port:
        yield port


@pytest.fixture(params=["chdb", "clickhouse-http"])
def databases(request: pytest.FixtureRequest, tmp_path: Path, chdb_folder: str) -> Iterator[tuple[Path, Path]]:
    """A SQLite database and a ClickHouse one, each with a project: embedded (a database of its own in the run's
    chdb folder) or a server reached through clickhouse-connect."""
    name = f"e2e_{uuid.uuid4().hex[:12]}"
    if request.param == "chdb":
        spec = f"chdb:{chdb_folder}?database={name}"
    else:
        spec = f"clickhouse://default:@127.0.0.1:{request.getfixturevalue('server_port')}/{name}"
    sqlite_db = create(tmp_path / "sqlite.db", "sqlite")
    clickhouse_db = create(tmp_path / "chdb.db", spec)
    yield sqlite_db, clickhouse_db
    conn = open_database(clickhouse_db)
    try:
        ch = client_for(conn)
        ch.command(f"DROP DATABASE IF EXISTS `{ch.database}`")
    finally:
        conn.close()


def stored_in_clickhouse(db: Path) -> list[tuple[Any, ...]]:
    conn = open_database(db)
    try:
        ch = client_for(conn)
        return ch.query_rows(f"SELECT event, count() FROM `{ch.database}`.events GROUP BY event ORDER BY event")
    finally:
        conn.close()


def test_captured_events_give_the_same_answers_on_both_engines(databases, clock):
    results = []
    for db in databases:
        with site(db, clock) as target:
            target.send(FIRST)
            target.send(SECOND)
            results.append(answers(target))
    sqlite_answers, chdb_answers = results
    assert sqlite_answers == EXPECTED
    assert chdb_answers == EXPECTED
    # the events are in ClickHouse, not in the SQLite file (the resent purchase is one row)
    stored = dict(stored_in_clickhouse(databases[1]))
    assert stored == {"$groupidentify": 1, "$identify": 1, "$pageview": 7, "purchase": 2, "signup": 2}
    conn = open_database(databases[1])
    try:
        assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == 0
    finally:
        conn.close()


def test_a_merge_after_the_fact_is_answered_right_after_it_is_captured(databases, clock):
    """Before the identify anon-1 and alice are two persons on both engines; right after it, one."""
    for db in databases:
        with site(db, clock) as target:
            target.send(FIRST)
            before = answers(target)
            assert before["dau"] == [2, 2, 1]
            assert before["retention"][0] == [2, 1, 0, 0]  # anon-1 and alice; alice back on the 13th
            target.send(SECOND)
            assert answers(target) == EXPECTED


def test_loaded_files_give_the_same_answers_on_both_engines(databases, clock, tmp_path: Path):
    """``load-events`` of the first send, then of the second (merging a person whose events were loaded)."""
    first = write_jsonl(tmp_path / "first.jsonl", FIRST)
    second = write_jsonl(tmp_path / "second.jsonl", SECOND)
    results = []
    for db in databases:
        with site(db, clock) as target:
            for path in (first, second):
                command = ["load-events", "--db", str(db), "--project", str(target.project_id), str(path), "--quiet"]
                assert main(command) == 0
            results.append(answers(target))
    assert results == [EXPECTED, EXPECTED]
    assert dict(stored_in_clickhouse(databases[1]))["purchase"] == 2
