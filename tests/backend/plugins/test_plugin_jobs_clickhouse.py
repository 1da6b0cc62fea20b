"""The reprocess_events job on ClickHouse alone: what an interrupted rewrite leaves, and the columns it keeps.

A rewrite is staged, marked ready, then applied by a delete and an insert (``store/engine/clickhouse/rewrite.py``).
Here the apply is cut short after each of its statements, as a killed process would leave it; the next job,
or the next time the engine is opened, must finish it with every event stored exactly once.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from local_backend.plugins import jobs
from local_backend.store.engine.choice import open_engine
from local_backend.store.engine.clickhouse import clients as engines
from local_backend.store.engine.clickhouse import rewrite
from local_backend.store.engine.clickhouse.engine import client_for
from local_backend.store.engine.clickhouse.rewrite import RewriteUnsupported, StagedRewrite, stored_event_batches
from local_backend.store.event_rows import to_micros
from tests.backend.plugin_helpers import add_config
from tests.backend.plugins.jobs_helpers import rewrite_tables, run_job, stored, stored_twice, trend
from tests.factories import add_events

BOT = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"

# after a bot filter over January and then a property filter stripping $ip over the 10th
REWRITTEN = [
    ("Sign Up", "alice", {"$ip": "1.1.1.1", "$browser": "Firefox"}),
    ("Sign Up", "bob", {"$browser": "Chrome"}),
    ("Sign Up", "carol", {"$ip": "3.3.3.3", "$browser": "Firefox"}),
]


@pytest.fixture
def events(conn, world, on_chdb) -> None:
    add_events(
        conn,
        world.project_id,
        [
            ("Sign Up", "alice", "2026-01-09T10:00:00Z", {"$ip": "1.1.1.1", "$browser": "Firefox"}),
            ("Sign Up", "bob", "2026-01-10T10:00:00Z", {"$ip": "2.2.2.2", "$browser": "Chrome"}),
            ("$pageview", "crawler", "2026-01-10T11:00:00Z", {"$user_agent": BOT, "$browser": "Firefox"}),
            ("Sign Up", "carol", "2026-01-11T10:00:00Z", {"$ip": "3.3.3.3", "$browser": "Firefox"}),
        ],
    )
    on_chdb()


def fail_once(monkeypatch: pytest.MonkeyPatch, conn: Any, statement: str) -> None:
    """Make the engine's next statement starting with ``statement`` fail, as if the process died there."""
    client = client_for(conn)
    command: Callable[..., None] = client.command
    failed: list[str] = []

    def flaky(sql: str, params: Any = None) -> None:
        if sql.startswith(statement) and not failed:
            failed.append(sql)
            raise RuntimeError("the process died here")
        command(sql, params)

    monkeypatch.setattr(client, "command", flaky)


def test_a_rewrite_cut_after_its_delete_is_finished_by_the_next_job(client, world, conn, events, monkeypatch):
    bots = add_config(conn, world.project_id, 4)
    rename = add_config(conn, world.project_id, 2, order=2, config={"defaultNamingConvention": "snake_case"})
    assert run_job(client, world, bots, "2026-01-01", "2026-01-31").json()["result"]["dropped"] == 1
    fail_once(monkeypatch, conn, "INSERT INTO")
    assert run_job(client, world, rename, "2026-01-10", "2026-01-10").status_code == 500
    # the cut: bob's old signup is deleted and his renamed one not inserted yet; the rewrite is ready to finish
    assert [e[1] for e in stored(conn, world.project_id)] == ["alice", "carol"]
    assert len(rewrite_tables(conn)) == 1
    # the next job, even one of another project, finishes it before its own work, and counts only its own events
    elsewhere = add_config(conn, world.other_project_id, 4)
    again = run_job(client, world, elsewhere, "2026-01-01", "2026-01-31", world.other_project_id).json()["result"]
    assert again == {"processed": 0, "changed": 0, "dropped": 0, "unchanged": 0, "failed": 0}
    assert [(e[0], e[1]) for e in stored(conn, world.project_id)] == [
        ("Sign Up", "alice"), ("sign_up", "bob"), ("Sign Up", "carol"),
    ]  # fmt: skip
    assert (stored_twice(conn), rewrite_tables(conn)) == ([], [])
    assert trend(client, world, "Sign Up") == [1, 0, 1, 0]
    assert trend(client, world, "sign_up") == [0, 1, 0, 0]
    names = {tuple(r) for r in conn.execute("SELECT project_id, name FROM event_definitions WHERE name = 'sign_up'")}
    assert names == {(world.project_id, "sign_up")}


