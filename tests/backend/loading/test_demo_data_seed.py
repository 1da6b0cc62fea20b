"""The demo dataset in a demo database: through ingestion and the demo's plugins, with test accounts marked."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from local_backend.demo_data import TEST_ACCOUNT_FILTERS, demo_events
from local_backend.demo_data.catalog import STAFF_DOMAIN
from local_backend.demo_data.setup import seed_demo
from local_backend.queries.analysis_inputs import global_condition
from local_backend.store.engine.choice import open_database
from local_backend.store.migrations import migrate

SIZE, SEED = 3_000, 5


@pytest.fixture
def seeded(tmp_path, clock):
    path = tmp_path / "demo.db"
    migrate(path)
    conn = open_database(path)
    access = seed_demo(conn, clock, events=SIZE, seed=SEED)
    yield conn, access
    conn.close()


@pytest.fixture
def generated(clock) -> list[dict]:
    return list(demo_events(events=SIZE, seed=SEED, end=clock.now()))


def _is_crawler(event: dict) -> bool:
    agent = event["properties"].get("$raw_user_agent", "").lower()
    return "bot" in agent or "insightlab-monitor" in agent


def test_every_generated_event_is_stored_except_the_crawlers_the_bot_filter_drops(seeded, generated):
    conn, access = seeded
    crawlers = sum(1 for e in generated if _is_crawler(e))
    assert crawlers > 0
    stored = conn.execute("SELECT count(*) FROM events WHERE project_id = ?", (access.project["id"],)).fetchone()[0]
    assert stored == access.events_loaded == SIZE - crawlers
    stored_uuids = {r[0] for r in conn.execute("SELECT uuid FROM events")}
    assert stored_uuids == {e["uuid"] for e in generated if not _is_crawler(e)}


def test_the_ip_filter_plugin_removed_ip_addresses(seeded):
    conn, _ = seeded
    assert (
        conn.execute("SELECT count(*) FROM events WHERE json_type(properties, '$.\"$ip\"') IS NOT NULL").fetchone()[0]
        == 0
    )


def test_each_sign_up_merged_the_anonymous_id_into_the_customer(seeded, generated):
    conn, _ = seeded
    identifies = [e for e in generated if e["event"] == "$identify" and "$anon_distinct_id" in e["properties"]]
    assert identifies
    for identify in identifies:
        anon, user = identify["properties"]["$anon_distinct_id"], identify["distinct_id"]
        owners = conn.execute(
            "SELECT DISTINCT person_id FROM person_distinct_ids WHERE distinct_id IN (?, ?)", (anon, user)
        ).fetchall()
        assert len(owners) == 1
        events_owners = conn.execute(
            "SELECT DISTINCT person_id FROM events WHERE distinct_id IN (?, ?)", (anon, user)
        ).fetchall()
        assert [tuple(r) for r in events_owners] == [tuple(owners[0])]
    with_email = conn.execute("SELECT count(*) FROM persons WHERE json_extract(properties, '$.email') IS NOT NULL")
    assert with_email.fetchone()[0] == len(identifies) + 5  # the customers and the five staff accounts


def test_customers_who_bought_carry_their_plan(seeded, generated):
    conn, _ = seeded
    bought = {e["distinct_id"]: e["properties"]["plan"] for e in generated if "$set" in e["properties"]
              and "plan" in e["properties"]["$set"] and e["event"] == "purchase"}  # fmt: skip
    assert bought
    for distinct_id, plan in bought.items():
        row = conn.execute(
            "SELECT p.properties FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id"
            " WHERE d.distinct_id = ?",
            (distinct_id,),
        ).fetchone()
        assert json.loads(row[0])["plan"] == plan


def test_groups_are_company_then_team(seeded, generated):
    conn, access = seeded
    mappings = conn.execute("SELECT group_type, group_type_index FROM group_type_mappings ORDER BY 2").fetchall()
    assert [tuple(r) for r in mappings] == [("company", 0), ("team", 1)]
    companies = {e["properties"]["$group_key"] for e in generated
                 if e["event"] == "$groupidentify" and e["properties"]["$group_type"] == "company"}  # fmt: skip
    stored = {r[0] for r in conn.execute("SELECT group_key FROM groups WHERE group_type_index = 0")}
    assert stored == companies
    assert conn.execute("SELECT count(*) FROM events WHERE group_0 IS NOT NULL").fetchone()[0] > 0


def test_filter_test_accounts_removes_exactly_the_staff_events(seeded, generated):
    conn, access = seeded
    project = conn.execute("SELECT test_account_filters FROM projects WHERE id = ?", (access.project["id"],))
    filters = json.loads(project.fetchone()[0])
    assert filters == TEST_ACCOUNT_FILTERS
    project_row = {"id": access.project["id"], "test_account_filters": filters}
    sql, params = global_condition(project_row, [], True, conn=conn)
    kept = conn.execute(f"SELECT count(*) FROM events e WHERE {sql}", params).fetchone()[0]
    staff = sum(1 for e in generated if e["distinct_id"].startswith("staff-"))
    total = conn.execute("SELECT count(*) FROM events").fetchone()[0]
    assert staff > 0 and kept == total - staff


def test_actions_and_cohorts_for_the_demo_insights(seeded):
    conn, access = seeded
    actions = conn.execute("SELECT name, steps FROM actions WHERE project_id = ?", (access.project["id"],)).fetchall()
    assert [a["name"] for a in actions] == ["Viewed pricing", "Activated"]
    cohorts = conn.execute("SELECT id, name, is_static FROM cohorts ORDER BY id").fetchall()
    assert [(c["name"], c["is_static"]) for c in cohorts] == [("Beta testers", 1), ("Paying customers", 0)]
    members = conn.execute(
        "SELECT p.properties FROM cohort_people c JOIN persons p ON p.id = c.person_id WHERE c.cohort_id = ?",
        (cohorts[0]["id"],),
    ).fetchall()
    emails = [json.loads(m[0])["email"] for m in members]
    assert 0 < len(emails) <= 40
    assert not any(email.endswith("@" + STAFF_DOMAIN) for email in emails)


def test_seeding_twice_with_the_same_seed_and_clock_stores_the_same_rows(tmp_path, clock, seeded):
    conn, _ = seeded
    path = tmp_path / "again.db"
    migrate(path)
    other = open_database(path)
    seed_demo(other, clock, events=SIZE, seed=SEED)
    query = "SELECT uuid, event, distinct_id, timestamp, properties FROM events ORDER BY uuid"
    assert [tuple(r) for r in other.execute(query)] == [tuple(r) for r in conn.execute(query)]
    other.close()


def test_the_dataset_mixes_the_events_the_saved_insights_use(seeded):
    conn, _ = seeded
    counts = Counter(r[0] for r in conn.execute("SELECT event FROM events"))
    assert counts["$pageview"] > counts["signed_up"] > 0 and counts["purchase"] > 0
