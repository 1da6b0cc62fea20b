"""The reprocess_events job: stored events of a date range run again through one config, on every engine.

Each test runs on SQLite and on chdb (``engine``); the counts the job reports and the events it leaves are
the same on both.
"""

from __future__ import annotations

import pytest

from local_backend.plugins import jobs
from local_backend.plugins.jobs import reprocess_events
from local_backend.store.engine.sqlite.writer import STORED_EVENTS_SQL
from tests.backend.plugin_helpers import add_config
from tests.backend.plugins.jobs_helpers import rewrite_tables, run_job, stored, stored_twice, trend
from tests.factories import add_events

BOT = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0"


@pytest.fixture
def events(conn, world):
    add_events(
        conn,
        world.project_id,
        [
            ("Signed Up", "alice", "2026-01-09T23:59:59Z", {"$ip": "1.1.1.1"}),
            ("Signed Up", "bob", "2026-01-10T00:00:00Z", {"$ip": "2.2.2.2", "plan": "pro"}),
            ("$pageview", "bob", "2026-01-10T08:00:00Z", {"$user_agent": BOT}),
            ("Plan Changed", "carol", "2026-01-11T23:59:59Z", {"$user_agent": FIREFOX, "$ip": "3.3.3.3"}),
            ("Signed Up", "dave", "2026-01-12T00:00:00Z", {"$ip": "4.4.4.4"}),
        ],
    )
    add_events(conn, world.other_project_id, [("Signed Up", "erin", "2026-01-10T12:00:00Z", {"$ip": "5.5.5.5"})])


def test_taxonomy_job_renames_events_in_the_range_only(client, world, conn, events, engine):
    engine()
    config_id = add_config(conn, world.project_id, 2, config={"defaultNamingConvention": "snake_case"})
    response = run_job(client, world, config_id, "2026-01-10", "2026-01-11")
    assert response.status_code == 200
    # bob's signup, bob's pageview ($ names are kept) and carol's change are in range; only two are renamed
    assert response.json()["result"] == {"processed": 3, "changed": 2, "dropped": 0, "unchanged": 1, "failed": 0}
    assert [e[0] for e in stored(conn, world.project_id)] == [
        "Signed Up", "signed_up", "$pageview", "plan_changed", "Signed Up",
    ]  # fmt: skip
    assert [e[0] for e in stored(conn, world.other_project_id)] == ["Signed Up"]
    names = {r[0] for r in conn.execute("SELECT name FROM event_definitions WHERE project_id = ?", (world.project_id,))}
    assert {"signed_up", "plan_changed"} <= names
    # each renamed event is counted once, under its new name only, right after the job (days 9, 10, 11, 12)
    assert trend(client, world, "signed_up") == [0, 1, 0, 0]
    assert trend(client, world, "Signed Up") == [1, 0, 0, 1]
    assert trend(client, world, "plan_changed") == [0, 0, 1, 0]
    assert stored_twice(conn) == []


def test_property_filter_job_strips_properties_and_bot_filter_job_deletes_bot_events(
    client, world, conn, events, engine
):
    engine()
    strip = add_config(conn, world.project_id, 1, config={"event_properties": "$ip"})
    bots = add_config(conn, world.project_id, 4, order=2)
    stripped = run_job(client, world, strip, "2026-01-10T00:00:00Z", "2026-01-11T23:59:59Z").json()["result"]
    assert stripped == {"processed": 3, "changed": 2, "dropped": 0, "unchanged": 1, "failed": 0}
    dropped = run_job(client, world, bots, "2026-01-01", "2026-01-31").json()["result"]
    assert dropped == {"processed": 5, "changed": 0, "dropped": 1, "unchanged": 4, "failed": 0}
    assert stored(conn, world.project_id) == [
        ("Signed Up", "alice", {"$ip": "1.1.1.1"}),
        ("Signed Up", "bob", {"plan": "pro"}),
        ("Plan Changed", "carol", {"$user_agent": FIREFOX}),
        ("Signed Up", "dave", {"$ip": "4.4.4.4"}),
    ]
    assert stored_twice(conn) == []


