"""The people behind every lifecycle number: each status series' ``persons_urls[i]`` lists the actors of that
status in interval i.

Hand-written events of ``e`` by day, 12-14 January 2026 (the clock is Thursday the 15th); persons are created at
the epoch unless said: u1 on the 11th, 12th and 14th; u2 on the 13th; u3 created on the 12th and active that
day. Statuses by hand (the 11th is the interval before the range): 12th u1 returning, u3 new; 13th u2
resurrecting, u1 and u3 dormant; 14th u1 resurrecting, u2 dormant.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.factories import add_events

TREND = "/api/projects/{pid}/insights/trend/"
BASE = {"insight": "LIFECYCLE", "events": [{"id": "e"}], "date_from": "2026-01-12", "date_to": "2026-01-14"}
EXPECTED = {
    "new": [{"u3"}, set(), set()],
    "returning": [{"u1"}, set(), set()],
    "resurrecting": [set(), {"u2"}, {"u1"}],
    "dormant": [set(), {"u1", "u3"}, {"u2"}],
}


@pytest.fixture
def stored(conn, world):
    add_events(
        conn,
        world.project_id,
        [
            ("e", "u1", "2026-01-11T09:00:00Z"),
            ("e", "u1", "2026-01-12T09:00:00Z"),
            ("e", "u1", "2026-01-14T09:00:00Z"),
            ("e", "u2", "2026-01-13T09:00:00Z"),
            ("e", "u3", "2026-01-12T10:00:00Z"),
        ],
    )
    # u3 was created on the 12th (2026-01-12T10:00:00Z in microseconds), so its first day is new
    conn.execute(
        "UPDATE persons SET created_at = ?"
        " WHERE id IN (SELECT person_id FROM person_distinct_ids WHERE distinct_id = 'u3')",
        (1_768_212_000_000_000,),
    )
    conn.commit()


def _lifecycle(client, world, **fields: Any) -> list[dict[str, Any]]:
    response = client.post(TREND.format(pid=world.project_id), json={**BASE, **fields}, headers=world.headers())
    assert response.status_code == 200, response.json()
    return response.json()["result"]


def _people(client, world, url: str) -> set[str]:
    response = client.get(url, headers=world.headers())
    assert response.status_code == 200, response.json()
    [page] = response.json()["results"]
    return {distinct_id for person in page["people"] for distinct_id in person["distinct_ids"]}


def test_each_status_and_interval_lists_its_actors(client, world, stored):
    result = _lifecycle(client, world)
    for series in result:
        people = [_people(client, world, link["url"]) for link in series["persons_urls"]]
        assert people == EXPECTED[series["status"]], series["status"]
        assert [abs(value) for value in series["data"]] == [len(names) for names in people]
        assert series["persons_urls"][0]["filter"]["target_date"] == "2026-01-12"


@pytest.mark.parametrize(
    ("change", "attr"),
    [
        (("target_date=2026-01-12", "target_date=2026-01-20"), "target_date"),
        (("lifecycle_type=new", "lifecycle_type=old"), "lifecycle_type"),
    ],
)
def test_an_interval_or_status_not_shown_is_a_400(client, world, stored, change, attr):
    [new, *_] = _lifecycle(client, world)
    response = client.get(new["persons_urls"][0]["url"].replace(*change), headers=world.headers())
    assert response.status_code == 400 and response.json()["attr"] == attr


def test_groups_are_listed_by_key(client, world, stored, conn):
    # u1's events belong to org1 (created at the epoch), active the 11th, 12th and 14th: returning on the 12th,
    # dormant on the 13th, resurrecting on the 14th
    conn.execute("UPDATE events SET group_0 = CASE distinct_id WHEN 'u1' THEN 'org1' ELSE '' END")
    conn.execute(
        "INSERT INTO groups (project_id, group_type_index, group_key, properties, created_at)"
        " VALUES (?, 0, 'org1', '{}', 0)",
        (world.project_id,),
    )
    conn.commit()
    result = _lifecycle(client, world, aggregation_group_type_index=0)
    by_status = {series["status"]: series for series in result}
    assert by_status["returning"]["data"] == [1.0, 0.0, 0.0]
    response = client.get(by_status["dormant"]["persons_urls"][1]["url"], headers=world.headers())
    assert [group["group_key"] for group in response.json()["results"][0]["people"]] == ["org1"]
