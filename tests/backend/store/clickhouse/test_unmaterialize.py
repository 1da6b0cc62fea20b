"""Un-materializing a property on a ClickHouse engine drops its stored column from the events table, and the
answers stay the same: reads compute the value from the JSON again.

The project's events live in chdb (SQLite holds none), a trend filtered on ``plan`` and one broken down by it
are asked through the API before materializing, while materialized, and after the property is dropped.

event        who    day  plan
$pageview    alice  10   "pro"
$pageview    bob    10   "free"
$pageview    alice  11   "pro"
$pageview    carol  12   true        (a boolean: the bucket "true")
$pageview    dave   12   (missing)   (PostHog's null bucket)
signup       alice  12   "pro"       (another event: counted by neither trend)

Pageviews with plan "pro", the 10th to the 14th: alice on the 10th and the 11th, [1, 1, 0, 0, 0].
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from local_backend.store.engine.choice import choose_engine
from local_backend.store.engine.clickhouse.client import ClickHouseClient
from local_backend.store.engine.clickhouse.engine import client_for
from local_backend.store.engine.clickhouse.stored_columns import HOT_COLUMNS, drop_property_column, stored_columns
from local_backend.store.engine.spec import parse_engine
from local_backend.store.materialized import column_name
from tests.backend.store.clickhouse.mirror import _session_folder, mirror
from tests.factories import add_events
from tests.recorded_engine import RecordedEngine

EVENTS = [
    ("$pageview", "alice", "2026-01-10T10:00:00Z", {"plan": "pro"}),
    ("$pageview", "bob", "2026-01-10T11:00:00Z", {"plan": "free"}),
    ("$pageview", "alice", "2026-01-11T10:00:00Z", {"plan": "pro"}),
    ("$pageview", "carol", "2026-01-12T10:00:00Z", {"plan": True}),
    ("$pageview", "dave", "2026-01-12T11:00:00Z", {}),
    ("signup", "alice", "2026-01-12T12:00:00Z", {"plan": "pro"}),
]
RANGE = {"date_from": "2026-01-10", "date_to": "2026-01-14"}
PRO = {
    **RANGE,
    "events": [{"id": "$pageview"}],
    "properties": [{"key": "plan", "value": "pro", "operator": "exact", "type": "event"}],
}
BY_PLAN = {**RANGE, "events": [{"id": "$pageview"}], "breakdown": "plan"}
EXPECTED_PRO = [1, 1, 0, 0, 0]
EXPECTED_BY_PLAN = {
    "pro": [1, 1, 0, 0, 0],
    "free": [1, 0, 0, 0, 0],
    "true": [0, 0, 1, 0, 0],
    "$$_posthog_breakdown_null_$$": [0, 0, 1, 0, 0],
}
COLUMN = column_name("event", "plan")


@pytest.fixture
def ch(conn, world) -> Iterator[ClickHouseClient]:
    """The test database on a chdb engine of its own, holding :data:`EVENTS` (none left in SQLite)."""
    choose_engine(conn, parse_engine(f"chdb:{_session_folder()}?database=unmat_{uuid.uuid4().hex[:12]}"))
    conn.commit()
    add_events(conn, world.project_id, EVENTS)
    client = client_for(conn)
    mirror(conn, client)  # type: ignore[arg-type]
    conn.execute("DELETE FROM events")
    conn.commit()
    yield client
    client.command(f"DROP DATABASE IF EXISTS `{client.database}`")


def answers(client, world) -> tuple[list[int], dict[str, list[int]]]:
    found: list[Any] = []
    for body in (PRO, BY_PLAN):
        response = client.post(f"/api/projects/{world.project_id}/insights/trend/", json=body, headers=world.headers())
        assert response.status_code == 200, response.text
        found.append(response.json()["result"])
    pro, by_plan = found
    return pro[0]["data"], {str(series["breakdown_value"]): series["data"] for series in by_plan}


def columns_of_events(ch: ClickHouseClient) -> set[str]:
    rows = ch.query_rows(
        "SELECT name FROM system.columns WHERE database = {db:String} AND table = 'events'", {"db": ch.database}
    )
    return {str(name) for (name,) in rows}


def claim(client, world, project_id: int, method: str) -> int:
    url = f"/api/projects/{project_id}/materialized_properties/"
    if method == "post":
        return client.post(url, json={"property": "plan", "type": "event"}, headers=world.headers()).status_code
    return client.delete(url, params={"property": "plan", "type": "event"}, headers=world.headers()).status_code


def test_unmaterializing_drops_the_stored_column_and_answers_stay_the_same(client, world, ch) -> None:
    assert answers(client, world) == (EXPECTED_PRO, EXPECTED_BY_PLAN)
    assert claim(client, world, world.project_id, "post") == 201
    assert COLUMN in stored_columns(ch)
    assert answers(client, world) == (EXPECTED_PRO, EXPECTED_BY_PLAN)

    assert claim(client, world, world.project_id, "delete") == 204
    assert COLUMN not in columns_of_events(ch)
    assert set(HOT_COLUMNS) <= stored_columns(ch)  # the hot properties keep their columns
    assert answers(client, world) == (EXPECTED_PRO, EXPECTED_BY_PLAN)


def test_the_column_stays_while_another_project_claims_the_property(client, world, ch) -> None:
    assert claim(client, world, world.project_id, "post") == 201
    assert claim(client, world, world.other_project_id, "post") == 201
    assert claim(client, world, world.project_id, "delete") == 204
    assert COLUMN in stored_columns(ch)  # the other project's claim keeps it
    assert claim(client, world, world.other_project_id, "delete") == 204
    assert COLUMN not in columns_of_events(ch)
    # materializing again stores it again, filled for the rows already there
    assert claim(client, world, world.project_id, "post") == 201
    assert ch.query_rows(f"SELECT {COLUMN} FROM `{ch.database}`.events WHERE event = 'signup'") == [("pro",)]
    assert answers(client, world) == (EXPECTED_PRO, EXPECTED_BY_PLAN)


@pytest.mark.parametrize("column", [*HOT_COLUMNS, "session_id", "day", "properties"])
def test_only_a_materialized_propertys_column_can_be_dropped(ch, column: str) -> None:
    with pytest.raises(ValueError, match="not a materialized property's column"):
        drop_property_column(ch, column)
    assert column in columns_of_events(ch)


@pytest.fixture
def event_engine() -> RecordedEngine:
    """The app and connection follow the engine the test records part-way (:mod:`tests.recorded_engine`)."""
    return RecordedEngine()
