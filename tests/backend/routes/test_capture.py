"""The capture API in process: paths, tokens, body encodings, errors, idempotency, skew, plugins."""

from __future__ import annotations

import base64
import gzip
import json
from datetime import UTC, datetime
from urllib.parse import urlencode

import pytest
from fastapi.testclient import TestClient

from local_backend.app import create_app
from local_backend.config import Settings

from ..plugin_helpers import add_config

FORM = {"Content-Type": "application/x-www-form-urlencoded"}
UUID_1 = "01890000-0000-7000-8000-000000000001"
UUID_2 = "01890000-0000-7000-8000-000000000002"


def stored(conn) -> list[tuple]:
    return [tuple(r) for r in conn.execute("SELECT project_id, event, distinct_id FROM events ORDER BY id")]


def one(world, name="signup", distinct_id="alice", **extra):
    return {"event": name, "distinct_id": distinct_id, "properties": {}, **extra}


@pytest.mark.parametrize("path", ["/batch", "/batch/", "/capture", "/capture/", "/e", "/e/", "/i/v0/e", "/i/v0/e/"])
def test_every_capture_path_stores_a_batch(client, conn, world, path):
    answer = client.post(path, json={"api_key": world.project_token, "batch": [one(world), one(world, "b", "bob")]})
    assert answer.status_code == 200
    assert answer.json() == {"status": 1, "accepted": 2, "duplicates": 0, "rejected": 0, "dropped": 0, "rejections": []}
    assert stored(conn) == [(world.project_id, "signup", "alice"), (world.project_id, "b", "bob")]


def test_token_sources(client, conn, world):
    token = world.project_token
    client.post("/e/", json={**one(world, "via-token"), "token": token})
    client.post("/e/", json={"event": "via-properties", "distinct_id": "a", "properties": {"token": token}})
    client.post("/e/", json=[{"event": "via-list", "distinct_id": "a", "properties": {"token": token}}])
    client.post(f"/e/?{urlencode({'token': token})}", json=one(world, "via-query"))
    client.post("/e/", content=urlencode({"data": json.dumps(one(world, "via-form")), "api_key": token}), headers=FORM)
    assert [name for _, name, _ in stored(conn)] == ["via-token", "via-properties", "via-list", "via-query", "via-form"]


def test_events_go_to_the_tokens_project(client, conn, world):
    other_token = conn.execute("SELECT api_token FROM projects WHERE id = ?", (world.other_project_id,)).fetchone()[0]
    client.post("/batch/", json={"api_key": other_token, "batch": [one(world)]})
    assert stored(conn) == [(world.other_project_id, "signup", "alice")]


def _gzip(payload) -> bytes:
    return gzip.compress(json.dumps(payload).encode())


def _b64(payload) -> str:
    return base64.b64encode(json.dumps(payload).encode()).decode()


@pytest.mark.parametrize(
    ("query", "headers", "make_body"),
    [
        ("", {"Content-Encoding": "gzip"}, lambda p: _gzip(p)),
        ("?compression=gzip-js", {}, lambda p: _gzip(p)),
        ("?compression=gzip", {"Content-Type": "text/plain"}, lambda p: _gzip(p)),
        ("", FORM, lambda p: urlencode({"data": _b64(p)}).encode()),
        ("", FORM, lambda p: urlencode({"data": json.dumps(p)}).encode()),
        ("", FORM, lambda p: urlencode({"data": base64.b64encode(_gzip(p)).decode(),
                                         "compression": "gzip-js"}).encode()),
        ("", {"Content-Type": "text/plain"}, lambda p: _b64(p).encode()),  # base64 JSON as the whole body
    ],
)  # fmt: skip
def test_body_encodings(client, conn, world, query, headers, make_body):
    payload = {"api_key": world.project_token, "batch": [one(world, "é-event")]}
    answer = client.post(f"/batch/{query}", content=make_body(payload), headers=headers)
    assert answer.status_code == 200, answer.text
    assert stored(conn) == [(world.project_id, "é-event", "alice")]


