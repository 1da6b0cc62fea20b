"""An insight shown on a dashboard (``?from_dashboard=``) computes with the dashboard's dates and filters.

Hand-worked case, daily recurring retention over 3 intervals:
u1 views on the 13th (Safari) and the 14th (Safari), u2 on the 13th (Chrome), u3 on the 15th (Safari).
- The insight alone (ending on the 15th): cohorts 13th {u1, u2} -> [2, 1, 0], 14th {u1} -> [1, 0], 15th {u3} -> [1].
- A dashboard ending on the 14th: cohorts 12th {} -> [0, 0, 0], 13th {u1, u2} -> [2, 1], 14th {u1} -> [1].
- A dashboard keeping Safari only: 13th {u1} -> [1, 1, 0], 14th {u1} -> [1, 0], 15th {u3} -> [1].
"""

from __future__ import annotations

import json

import pytest

from local_backend.results.dashboard_filters import apply_dashboard_filters
from tests.factories import add_events

SAFARI = {"key": "$browser", "value": "Safari", "operator": "exact", "type": "event"}
PRO = {"key": "plan", "value": "pro", "type": "person"}


@pytest.mark.parametrize(
    ("insight", "dashboard", "expected"),
    [
        ({"date_from": "-30d"}, {}, {"date_from": "-30d"}),
        ({"date_from": "-30d", "date_to": "-1d"}, {"date_from": "-7d"}, {"date_from": "-7d"}),
        ({"date_from": "-30d"}, {"date_from": "-7d", "date_to": "-2d"}, {"date_from": "-7d", "date_to": "-2d"}),
        ({"date_from": "-30d"}, {"date_to": "-2d"}, {"date_from": "-30d"}),  # no date_from: dates untouched
        ({}, {"properties": [SAFARI]}, {"properties": [SAFARI]}),
        ({"properties": [PRO]}, {"properties": [SAFARI]}, {"properties": [PRO, SAFARI]}),
        (
            {"properties": {"type": "OR", "values": [PRO]}},
            {"properties": [SAFARI]},
            {
                "properties": {
                    "type": "AND",
                    "values": [{"type": "OR", "values": [PRO]}, {"type": "AND", "values": [SAFARI]}],
                }
            },
        ),
        ({"interval": "week"}, {"interval": "day", "breakdown": "$os"}, {"interval": "week"}),  # only dates, filters
    ],
)
def test_dashboard_dates_replace_and_properties_narrow(insight, dashboard, expected):
    assert apply_dashboard_filters(insight, dashboard) == expected


RETENTION = {
    "insight": "RETENTION",
    "target_entity": {"id": "$pageview", "type": "events"},
    "period": "Day",
    "total_intervals": 3,
    "date_to": "2026-01-15",
}


@pytest.fixture
def insight_url(conn, world, client):
    add_events(
        conn,
        world.project_id,
        [
            ("$pageview", "u1", "2026-01-13T09:00:00Z", {"$browser": "Safari"}),
            ("$pageview", "u2", "2026-01-13T10:00:00Z", {"$browser": "Chrome"}),
            ("$pageview", "u1", "2026-01-14T09:00:00Z", {"$browser": "Safari"}),
            ("$pageview", "u3", "2026-01-15T08:00:00Z", {"$browser": "Safari"}),
        ],
    )
    base = f"/api/projects/{world.project_id}/insights/"
    insight_id = client.post(base, json={"name": "Retention", "filters": RETENTION}, headers=world.headers()).json()
    return f"{base}{insight_id['id']}/"


def _dashboard(conn, project_id: int, filters: dict) -> int:
    cursor = conn.execute(
        "INSERT INTO dashboards (project_id, name, filters, deleted, created_at, updated_at)"
        " VALUES (?, 'Board', ?, 0, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
        (project_id, json.dumps(filters)),
    )
    return int(cursor.lastrowid or 0)


def _counts(body):
    return [[value["count"] for value in row["values"]] for row in body["result"]]


@pytest.mark.parametrize(
    ("dashboard", "expected"),
    [
        ({"date_from": "-7d", "date_to": "2026-01-14"}, [[0, 0, 0], [2, 1], [1]]),
        ({"properties": [SAFARI]}, [[1, 1, 0], [1, 0], [1]]),
        ({}, [[2, 1, 0], [1, 0], [1]]),
    ],
)
def test_retrieve_from_dashboard_computes_with_its_filters(client, world, conn, insight_url, dashboard, expected):
    dashboard_id = _dashboard(conn, world.project_id, dashboard)
    on_board = client.get(f"{insight_url}?refresh=blocking&from_dashboard={dashboard_id}", headers=world.headers())
    assert on_board.status_code == 200
    assert _counts(on_board.json()) == expected
    # the insight on its own keeps its own numbers: the dashboard's result is cached apart
    alone = client.get(f"{insight_url}?refresh=blocking", headers=world.headers()).json()
    assert _counts(alone) == [[2, 1, 0], [1, 0], [1]]


# beyond 64 bits SQLite cannot bind the id; non-ASCII digits are no id either
@pytest.mark.parametrize("value", ["abc", "999", "-1", str(2**63), "%D9%A2"])
def test_unknown_dashboard_is_a_400_on_from_dashboard(client, world, insight_url, value):
    response = client.get(f"{insight_url}?refresh=blocking&from_dashboard={value}", headers=world.headers())
    assert response.status_code == 400
    assert response.json()["attr"] == "from_dashboard"


def test_dashboard_of_another_project_is_not_found(client, world, conn, insight_url):
    dashboard_id = _dashboard(conn, world.other_project_id, {"date_from": "-7d", "date_to": "2026-01-14"})
    response = client.get(f"{insight_url}?from_dashboard={dashboard_id}", headers=world.headers())
    assert (response.status_code, response.json()["code"]) == (400, "does_not_exist")
