"""The official ``posthog`` Python SDK against a live server on a loopback port (marked ``live``).

Each test uses its own distinct ids, so one server serves the module. Every call runs with gzip off and on.
"""

from __future__ import annotations

import json
import threading
import uuid
from datetime import UTC, datetime, timedelta

import pandas as pd
import pytest
import requests
from posthog import Posthog

from local_backend.store.engine.choice import open_database
from toolkit import local

pytestmark = pytest.mark.live

NOW = "2026-01-15T12:00:00Z"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("capture") / "capture.db"
    with local.start(db, demo=False, now=NOW) as client:
        yield client


@pytest.fixture(params=[False, True], ids=["plain", "gzip"])
def sdk(request, server):
    errors: list[Exception] = []
    client = Posthog(
        server.project_token(),
        host=server.base_url,
        sync_mode=True,  # each call is one request, answered after the commit
        gzip=request.param,
        on_error=lambda error, _batch: errors.append(error),
        max_retries=0,
    )
    client.prefix = f"{'gz' if request.param else 'plain'}-"  # distinct ids per variant
    yield client
    client.shutdown()
    assert errors == []


def rows(server, sql: str, *params) -> list[tuple]:
    conn = open_database(server.db)
    try:
        return [tuple(r) for r in conn.execute(sql, params)]
    finally:
        conn.close()


def person(server, distinct_id: str) -> tuple[int, dict, bool] | None:
    found = rows(
        server,
        "SELECT p.id, p.properties, p.is_identified FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id"
        " WHERE d.distinct_id = ?",
        distinct_id,
    )
    return (found[0][0], json.loads(found[0][1]), bool(found[0][2])) if found else None


def test_capture_stores_the_event_with_its_properties_and_groups(server, sdk):
    alice = sdk.prefix + "alice"
    sent = sdk.capture("signup", distinct_id=alice, properties={"plan": "pro"}, groups={"company": "acme"})
    [(name, uuid_, properties, *groups)] = rows(
        server,
        "SELECT event, uuid, properties, group_0, group_1, group_2, group_3, group_4 FROM events WHERE distinct_id = ?",
        alice,
    )
    properties = json.loads(properties)
    assert (name, uuid_, properties["plan"], properties["$lib"]) == ("signup", sent, "pro", "posthog-python")
    index = dict(rows(server, "SELECT group_type, group_type_index FROM group_type_mappings"))["company"]
    assert groups[index] == "acme"
    assert [key for position, key in enumerate(groups) if position != index] == [None] * 4


def test_capture_times_are_the_clients_corrected_for_skew(server, sdk):
    distinct_id = sdk.prefix + "timed"
    when = datetime.now(UTC) - timedelta(hours=2)
    sdk.capture("past", distinct_id=distinct_id, timestamp=when)
    [(micros,)] = rows(server, "SELECT timestamp FROM events WHERE distinct_id = ?", distinct_id)
    stored = datetime.fromtimestamp(micros / 1_000_000, UTC)
    # the SDK's clock is the machine's, so the correction is only the send delay: well under a few seconds
    assert abs((stored - when).total_seconds()) < 5


def test_set_and_set_once_update_the_person(server, sdk):
    bob = sdk.prefix + "bob"
    sdk.set(distinct_id=bob, properties={"plan": "free", "seats": 1})
    sdk.set_once(distinct_id=bob, properties={"plan": "ignored", "source": "ad"})
    sdk.set(distinct_id=bob, properties={"plan": "pro"})
    _, properties, identified = person(server, bob)
    assert {k: properties[k] for k in ("plan", "seats", "source")} == {"plan": "pro", "seats": 1, "source": "ad"}
    assert identified is False


