"""Events: access, bad input, newest-first order, filters, and paging through ``next`` without losing ties.

The listing and values tests run once per event engine (``engine``, tests/backend/routes/conftest.py).
"""

from __future__ import annotations

import json

import pytest

from tests.backend.catalog_helpers import AUTH_CASES, check_auth_case, check_bad_input, seed_catalog
from tests.factories import add_events

EVENTS = "/api/projects/{pid}/events"

# (name, method, path, body, status when all is well, a scope that is NOT enough)
ENDPOINTS = [
    ("list", "GET", EVENTS, None, 200, "person:read"),
    ("retrieve", "GET", EVENTS + "/{eid}", None, 200, "event_definition:read"),
    ("values", "GET", EVENTS + "/values?key=plan", None, 200, "person:read"),
]

BAD_INPUT = [
    # (method, path, status, code, attr)
    ("GET", EVENTS + "?after=yesterday", 400, "invalid_input", "after"),
    ("GET", EVENTS + "?before=2026-13-01", 400, "invalid_input", "before"),
    ("GET", EVENTS + "?before_id=3", 400, "invalid_input", "before_id"),
    ("GET", EVENTS + "?before=2026-01-12&before_id=x", 400, "invalid_input", "before_id"),
    ("GET", EVENTS + "?limit=0", 400, "invalid_input", "limit"),
    ("GET", EVENTS + "?limit=ten", 400, "invalid_input", "limit"),
    ("GET", EVENTS + "?properties=[{", 400, "invalid_input", "properties"),
    (
        "GET",
        EVENTS + '?properties=[{"key":"plan","operator":"matches"}]',
        400,
        "invalid_input",
        "properties__0__operator",
    ),
    (
        "GET",
        EVENTS + '?properties=[{"key":"plan","type":"group"}]',
        400,
        "invalid_input",
        "properties__0__group_type_index",
    ),
    ("GET", EVENTS + "?properties=" + "[" * 5000 + "]" * 5000, 400, "invalid_input", "properties"),
    ("GET", EVENTS + "?properties=" + "[" * 11 + "]" * 11, 400, "invalid_input", "properties"),
    ("GET", EVENTS + "?after=0001-01-01T00:00:00%2B14:00", 400, "invalid_input", "after"),
    ("GET", EVENTS + "/{oeid}", 404, "not_found", None),
    ("GET", EVENTS + "/not-an-event", 404, "not_found", None),
]


@pytest.fixture
def seed(conn, world):
    return seed_catalog(conn, world)


@pytest.mark.parametrize("case, kind, status, code", AUTH_CASES, ids=[c[0] for c in AUTH_CASES])
@pytest.mark.parametrize("name, method, path, body, ok_status, weak_scope", ENDPOINTS, ids=[e[0] for e in ENDPOINTS])
def test_auth_table(client, world, seed, name, method, path, body, ok_status, weak_scope, case, kind, status, code):
    check_auth_case(client, world, seed, method, path, body, ok_status, weak_scope, kind, status, code)


@pytest.mark.parametrize("method, path, status, code, attr", BAD_INPUT)
def test_bad_input_table(client, world, seed, method, path, status, code, attr):
    check_bad_input(client, world, seed, method, path, None, status, code, attr, listing=EVENTS)


def fetch(client, world, **params) -> dict:
    response = client.get(f"/api/projects/{world.project_id}/events/", params=params, headers=world.headers())
    assert response.status_code == 200, response.text
    return response.json()


def summary(body: dict) -> list[tuple[str, str, str]]:
    return [(e["event"], e["distinct_id"], e["timestamp"]) for e in body["results"]]


