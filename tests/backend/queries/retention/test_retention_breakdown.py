"""Retention broken down by an event property, a person property or cohorts, on hand-written pageviews; every
triangle worked out by hand from the rules of :mod:`local_backend.queries.retention.breakdown`.

Day cohorts Jan 12 (0), 13 (1), 14 (2), 15 (3); the app clock stands at Thursday 2026-01-15 12:00 UTC.

=====  ==============================================  =========
who    pageviews ($browser)                            plan
=====  ==============================================  =========
alice  12th Chrome, 13th Safari, 15th Chrome           pro
bob    12th Safari, 14th (no browser)                  free
carol  13th Chrome then Safari, 15th Firefox           pro
dave   14th Firefox                                    (none)
=====  ==============================================  =========

Each (person, cohort day) is filed under the browser of the person's first pageview that day: Chrome holds
alice@12, carol@13, alice@15 (3 in all); Firefox dave@14, carol@15 (2); Safari bob@12, alice@13 (2); the null
bucket bob@14 (1). Ties rank by value ascending, so the order is Chrome, Firefox, Safari, null. A return counts
whatever browser it was made with.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.factories import add_events

URL = "/api/projects/{pid}/insights/retention/"
NULL = "$$_posthog_breakdown_null_$$"
OTHER = "$$_posthog_breakdown_other_$$"
PAGEVIEWS = [
    ("$pageview", "alice", "2026-01-12T10:00:00Z", {"$browser": "Chrome"}),
    ("$pageview", "alice", "2026-01-13T09:00:00Z", {"$browser": "Safari"}),
    ("$pageview", "alice", "2026-01-15T08:00:00Z", {"$browser": "Chrome"}),
    ("$pageview", "bob", "2026-01-12T11:00:00Z", {"$browser": "Safari"}),
    ("$pageview", "bob", "2026-01-14T00:10:00Z"),
    ("$pageview", "carol", "2026-01-13T12:00:00Z", {"$browser": "Chrome"}),
    ("$pageview", "carol", "2026-01-13T13:00:00Z", {"$browser": "Safari"}),
    ("$pageview", "carol", "2026-01-15T11:00:00Z", {"$browser": "Firefox"}),
    ("$pageview", "dave", "2026-01-14T10:00:00Z", {"$browser": "Firefox"}),
]
PLANS = {"alice": {"plan": "pro"}, "carol": {"plan": "pro"}, "bob": {"plan": "free"}}
ZERO = [[0, 0, 0, 0], [0, 0, 0], [0, 0], [0]]
# per browser; alice (12th) is back on the 13th and 15th, carol (13th) on the 15th, bob (12th) on the 14th
CHROME = [[1, 1, 0, 1], [1, 0, 1], [0, 0], [1]]
FIREFOX = [[0, 0, 0, 0], [0, 0, 0], [1, 0], [1]]  # dave (14th) not back; carol's 15th
SAFARI = [[1, 0, 1, 0], [1, 0, 1], [0, 0], [0]]  # bob (12th) back on the 14th; alice (13th) back on the 15th
NULL_ROWS = [[0, 0, 0, 0], [0, 0, 0], [1, 0], [0]]  # bob's 14th, not back on the 15th


@pytest.fixture
def ids(conn, world) -> dict[str, int]:
    return add_events(conn, world.project_id, PAGEVIEWS, persons=PLANS)


def retention(client, world, **params: Any) -> dict[str, Any]:
    body = {"total_intervals": 4, **params}
    response = client.post(URL.format(pid=world.project_id), json=body, headers=world.headers())
    assert response.status_code == 200, response.json()
    return response.json()


def by_value(payload: dict[str, Any]) -> dict[Any, list[list[int]]]:
    """Each value's triangle (the legacy ``result``, or ``results`` of ``/query/``)."""
    tables: dict[Any, list[list[int]]] = {}
    for row in payload["result"] if "result" in payload else payload["results"]:
        tables.setdefault(row["breakdown_value"], []).append([value["count"] for value in row["values"]])
    return tables


def names(client, world, url: str) -> set[str]:
    response = client.get(url, headers=world.headers())
    assert response.status_code == 200, response.json()
    return {distinct_id for item in response.json()["result"] for distinct_id in item["person"]["distinct_ids"]}


def test_each_cohort_is_filed_under_its_start_events_value(client, world, ids):
    payload = retention(client, world, breakdown="$browser")
    assert list(by_value(payload)) == ["Chrome", "Firefox", "Safari", NULL]
    assert by_value(payload) == {"Chrome": CHROME, "Firefox": FIREFOX, "Safari": SAFARI, NULL: NULL_ROWS}
    assert [row["label"] for row in payload["result"][:4]] == ["Day 0", "Day 1", "Day 2", "Day 3"]
    assert payload["result"][4]["date"] == "2026-01-12T00:00:00Z"


def test_values_past_the_limit_are_merged_into_other(client, world, ids):
    payload = retention(client, world, breakdown="$browser", breakdown_limit=2)
    # Other holds Safari and the null bucket: bob@12 (back 14th), alice@13 (back 15th), bob@14 (not back)
    other = [[1, 0, 1, 0], [1, 0, 1], [1, 0], [0]]
    assert by_value(payload) == {"Chrome": CHROME, "Firefox": FIREFOX, OTHER: other}