def test_a_rewrite_cut_after_its_insert_is_finished_when_the_engine_is_opened(client, world, conn, events, monkeypatch):
    bots = add_config(conn, world.project_id, 4)
    strip = add_config(conn, world.project_id, 1, order=2, config={"event_properties": "$ip"})
    run_job(client, world, bots, "2026-01-01", "2026-01-31")
    fail_once(monkeypatch, conn, "DROP TABLE")
    assert run_job(client, world, strip, "2026-01-10", "2026-01-10").status_code == 500
    assert len(rewrite_tables(conn)) == 1  # applied, but still marked ready: applying it again must be harmless
    monkeypatch.setattr(engines, "_clients", {})  # a new process: the engine is opened again
    conn.engine = open_engine(conn)
    assert stored(conn, world.project_id) == REWRITTEN
    assert (stored_twice(conn), rewrite_tables(conn)) == ([], [])


def test_rewritten_events_keep_their_other_columns_and_recompute_their_stored_properties(client, world, conn, events):
    ch = client_for(conn)
    kept = "SELECT uuid, distinct_id, person_id, timestamp, created_at, group_0 FROM `{db}`.events ORDER BY uuid"
    before = ch.query_rows(kept.format(db=ch.database))
    strip = add_config(conn, world.project_id, 1, config={"event_properties": "$browser"})
    result = run_job(client, world, strip, "2026-01-10", "2026-01-10").json()["result"]
    assert result == {"processed": 2, "changed": 2, "dropped": 0, "unchanged": 0, "failed": 0}
    assert ch.query_rows(kept.format(db=ch.database)) == before
    browsers = ch.query_rows(f"SELECT distinct_id, v_browser FROM `{ch.database}`.events ORDER BY timestamp")
    assert browsers == [("alice", "Firefox"), ("bob", None), ("crawler", None), ("carol", "Firefox")]
    body = {
        "events": [{"id": "Sign Up"}],
        "properties": [{"key": "$browser", "value": "Firefox", "type": "event"}],
        "date_from": "2026-01-09",
        "date_to": "2026-01-12",
    }
    answer = client.post(f"/api/projects/{world.project_id}/insights/trend/", json=body, headers=world.headers())
    assert answer.json()["result"][0]["data"] == [1, 0, 1, 0]


# Three days of events for batches of three: the 10th holds five (three at one instant), more than one batch;
# the 8th and the 12th are outside the range read.
SPREAD = [
    ("e", "early", "2026-01-08T23:59:59Z"),
    ("e", "a", "2026-01-09T10:00:00Z"),
    ("e", "b1", "2026-01-10T12:00:00Z"), ("e", "b2", "2026-01-10T12:00:00Z"), ("e", "b3", "2026-01-10T12:00:00Z"),
    ("e", "c", "2026-01-10T13:00:00Z"),
    ("e", "d", "2026-01-10T23:59:59.999999Z"),
    ("e", "f", "2026-01-11T00:00:00Z"),
    ("e", "g", "2026-01-11T10:00:00Z"),
    ("e", "late", "2026-01-12T00:00:00Z"),
]  # fmt: skip


@pytest.mark.parametrize("exact_days", [True, False], ids=["by day", "database made before the exact day"])
def test_stored_events_are_read_in_batches_each_event_once_in_time_order(conn, world, on_chdb, monkeypatch, exact_days):
    add_events(conn, world.project_id, SPREAD)
    on_chdb()
    if not exact_days:
        monkeypatch.setattr(rewrite, "exact_days", lambda client: False)
    start, end = to_micros(datetime(2026, 1, 9, tzinfo=UTC)), to_micros(datetime(2026, 1, 11, 23, 59, tzinfo=UTC))
    batches = list(stored_event_batches(client_for(conn), project_id=world.project_id, start=start, end=end,
                                        batch_size=3))  # fmt: skip
    assert max(batch.num_rows for batch in batches) <= 3
    read = [(time, uuid, who) for batch in batches for time, uuid, who in
            zip(batch["timestamp"].to_pylist(), batch["uuid"].to_pylist(), batch["distinct_id"].to_pylist(),
                strict=True)]  # fmt: skip
    assert [row[2] for row in read if not row[2].startswith("b")] == ["a", "c", "d", "f", "g"]
    assert sorted(row[2] for row in read if row[2].startswith("b")) == ["b1", "b2", "b3"]
    assert [row[:2] for row in read] == sorted({row[:2] for row in read})  # in (time, uuid) order, none twice


