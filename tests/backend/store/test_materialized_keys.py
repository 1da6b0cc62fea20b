"""A property whose key holds a backtick is materialized on every engine, by hand and by the automatic choice;
and a claim whose engine column fails is taken back whole.

event      who    day  properties
$pageview  alice  10   {"tick`key": "pro"}
$pageview  bob    10   {"tick`key": "free"}
$pageview  carol  11   {"tick`key": "pro"}
$pageview  dave   11   {}

Pageviews with ``tick`key`` = "pro", the 10th to the 12th: alice and carol, ``[1, 1, 0]``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest

from local_backend.store.engine.choice import choose_engine
from local_backend.store.engine.clickhouse import stored_columns as stored_columns_module
from local_backend.store.engine.clickhouse.engine import client_for
from local_backend.store.engine.clickhouse.stored_columns import stored_columns
from local_backend.store.engine.spec import parse_engine
from local_backend.store.materialized import column_name
from tests.backend.store.clickhouse.mirror import _session_folder, mirror
from tests.factories import add_events
from tests.recorded_engine import RecordedEngine

KEY = "tick`key"
EVENTS = [
    ("$pageview", "alice", "2026-01-10T10:00:00Z", {KEY: "pro"}),
    ("$pageview", "bob", "2026-01-10T11:00:00Z", {KEY: "free"}),
    ("$pageview", "carol", "2026-01-11T10:00:00Z", {KEY: "pro"}),
    ("$pageview", "dave", "2026-01-11T11:00:00Z", {}),
]
PRO = {
    "events": [{"id": "$pageview"}],
    "properties": [{"key": KEY, "value": "pro", "operator": "exact", "type": "event"}],
    "date_from": "2026-01-10",
    "date_to": "2026-01-12",
}
COLUMN = column_name("event", KEY)


@pytest.fixture(params=["sqlite", "chdb"])
def engine(request: pytest.FixtureRequest, conn, world) -> Iterator[tuple[str, Callable[[], set[str]]]]:
    """The project's events on the engine: its name, and what tells which columns the engine's events have."""
    if request.param == "sqlite":
        add_events(conn, world.project_id, EVENTS)
        yield "sqlite", lambda: {row[1] for row in conn.execute("PRAGMA table_xinfo(events)")}
        return
    choose_engine(conn, parse_engine(f"chdb:{_session_folder()}?database=keys_{uuid.uuid4().hex[:12]}"))
    conn.commit()
    add_events(conn, world.project_id, EVENTS)
    client = client_for(conn)
    mirror(conn, client)  # type: ignore[arg-type]
    conn.execute("DELETE FROM events")
    conn.commit()
    yield "chdb", lambda: set(stored_columns(client))
    client.command(f"DROP DATABASE IF EXISTS `{client.database}`")


def url(world, suffix: str = "") -> str:
    return f"/api/projects/{world.project_id}/materialized_properties/{suffix}"


def pro_counts(client, world) -> list[int]:
    response = client.post(f"/api/projects/{world.project_id}/insights/trend/", json=PRO, headers=world.headers())
    assert response.status_code == 200, response.text
    return response.json()["result"][0]["data"]


def listed(client, world) -> list[tuple[str, str, str]]:
    rows = client.get(url(world), headers=world.headers()).json()["results"]
    return [(row["property"], row["column"], row["state"]) for row in rows]


def test_a_key_with_a_backtick_is_materialized_by_hand(client, world, engine) -> None:
    made = client.post(url(world), json={"property": KEY, "type": "event"}, headers=world.headers())
    assert made.status_code == 201, made.text
    assert listed(client, world) == [(KEY, COLUMN, "ready")]
    assert COLUMN in engine[1]()
    assert pro_counts(client, world) == [1, 1, 0]  # read through the column, as from the JSON


def test_a_key_with_a_backtick_is_materialized_by_the_automatic_choice(client, world, engine) -> None:
    assert pro_counts(client, world) == [1, 1, 0]  # one use of the key
    response = client.post(url(world, "auto/"), headers=world.headers())
    assert response.status_code == 200, response.text
    assert [(use["type"], use["property"]) for use in response.json()["added"]] == [("event", KEY)]
    assert listed(client, world) == [(KEY, COLUMN, "ready")]
    assert COLUMN in engine[1]()
    assert pro_counts(client, world) == [1, 1, 0]


def test_a_claim_whose_engine_column_fails_is_taken_back_whole(client, conn, world, engine, monkeypatch) -> None:
    if engine[0] == "sqlite":
        pytest.skip("only a ClickHouse engine stores the column a second time")

    def refuse(*args: object, **kwargs: object) -> bool:
        raise RuntimeError("the engine refused the column")

    monkeypatch.setattr(stored_columns_module, "add_property_column", refuse)
    made = client.post(url(world), json={"property": KEY, "type": "event"}, headers=world.headers())
    assert made.status_code == 500
    assert listed(client, world) == []  # nothing listed as ready
    assert COLUMN not in {row[1] for row in conn.execute("PRAGMA table_xinfo(events)")}
    assert conn.execute("SELECT count(*) FROM materialized_columns").fetchone()[0] == 0
    assert client.post(url(world, "auto/"), headers=world.headers()).status_code == 200
    assert pro_counts(client, world) == [1, 1, 0]


@pytest.fixture
def event_engine() -> RecordedEngine:
    """The app and connection follow the engine the test records part-way (:mod:`tests.recorded_engine`)."""
    return RecordedEngine()