def test_first_time_retention_takes_the_value_of_the_first_event_ever(client, world, ids):
    payload = retention(client, world, breakdown="$browser", retention_type="retention_first_time")
    # first pageviews: alice Chrome (12th), carol Chrome (13th), bob Safari (12th), dave Firefox (14th); each
    # joins that one cohort only, so alice is no longer a Chrome cohort of the 15th
    assert by_value(payload) == {
        "Chrome": [[1, 1, 0, 1], [1, 0, 1], [0, 0], [0]],
        "Firefox": [[0, 0, 0, 0], [0, 0, 0], [1, 0], [0]],
        "Safari": [[1, 0, 1, 0], [0, 0, 0], [0, 0], [0]],
    }


def test_a_person_property_splits_persons_whole(client, world, ids):
    payload = retention(client, world, breakdown="plan", breakdown_type="person")
    # pro: alice (12, 13, 15) and carol (13, 15); free: bob (12, 14); dave has no plan
    assert by_value(payload) == {
        "pro": [[1, 1, 0, 1], [2, 0, 2], [0, 0], [2]],
        "free": [[1, 0, 1, 0], [0, 0, 0], [1, 0], [0]],
        NULL: [[0, 0, 0, 0], [0, 0, 0], [1, 0], [0]],
    }


def test_cohorts_split_by_membership_in_the_order_given(client, world, conn, ids):
    conn.execute(
        "INSERT INTO cohorts (project_id, name, is_static, created_at, updated_at) VALUES (?, 'Early', 1, '', '')",
        (world.project_id,),
    )
    cohort = conn.execute("SELECT id FROM cohorts").fetchone()[0]
    conn.executemany("INSERT INTO cohort_people VALUES (?, ?)", [(cohort, ids["alice"]), (cohort, ids["dave"])])
    conn.commit()
    payload = retention(client, world, breakdown=["all", cohort], breakdown_type="cohort")
    # everyone: the plain triangle; the cohort: alice (12, 13, 15) and dave (14)
    assert by_value(payload) == {
        "all": [[2, 1, 1, 1], [2, 0, 2], [2, 0], [2]],
        cohort: [[1, 1, 0, 1], [1, 0, 1], [1, 0], [1]],
    }
    cell = payload["result"][4 + 1]["values"][2]  # the cohort's Jan 13 row, back on the 15th
    assert names(client, world, cell["people_url"]) == {"alice"}


def test_every_cell_url_lists_exactly_the_people_it_counts(client, world, ids):
    payload = retention(client, world, breakdown="$browser", breakdown_limit=2)
    expected = {
        ("Chrome", 0): [{"alice"}, {"alice"}, set(), {"alice"}],
        ("Chrome", 1): [{"carol"}, set(), {"carol"}],
        ("Chrome", 3): [{"alice"}],
        ("Firefox", 2): [{"dave"}, set()],
        ("Firefox", 3): [{"carol"}],
        (OTHER, 0): [{"bob"}, set(), {"bob"}, set()],
        (OTHER, 1): [{"alice"}, set(), {"alice"}],
        (OTHER, 2): [{"bob"}, set()],
    }
    for index, row in enumerate(payload["result"]):
        cohort = index % 4
        cells = expected.get((row["breakdown_value"], cohort), [set()] * (4 - cohort))
        assert names(client, world, row["people_url"]) == cells[0]
        for offset, value in enumerate(row["values"]):
            listed = names(client, world, value["people_url"])
            assert listed == cells[offset] and len(listed) == value["count"], (row["breakdown_value"], cohort, offset)


def test_a_value_the_result_does_not_show_is_a_400(client, world, ids):
    payload = retention(client, world, breakdown="$browser", breakdown_limit=2)
    url = payload["result"][0]["people_url"].replace("breakdown_value=Chrome", "breakdown_value=Opera")
    response = client.get(url, headers=world.headers())
    assert (response.status_code, response.json()["attr"]) == (400, "breakdown_value")


def test_the_query_node_and_a_saved_insight_answer_the_same(client, world, ids):
    node = {
        "kind": "RetentionQuery",
        "retentionFilter": {"totalIntervals": 4},
        "breakdownFilter": {"breakdown": "$browser", "breakdown_type": "event", "breakdown_limit": 2},
    }
    answer = client.post(f"/api/projects/{world.project_id}/query/", json={"query": node}, headers=world.headers())
    assert answer.status_code == 200, answer.json()
    expected = by_value(retention(client, world, breakdown="$browser", breakdown_limit=2))
    assert by_value(answer.json()) == expected
    filters = {"insight": "RETENTION", "total_intervals": 4, "breakdown": "$browser", "breakdown_limit": 2}
    base = f"/api/projects/{world.project_id}/insights/"
    created = client.post(base, json={"name": "By browser", "filters": filters}, headers=world.headers()).json()
    saved = client.get(f"{base}{created['id']}/?refresh=blocking", headers=world.headers()).json()
    assert by_value(saved) == expected
    csv = client.get(f"{base}{created['id']}/?refresh=blocking&format=csv", headers=world.headers())
    assert csv.status_code == 200
    assert "result.0.breakdown_value" in csv.text and OTHER in csv.text


@pytest.mark.parametrize(
    "fields, attr",
    [
        ({"breakdown": "$session_duration", "breakdown_type": "session"}, "breakdown_type"),
        ({"breakdown": "plan", "breakdown_type": "group"}, "breakdown_group_type_index"),
        ({"breakdown": ["a", "b"]}, "breakdown"),
        ({"breakdown": "$browser", "breakdown_normalize_url": True}, "breakdown_normalize_url"),
    ],
)
def test_breakdowns_it_cannot_compute_are_400s(client, world, ids, fields, attr):
    body = json.loads(json.dumps({"total_intervals": 4, **fields}))
    response = client.post(URL.format(pid=world.project_id), json=body, headers=world.headers())
    assert (response.status_code, response.json()["attr"]) == (400, attr), response.json()
