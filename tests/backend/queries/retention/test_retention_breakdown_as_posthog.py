"""PostHog's own retention breakdown cases replayed: ``test_retention_with_breakdown_with_person_properties``,
``test_retention_with_breakdown_event_properties`` and ``test_retention_actor_query_with_breakdown`` of its
retention runner tests, their events rewritten in our factories and their expected tables as PostHog gives them
(PostHog pads each row to a full matrix with zeros; this backend answers the triangle, so each row is compared
with the start of PostHog's, and the padding is checked to be zeros).

PostHog's ``_date(day)`` is 2020-06-(10 + day) 05:00 UTC; the queries end on 2020-06-15 00:00 (six day cohorts).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.factories import add_events


def _date(day: int) -> str:
    return f"2020-06-{10 + day}T05:00:00Z"


def _triangle(matrix: list[list[int]]) -> list[list[int]]:
    size = len(matrix)
    assert all(value == 0 for index, row in enumerate(matrix) for value in row[size - index :])
    return [row[: size - index] for index, row in enumerate(matrix)]


def _query(client, world, breakdown: dict[str, Any], days: int = 6, date_to: str = "2020-06-15") -> list[dict]:
    node = {
        "kind": "RetentionQuery",
        "dateRange": {"date_to": date_to},
        "retentionFilter": {"totalIntervals": days, "period": "Day"},
        "breakdownFilter": {"breakdowns": [breakdown]},
    }
    response = client.post(f"/api/projects/{world.project_id}/query/", json={"query": node}, headers=world.headers())
    assert response.status_code == 200, response.json()
    return response.json()["results"]


def _tables(rows: list[dict]) -> dict[str, list[list[int]]]:
    tables: dict[str, list[list[int]]] = {}
    for row in rows:
        tables.setdefault(row["breakdown_value"], []).append([value["count"] for value in row["values"]])
    return tables


# (person, day) as PostHog writes them, with the person's country and each event's browser
VISITS = [
    ("person1", 0, "Chrome"), ("person1", 1, "Chrome"), ("person1", 3, "Chrome"),
    ("person3", 0, "Chrome"), ("person3", 2, "Chrome"),
    ("person2", 0, "Safari"), ("person2", 1, "Safari"), ("person2", 4, "Safari"),
    ("person4", 0, "Firefox"), ("person4", 5, "Firefox"),
]  # fmt: skip
COUNTRIES = {"person1": "US", "person2": "UK", "person3": "US", "person4": "Germany"}
FIRST = [
    [2, 1, 1, 1, 0, 0],
    [1, 0, 1, 0, 0, 0],
    [1, 0, 0, 0, 0, 0],
    [1, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0],
]
SECOND = [
    [1, 1, 0, 0, 1, 0],
    [1, 0, 0, 1, 0, 0],
    [0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0],
    [1, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0],
]
THIRD = [
    [1, 0, 0, 0, 0, 1],
    [0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0],
    [1, 0, 0, 0, 0, 0],
]


@pytest.fixture
def visits(conn, world) -> None:
    events = [("$pageview", who, _date(day), {"browser": browser}) for who, day, browser in VISITS]
    persons = {who: {"country": country} for who, country in COUNTRIES.items()}
    add_events(conn, world.project_id, events, persons=persons)


def test_retention_with_breakdown_with_person_properties(client, world, visits):
    tables = _tables(_query(client, world, {"property": "country", "type": "person"}))
    assert tables == {"US": _triangle(FIRST), "UK": _triangle(SECOND), "Germany": _triangle(THIRD)}


def test_retention_with_breakdown_event_properties(client, world, visits):
    tables = _tables(_query(client, world, {"property": "browser", "type": "event"}))
    assert tables == {"Chrome": _triangle(FIRST), "Safari": _triangle(SECOND), "Firefox": _triangle(THIRD)}


def test_retention_actor_query_with_breakdown(client, world, conn):
    events = [
        ("$pageview", who, _date(day))
        for who, days in (("person1", (0, 1, 2)), ("person2", (0, 1, 2)), ("person3", (0, 1)))
        for day in days
    ]
    add_events(conn, world.project_id, events, persons={"person1": {"country": "US"}, "person2": {"country": "UK"},
                                                         "person3": {"country": "US"}})  # fmt: skip
    rows = _query(client, world, {"property": "country", "type": "person"}, days=3, date_to="2020-06-12")
    by_value = {(row["breakdown_value"], index % 3): row for index, row in enumerate(rows)}

    def people(row: dict) -> dict[str, list[int]]:
        listed = client.get(row["people_url"], headers=world.headers()).json()["result"]
        return {item["person"]["distinct_ids"][0]: item["appearances"] for item in listed}

    # PostHog: interval 0 of US lists person1 (back on intervals 1 and 2) and person3 (back on 1); interval 1
    # of UK lists person2 (back on the next one); appearances here mark each period with 1
    assert people(by_value[("US", 0)]) == {"person1": [1, 1, 1], "person3": [1, 1, 0]}
    assert people(by_value[("UK", 1)]) == {"person2": [1, 1]}