def test_identify_merges_the_anonymous_person(server, sdk):
    anon, user = sdk.prefix + "anon-1", sdk.prefix + "user-1"
    sdk.capture("$pageview", distinct_id=anon, properties={"$set": {"first_page": "/pricing"}})
    sdk.capture("$pageview", distinct_id=user)
    # what SDKs send for identify(): a $identify event from the new id naming the anonymous one
    sdk.capture("$identify", distinct_id=user, properties={"$anon_distinct_id": anon, "$set": {"email": "u@x.io"}})
    person_id, properties, identified = person(server, user)
    assert person(server, anon)[0] == person_id
    assert (properties["first_page"], properties["email"], identified) == ("/pricing", "u@x.io", True)
    persons_of_events = rows(server, "SELECT DISTINCT person_id FROM events WHERE distinct_id IN (?, ?)", anon, user)
    assert persons_of_events == [(person_id,)]


def test_alias_joins_two_ids(server, sdk):
    old, new = sdk.prefix + "old", sdk.prefix + "new"
    sdk.capture("$pageview", distinct_id=old)
    sdk.alias(previous_id=old, distinct_id=new)
    sdk.capture("$pageview", distinct_id=new)
    assert person(server, new)[0] == person(server, old)[0]


def test_group_identify_fills_the_group(server, sdk):
    key = sdk.prefix + "org-1"
    sdk.group_identify("organization", key, {"name": "Org One", "employees": 12})
    index = dict(rows(server, "SELECT group_type, group_type_index FROM group_type_mappings"))["organization"]
    [(properties,)] = rows(
        server, "SELECT properties FROM groups WHERE group_type_index = ? AND group_key = ?", index, key
    )
    assert json.loads(properties) == {"name": "Org One", "employees": 12}


def test_a_resent_event_is_stored_once(server, sdk):
    distinct_id = sdk.prefix + "resend"
    event_uuid = str(uuid.uuid4())
    sdk.capture("once", distinct_id=distinct_id, uuid=event_uuid)
    sdk.capture("once", distinct_id=distinct_id, uuid=event_uuid)
    assert rows(server, "SELECT COUNT(*) FROM events WHERE distinct_id = ?", distinct_id) == [(1,)]


def test_concurrent_requests_are_all_acknowledged_and_stored(server):
    token = server.project_token()
    threads, batches, per_batch = 6, 10, 50
    statuses: list[int] = []

    def send(number: int) -> None:
        with requests.Session() as session:
            for _ in range(batches):
                events = [{"event": "load", "distinct_id": f"c{number}-{i % 7}"} for i in range(per_batch)]
                answer = session.post(f"{server.base_url}/batch/", json={"api_key": token, "batch": events}, timeout=60)
                statuses.append(answer.status_code)

    workers = [threading.Thread(target=send, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert statuses == [200] * (threads * batches)
    assert rows(server, "SELECT COUNT(*) FROM events WHERE event = 'load'") == [(threads * batches * per_batch,)]


def test_a_historical_migration_client_keeps_timestamps_exactly(server):
    client = Posthog(server.project_token(), host=server.base_url, sync_mode=True, historical_migration=True)
    try:
        client.capture("imported", distinct_id="importer", timestamp=datetime(2024, 3, 1, 10, 0, tzinfo=UTC))
    finally:
        client.shutdown()
    [(micros,)] = rows(server, "SELECT timestamp FROM events WHERE event = 'imported'")
    assert datetime.fromtimestamp(micros / 1_000_000, UTC) == datetime(2024, 3, 1, 10, 0, tzinfo=UTC)


def test_the_toolkit_sends_a_frame_through_the_capture_api(server):
    frame = pd.DataFrame(
        {
            "event": ["frame-signup", "frame-signup", None],
            "distinct_id": ["f1", "f2", "f3"],
            "timestamp": ["2026-01-05T10:00:00Z", "2026-01-05T11:00:00Z", "2026-01-05T12:00:00Z"],
            "plan": ["pro", "free", "pro"],
        }
    )
    result = server.capture_frame(frame, progress=False)
    assert (result.accepted, result.rejected) == (2, 1)
    again = server.capture_frame(frame, progress=False)  # the same rows get the same uuids: stored once
    assert (again.accepted, again.duplicates, again.rejected) == (0, 2, 1)
    stored = rows(
        server, "SELECT distinct_id, properties FROM events WHERE event = 'frame-signup' ORDER BY distinct_id"
    )
    assert [(d, json.loads(p)["plan"]) for d, p in stored] == [("f1", "pro"), ("f2", "free")]
