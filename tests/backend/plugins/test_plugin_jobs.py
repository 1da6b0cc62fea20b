"""The reprocess_events job: stored events of a date range run again through one config."""

from __future__ import annotations

import json

import pytest

from tests.backend.plugin_helpers import add_config
from tests.factories import add_events

BOT = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0"


def stored(conn, project_id):
    rows = conn.execute(
        "SELECT event, distinct_id, properties FROM events WHERE project_id = ? ORDER BY timestamp, id", (project_id,)
    ).fetchall()
    return [(r["event"], r["distinct_id"], json.loads(r["properties"])) for r in rows]


def run_job(client, world, config_id, date_from, date_to):
    return client.post(
        f"/api/projects/{world.project_id}/plugin_configs/{config_id}/job/",
        json={"job": {"type": "reprocess_events", "payload": {"date_from": date_from, "date_to": date_to}}},
        headers=world.headers(),
    )


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


def test_taxonomy_job_renames_events_in_the_range_only(client, world, conn, events):
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


def test_property_filter_job_strips_properties_and_bot_filter_job_deletes_bot_events(client, world, conn, events):
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


def test_a_job_on_a_plugin_without_jobs_or_with_a_reversed_range_changes_nothing(client, world, conn, events):
    sampler = add_config(conn, world.project_id, 3, config={"percentage": "0"})
    rename = add_config(conn, world.project_id, 2)
    before = stored(conn, world.project_id)
    no_jobs = run_job(client, world, sampler, "2026-01-01", "2026-01-31")
    assert (no_jobs.status_code, no_jobs.json()["attr"]) == (400, "job__type")
    reversed_range = run_job(client, world, rename, "2026-01-12", "2026-01-10")
    assert (reversed_range.status_code, reversed_range.json()["attr"]) == (400, "job__payload__date_to")
    assert stored(conn, world.project_id) == before