def test_newest_first_with_the_person(client, world, seed, engine):
    engine()
    body = fetch(client, world)
    assert summary(body) == [
        ("$pageview", "bob", "2026-01-11T09:00:00Z"),
        ("signup", "alice", "2026-01-10T10:05:00Z"),
        ("$pageview", "alice", "2026-01-10T10:00:00Z"),
    ]
    assert body["next"] is None
    signup = body["results"][1]
    assert signup == {
        "id": seed.event_uuid,
        "distinct_id": "alice",
        "properties": {"plan": "pro"},
        "event": "signup",
        "timestamp": "2026-01-10T10:05:00Z",
        "person": {
            "is_identified": False,
            "distinct_ids": ["alice"],
            "properties": {"email": "alice@example.com", "plan": "pro"},
        },
        "elements": [],
        "elements_chain": "",
    }
    one = client.get(f"/api/projects/{world.project_id}/events/{seed.event_uuid}/", headers=world.headers())
    assert one.json() == signup


def test_filters(client, world, seed, engine):
    engine()
    assert summary(fetch(client, world, event="signup")) == [("signup", "alice", "2026-01-10T10:05:00Z")]
    assert [e[1] for e in summary(fetch(client, world, distinct_id="bob"))] == ["bob"]
    assert [e[0] for e in summary(fetch(client, world, person_id=str(seed.persons["alice"])))] == [
        "signup",
        "$pageview",
    ]
    assert len(fetch(client, world, person_id=seed.person_uuid)["results"]) == 2
    assert fetch(client, world, person_id="999999")["results"] == []
    # after and before are exclusive
    between = fetch(client, world, after="2026-01-10T10:00:00Z", before="2026-01-11T09:00:00Z")
    assert summary(between) == [("signup", "alice", "2026-01-10T10:05:00Z")]
    # a date without a time is midnight in the project's timezone (UTC here)
    assert [e[1] for e in summary(fetch(client, world, after="2026-01-11"))] == ["bob"]
    pricing = [{"key": "$current_url", "operator": "icontains", "value": "PRICING"}]
    assert [e[1] for e in summary(fetch(client, world, properties=json.dumps(pricing)))] == ["alice"]
    by_person = [{"key": "email", "value": "bob@corp.io", "type": "person"}]
    assert [e[1] for e in summary(fetch(client, world, properties=json.dumps(by_person)))] == ["bob"]


def test_relative_after_uses_the_clock(client, world, seed, engine):
    engine()
    # the clock says 2026-01-15T12:00Z: -4d is 2026-01-11T12:00Z, after every seeded event
    assert fetch(client, world, after="-4d")["results"] == []
    assert [e[1] for e in summary(fetch(client, world, after="-5d"))] == ["bob"]


def test_paging_follows_next_and_keeps_events_that_share_a_timestamp(client, world, conn, engine):
    same = "2026-01-05T00:00:00Z"
    add_events(
        conn,
        world.project_id,
        [("tick", "u", same, {"n": 1}), ("tick", "u", same, {"n": 2}), ("tick", "u", same, {"n": 3}),
         ("tick", "u", "2026-01-04T00:00:00Z", {"n": 0}), ("tick", "u", "2026-01-06T00:00:00Z", {"n": 4})],
    )  # fmt: skip
    kind = engine()
    seen: list[int] = []
    body = fetch(client, world, event="tick", limit=2)
    pages = 1
    while True:
        seen += [e["properties"]["n"] for e in body["results"]]
        if body["next"] is None:
            break
        assert "event=tick" in body["next"] and "limit=2" in body["next"]
        body = client.get(body["next"], headers=world.headers()).json()
        pages += 1
    # newest first; each of the three at the same instant once, on SQLite newest-stored first (ClickHouse keeps
    # no insertion order: it lists them by a hash of their uuids)
    assert (seen[0], sorted(seen[1:4]), seen[4]) == (4, [1, 2, 3], 0)
    if kind == "sqlite":
        assert seen == [4, 3, 2, 1, 0]
    assert pages == 3


def test_other_projects_events_are_not_listed(client, world, seed, engine):
    engine()
    other = client.get(f"/api/projects/{world.other_project_id}/events/", headers=world.headers()).json()
    assert [e["distinct_id"] for e in other["results"]] == ["zed"]