def test_nan_in_a_json_body_becomes_null_as_posthog_reads_it(client, conn, world):
    body = '{"api_key": "TOKEN", "event": "a", "distinct_id": "u", "properties": {"v": NaN}}'
    body = body.replace("TOKEN", world.project_token)
    assert client.post("/e/", content=body).json()["accepted"] == 1
    assert conn.execute("SELECT properties FROM events").fetchone()[0] == '{"v":null}'


def test_invalid_events_are_counted_and_reported_not_fatal(client, conn, world):
    batch = [one(world), {"distinct_id": "x"}, {"event": "x"}, "text", one(world, "ok", "bob")]
    answer = client.post("/batch/", json={"api_key": world.project_token, "batch": batch}).json()
    assert (answer["accepted"], answer["rejected"]) == (2, 3)
    assert answer["rejections"] == [
        {"index": 1, "reason": "no event name"},
        {"index": 2, "reason": "no distinct_id"},
        {"index": 3, "reason": "event must be a JSON object"},
    ]


def test_a_resent_batch_is_not_counted_twice(client, conn, world):
    batch = [one(world, uuid=UUID_1), one(world, "b", uuid=UUID_2)]
    first = client.post("/batch/", json={"api_key": world.project_token, "batch": batch}).json()
    again = client.post("/batch/", json={"api_key": world.project_token, "batch": batch}).json()
    assert (first["accepted"], first["duplicates"]) == (2, 0)
    assert (again["accepted"], again["duplicates"]) == (0, 2)
    assert len(stored(conn)) == 2


def _stored_time(conn) -> datetime:
    micros = conn.execute("SELECT timestamp FROM events").fetchone()[0]
    return datetime.fromtimestamp(micros / 1_000_000, UTC)


def test_skew_is_measured_against_real_receipt_not_the_frozen_server_clock(client, conn, world):
    # The client's clock is 3 hours fast; the event happened 10 s before it was sent. The server's clock is frozen
    # at 2026-01-15, but the correction uses the real time of receipt.
    real = datetime.now(UTC)
    fast = real.timestamp() + 3 * 3600
    event = one(world, timestamp=datetime.fromtimestamp(fast - 10, UTC).isoformat())
    client.post("/batch/", json={"api_key": world.project_token, "batch": [event],
                                 "sent_at": datetime.fromtimestamp(fast, UTC).isoformat()})  # fmt: skip
    lag = (_stored_time(conn) - real).total_seconds()
    assert -10 <= lag <= -10 + 5  # receipt is at most a few seconds after `real`


def test_posthog_js_sends_its_send_time_as_underscore_milliseconds(client, conn, world):
    real = datetime.now(UTC)
    fast_ms = int((real.timestamp() + 3600) * 1000)
    event = one(
        world, timestamp=datetime.fromtimestamp(fast_ms / 1000 - 60, UTC).isoformat(), token=world.project_token
    )
    client.post(f"/e/?_={fast_ms}", json=event)
    lag = (_stored_time(conn) - real).total_seconds()
    assert -60 <= lag <= -60 + 5


def test_historical_migration_keeps_timestamps(client, conn, world):
    event = one(world, timestamp="2024-03-01T10:00:00Z")
    client.post("/batch/", json={"api_key": world.project_token, "batch": [event], "historical_migration": True,
                                 "sent_at": "2030-01-01T00:00:00Z"})  # fmt: skip
    assert _stored_time(conn) == datetime(2024, 3, 1, 10, tzinfo=UTC)