def test_a_bot_filter_job_leaves_trends_counting_the_people_it_kept(client, world, conn, engine):
    add_events(
        conn,
        world.project_id,
        [
            ("$pageview", "alice", "2026-01-09T10:00:00Z", {"$user_agent": FIREFOX}),
            ("$pageview", "crawler", "2026-01-10T01:00:00Z", {"$user_agent": BOT}),
            ("$pageview", "alice", "2026-01-10T09:00:00Z", {"$user_agent": FIREFOX}),
            ("$pageview", "crawler", "2026-01-10T23:00:00Z", {"$user_agent": BOT}),
            ("$pageview", "bob", "2026-01-11T08:00:00Z", {"$user_agent": FIREFOX}),
            ("$pageview", "spider", "2026-01-11T09:00:00Z", {"$user_agent": BOT}),
        ],
    )
    engine()
    assert trend(client, world, "$pageview") == [1, 3, 2, 0]
    bots = add_config(conn, world.project_id, 4)
    result = run_job(client, world, bots, "2026-01-10", "2026-01-10").json()["result"]
    # the 10th holds crawler twice and alice once; the spider on the 11th is outside the range and stays
    assert result == {"processed": 3, "changed": 0, "dropped": 2, "unchanged": 1, "failed": 0}
    assert trend(client, world, "$pageview") == [1, 1, 2, 0]
    assert trend(client, world, "$pageview", math="dau") == [1, 1, 2, 0]
    assert stored_twice(conn) == []


def test_a_job_on_a_plugin_without_jobs_or_with_a_reversed_range_changes_nothing(client, world, conn, events, engine):
    engine()
    sampler = add_config(conn, world.project_id, 3, config={"percentage": "0"})
    rename = add_config(conn, world.project_id, 2)
    before = stored(conn, world.project_id)
    no_jobs = run_job(client, world, sampler, "2026-01-01", "2026-01-31")
    assert (no_jobs.status_code, no_jobs.json()["attr"]) == (400, "job__type")
    reversed_range = run_job(client, world, rename, "2026-01-12", "2026-01-10")
    assert (reversed_range.status_code, reversed_range.json()["attr"]) == (400, "job__payload__date_to")
    assert stored(conn, world.project_id) == before


def test_a_job_that_fails_midway_leaves_every_event_as_it_was(world, conn, events, engine, monkeypatch):
    name = engine()
    monkeypatch.setattr(jobs, "BATCH_SIZE", 2)  # alice and bob's events are rewritten or staged before dave's
    monkeypatch.setattr(jobs, "CLICKHOUSE_BATCH_SIZE", 2)

    def rename_until_dave(event, config):
        if event["distinct_id"] == "dave":
            event["properties"]["seen"] = {"not", "JSON"}  # a set: the job cannot store it
        event["event"] = event["event"].upper()
        return event

    before = stored(conn, world.project_id)
    with pytest.raises(TypeError):
        reprocess_events(
            conn,
            project_id=world.project_id,
            process_event=rename_until_dave,
            config={},
            payload={"date_from": "2026-01-01", "date_to": "2026-01-31"},
        )
    assert stored(conn, world.project_id) == before
    assert stored_twice(conn) == []
    if name == "chdb":
        assert rewrite_tables(conn) == []


def test_the_sqlite_job_reads_each_batch_onward_from_the_last_id_read(conn):
    """Each batch is a seek on the table's ids, not a read of the whole project sorted again (which made a job's
    reading grow with the square of the project's events)."""
    plan = conn.execute(f"EXPLAIN QUERY PLAN {STORED_EVENTS_SQL}", (1, 0, 1, 0, 10)).fetchall()
    assert [row[3] for row in plan] == ["SEARCH events USING INTEGER PRIMARY KEY (rowid>?)"]