def test_a_job_over_more_events_than_a_batch_processes_each_once(client, world, conn, on_chdb, monkeypatch):
    add_events(conn, world.project_id, [(name, who, when, {"$ip": "1.1.1.1"}) for name, who, when in SPREAD])
    on_chdb()
    monkeypatch.setattr(jobs, "CLICKHOUSE_BATCH_SIZE", 2)
    strip = add_config(conn, world.project_id, 1, config={"event_properties": "$ip"})
    result = run_job(client, world, strip, "2026-01-09", "2026-01-11").json()["result"]
    assert result == {"processed": 8, "changed": 8, "dropped": 0, "unchanged": 0, "failed": 0}
    assert [(who, properties) for _, who, properties in stored(conn, world.project_id)
            if not who.startswith("b")] == [
        ("early", {"$ip": "1.1.1.1"}), ("a", {}), ("c", {}), ("d", {}), ("f", {}), ("g", {}),
        ("late", {"$ip": "1.1.1.1"}),
    ]  # fmt: skip
    assert stored_twice(conn) == []


class _ClusterClient:
    database = "insightlab"
    cluster = "main"


def test_a_cluster_is_refused_before_anything_is_written():
    with pytest.raises(RewriteUnsupported) as refused:
        StagedRewrite(_ClusterClient())  # type: ignore[arg-type]
    assert (refused.value.status_code, refused.value.code, refused.value.attr) == (400, "unsupported_engine", "engine")


@pytest.mark.live  # starts the ClickHouse HTTP shim
def test_the_job_rewrites_events_on_a_clickhouse_server_too(client, world, conn, tmp_path):
    from local_backend.store.engine.choice import choose_engine
    from local_backend.store.engine.clickhouse.http_client import HttpClient
    from local_backend.store.engine.clickhouse.schema import create_tables
    from local_backend.store.engine.spec import parse_engine
    from tests.backend.store.clickhouse.mirror import mirror
    from tests.clickhouse_shim import start_shim

    add_events(
        conn,
        world.project_id,
        [
            ("Sign Up", "alice", "2026-01-09T10:00:00Z", {"$browser": "Firefox"}),
            ("Sign Up", "bob", "2026-01-10T10:00:00Z", {"$browser": "Chrome"}),
            ("$pageview", "crawler", "2026-01-10T11:00:00Z", {"$user_agent": BOT}),
        ],
    )
    with start_shim(str(tmp_path / "shim")) as port:
        url = f"clickhouse://default:@127.0.0.1:{port}/jobs"
        server = HttpClient.connect(url)
        create_tables(server)
        mirror(conn, server)  # type: ignore[arg-type]
        conn.execute("DELETE FROM events")
        choose_engine(conn, parse_engine(url))
        rename = add_config(conn, world.project_id, 2, config={"defaultNamingConvention": "snake_case"})
        bots = add_config(conn, world.project_id, 4, order=2)
        renamed = run_job(client, world, rename, "2026-01-10", "2026-01-10").json()["result"]
        assert renamed == {"processed": 2, "changed": 1, "dropped": 0, "unchanged": 1, "failed": 0}
        dropped = run_job(client, world, bots, "2026-01-01", "2026-01-31").json()["result"]
        assert dropped == {"processed": 3, "changed": 0, "dropped": 1, "unchanged": 2, "failed": 0}
        assert stored(conn, world.project_id) == [
            ("Sign Up", "alice", {"$browser": "Firefox"}),
            ("sign_up", "bob", {"$browser": "Chrome"}),
        ]
        assert (stored_twice(conn), rewrite_tables(conn)) == ([], [])
        assert trend(client, world, "sign_up") == [0, 1, 0, 0]
        server.close()