class _Session:
    """The test client as the toolkit's session (the test client refuses per-request timeouts)."""

    def __init__(self, client) -> None:
        self.client = client

    def request(self, method: str, url: str, timeout: float | None = None, **kwargs):
        return self.client.request(method, url, **kwargs)

    def close(self) -> None:
        pass


def test_toolkit_reads_events_persons_definitions_and_actions(client, world, seed):
    from toolkit import Client

    tk = Client(base_url="http://testserver", api_key=world.key, project_id=world.project_id, session=_Session(client))
    events = tk.events(limit=None)
    assert events["distinct_id"].tolist() == ["bob", "alice", "alice"]
    assert str(events["timestamp"].dtype) == "datetime64[ns, UTC]"
    assert tk.events(limit=2, event="$pageview")["distinct_id"].tolist() == ["bob", "alice"]
    persons = tk.persons(search="corp")
    assert persons["distinct_ids"].tolist() == [["bob"]]
    assert tk.event_definitions()["name"].tolist() == ["$pageview", "signup"]
    assert tk.property_definitions(type="person")["name"].tolist() == ["email"]
    assert tk.actions()["name"].tolist() == ["Signed up"]


VALUES = "/api/projects/{pid}/events/values/"


def values(client, world, **params) -> list:
    path = VALUES.format(pid=world.project_id)
    response = client.get(path, params=params, headers=world.headers())
    assert response.status_code == 200, response.text
    return response.json()


def test_property_values_most_frequent_first_without_empty_ones(client, world, conn, engine):
    add_events(
        conn,
        world.project_id,
        [
            ("$pageview", "a", "2026-01-10T10:00:00Z", {"$browser": "Safari"}),
            ("$pageview", "a", "2026-01-10T10:01:00Z", {"$browser": "Chrome"}),
            ("$pageview", "b", "2026-01-10T10:02:00Z", {"$browser": "Chrome"}),
            ("$pageview", "b", "2026-01-10T10:03:00Z", {"$browser": ""}),
            ("$pageview", "b", "2026-01-10T10:04:00Z", {"$browser": None}),
            ("signup", "c", "2026-01-10T10:05:00Z", {"$browser": "Firefox", "paid": True, "seats": 3}),
            ("signup", "c", "2026-01-10T10:06:00Z", {'say "hi"': "hello"}),
        ],
    )
    engine()
    # Chrome twice; Firefox and Safari once each, by name; "" and null are no value
    assert values(client, world, key="$browser") == [{"name": "Chrome"}, {"name": "Firefox"}, {"name": "Safari"}]
    assert values(client, world, key="$browser", value="fire") == [{"name": "Firefox"}]
    assert values(client, world, key="$browser", event_name=["$pageview"]) == [{"name": "Chrome"}, {"name": "Safari"}]
    assert values(client, world, key="paid") == [{"name": "true"}]
    assert values(client, world, key="seats") == [{"name": "3"}]
    assert values(client, world, key='say "hi"') == [{"name": "hello"}]
    assert values(client, world, key="nothing") == []


# key is a required parameter (missing: "required", as every missing field); empty is an invalid one (a key of
# spaces is a key capture stores: tests/backend/queries/test_awkward_keys.py lists its values)
@pytest.mark.parametrize("query, code", [("", "required"), ("?key=", "invalid_input")])
def test_property_values_need_a_key(client, world, query, code):
    response = client.get(VALUES.format(pid=world.project_id) + query, headers=world.headers())
    assert response.status_code == 400
    assert (response.json()["code"], response.json()["attr"]) == (code, "key")


def test_property_values_stay_in_their_project(client, world, conn, engine):
    add_events(conn, world.other_project_id, [("$pageview", "z", "2026-01-10T10:00:00Z", {"$browser": "Opera"})])
    engine()
    assert values(client, world, key="$browser") == []