CAPTURE_ERRORS = [
    # (description, path, content, headers, status, code)
    ("unknown token", "/batch/", json.dumps({"api_key": "phc_unknown", "batch": []}), {}, 401, "invalid_api_key"),
    ("no token", "/e/", json.dumps({"event": "a", "distinct_id": "b"}), {}, 401, "missing_api_key"),
    ("personal key is not a token", "/e/", json.dumps({"event": "a", "distinct_id": "b", "api_key": "phx_x"}), {},
     401, "invalid_api_key"),
    ("malformed JSON", "/e/", "{not json", {}, 400, "invalid_payload"),
    ("empty body", "/e/", "", {}, 400, "no_data"),
    ("not gzip", "/e/?compression=gzip-js", "plain", {}, 400, "invalid_payload"),
    ("truncated gzip", "/e/", gzip.compress(b'{"event": "a"}', mtime=0)[:12], {"Content-Encoding": "gzip"}, 400,
     "invalid_payload"),
    ("lz64", "/e/?compression=lz64", "abc", {}, 400, "invalid_payload"),
    ("batch not a list", "/batch/", json.dumps({"api_key": "phc_x", "batch": {"event": "a"}}), {}, 400,
     "invalid_payload"),
    ("payload a number", "/e/", "42", {}, 400, "invalid_payload"),
    ("form without data", "/e/", "api_key=phc_x", FORM, 400, "no_data"),
    ("multipart", "/e/", "x", {"Content-Type": "multipart/form-data; boundary=b"}, 400, "invalid_payload"),
]  # fmt: skip


@pytest.mark.parametrize(("description", "path", "content", "headers", "status", "code"), CAPTURE_ERRORS)
def test_capture_errors(client, conn, world, description, path, content, headers, status, code):
    answer = client.post(path, content=content, headers=headers)
    assert answer.status_code == status, description
    body = answer.json()
    assert body["code"] == code
    assert set(body) == {"type", "code", "detail", "attr"}
    assert stored(conn) == []


def test_unknown_token_message_says_where_to_find_the_right_one(client, world):
    detail = client.post("/e/", json={**one(world), "token": "phc_typo"}).json()["detail"]
    assert "phc_typo" in detail and "/api/projects/@current/" in detail


def test_capture_accepts_only_post(client):
    assert client.get("/batch/").status_code == 405


@pytest.fixture
def small_client(db_path, clock):
    app = create_app(Settings(db_path=db_path, clock=clock, max_request_bytes=2_000))
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


def test_oversized_bodies_are_413(small_client, conn, world):
    batch = [one(world, properties={"pad": "x" * 100}) for _ in range(30)]
    answer = small_client.post("/batch/", json={"api_key": world.project_token, "batch": batch})
    assert (answer.status_code, answer.json()["code"]) == (413, "payload_too_large")
    assert stored(conn) == []


def test_a_small_gzip_body_that_expands_past_the_limit_is_413(small_client, conn, world):
    payload = {"api_key": world.project_token, "batch": [one(world, properties={"pad": "x" * 50_000})]}
    body = _gzip(payload)
    assert len(body) < 2_000
    answer = small_client.post("/batch/", content=body, headers={"Content-Encoding": "gzip"})
    assert (answer.status_code, answer.json()["code"]) == (413, "payload_too_large")
    assert stored(conn) == []


def test_plugins_run_in_order_and_rearranging_changes_the_stored_event(client, conn, world):
    snake = add_config(conn, world.project_id, 2, order=1, config={"defaultNamingConvention": "snake_case"})
    camel = add_config(conn, world.project_id, 2, order=2, config={"defaultNamingConvention": "camelCase"})
    client.post("/e/", json={**one(world, "Signed Up"), "token": world.project_token})
    answer = client.patch(
        f"/api/projects/{world.project_id}/plugin_configs/rearrange/",
        json={"orders": {str(camel): 1, str(snake): 2}},
        headers=world.headers(),
    )
    assert answer.status_code == 200, answer.text
    client.post("/e/", json={**one(world, "Signed Up"), "token": world.project_token})
    # the last plugin decides the convention: camelCase last, then snake_case last
    assert [name for _, name, _ in stored(conn)] == ["signedUp", "signed_up"]
    delivered = dict(conn.execute("SELECT plugin_config_id, SUM(successes) FROM plugin_config_metrics GROUP BY 1"))
    assert delivered == {snake: 2, camel: 2}


def test_an_event_a_plugin_drops_is_counted_as_dropped(client, conn, world):
    add_config(conn, world.project_id, 4, order=1, config={"drop_without_user_agent": "Yes"})
    batch = [one(world), one(world, properties={"$raw_user_agent": "Mozilla/5.0 (Macintosh)"})]
    answer = client.post("/batch/", json={"api_key": world.project_token, "batch": batch}).json()
    assert (answer["accepted"], answer["dropped"]) == (1, 1)
