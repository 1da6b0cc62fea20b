"""Event and property definitions: access, bad input, ordering, search, paging and the event_names sample."""

from __future__ import annotations

import pytest

from tests.backend.catalog_helpers import (
    AUTH_CASES,
    add_event_definitions,
    add_property_definitions,
    check_auth_case,
    check_bad_input,
    seed_catalog,
)
from tests.factories import add_events

EVENTS = "/api/projects/{pid}/event_definitions"
PROPS = "/api/projects/{pid}/property_definitions"

# (name, method, path, body, status when all is well, a scope that is NOT enough)
ENDPOINTS = [
    ("event list", "GET", EVENTS, None, 200, "property_definition:read"),
    ("property list", "GET", PROPS, None, 200, "event_definition:read"),
    ("property list of persons", "GET", PROPS + "?type=person", None, 200, "person:read"),
    ("event retrieve", "GET", EVENTS + "/{edid}", None, 200, "property_definition:write"),
    ("property retrieve", "GET", PROPS + "/{pdid}", None, 200, "event_definition:write"),
]

BAD_INPUT = [
    # (method, path, status, code, attr)
    ("GET", EVENTS + "?limit=0", 400, "invalid_input", "limit"),
    ("GET", EVENTS + "?offset=x", 400, "invalid_input", "offset"),
    ("GET", EVENTS + "/not-a-definition", 404, "not_found", None),
    ("GET", PROPS + "?type=session", 400, "invalid_input", "type"),
    ("GET", PROPS + "?type=group", 400, "invalid_input", "group_type_index"),
    ("GET", PROPS + "?type=group&group_type_index=5", 400, "invalid_input", "group_type_index"),
    ("GET", PROPS + "?type=group&group_type_index=first", 400, "invalid_input", "group_type_index"),
    ("GET", PROPS + "?type=event&group_type_index=0", 400, "invalid_input", "group_type_index"),
    ("GET", PROPS + "?is_numerical=maybe", 400, "invalid_input", "is_numerical"),
    ("GET", PROPS + "?event_names=$pageview", 400, "invalid_input", "event_names"),
    ("GET", PROPS + '?event_names={"a":1}', 400, "invalid_input", "event_names"),
    ("GET", PROPS + "?event_names=[1,2]", 400, "invalid_input", "event_names"),
    ("GET", PROPS + "?filter_by_event_names=true", 400, "invalid_input", "filter_by_event_names"),
    ("GET", PROPS + "?excluded_properties=plan", 400, "invalid_input", "excluded_properties"),
    ("GET", PROPS + "/00000000-0000-0000-0000-000000000000", 404, "not_found", None),
]


@pytest.fixture
def seed(conn, world):
    return seed_catalog(conn, world)


def names(response) -> list[str]:
    assert response.status_code == 200, response.text
    return [item["name"] for item in response.json()["results"]]


@pytest.mark.parametrize("case, kind, status, code", AUTH_CASES, ids=[c[0] for c in AUTH_CASES])
@pytest.mark.parametrize("name, method, path, body, ok_status, weak_scope", ENDPOINTS, ids=[e[0] for e in ENDPOINTS])
def test_auth_table(client, world, seed, name, method, path, body, ok_status, weak_scope, case, kind, status, code):
    check_auth_case(client, world, seed, method, path, body, ok_status, weak_scope, kind, status, code)


@pytest.mark.parametrize("method, path, status, code, attr", BAD_INPUT)
def test_bad_input_table(client, world, seed, method, path, status, code, attr):
    check_bad_input(client, world, seed, method, path, None, status, code, attr, listing=PROPS)


def test_event_definitions_by_volume_then_name(client, world, seed, conn):
    seen = "2026-01-01T00:00:00Z"
    add_event_definitions(conn, world.project_id, [("purchase", 2, seen, seen), ("a_rare", 1, seen, seen)])
    add_events(conn, world.project_id, [("purchase", "bob", seen), ("purchase", "bob", seen), ("a_rare", "bob", seen)])
    response = client.get(f"/api/projects/{world.project_id}/event_definitions/", headers=world.headers())
    # volumes: $pageview 2, purchase 2, a_rare 1, signup 1; ties by name ($ sorts before letters)
    assert names(response) == ["$pageview", "purchase", "a_rare", "signup"]
    first = response.json()["results"][0]
    assert first["volume_30_day"] == 2
    assert first["query_usage_30_day"] is None
    assert first["created_at"] == "2026-01-10T10:00:00Z"
    assert first["last_seen_at"] == "2026-01-11T09:00:00Z"
    assert response.json()["count"] == 4


# The clock stands at 2026-01-15 12:00 UTC: the window opens at 2025-12-16 12:00 UTC and closes now.
THIRTY_DAYS = [
    ("export", "kai", "2025-11-01T10:00:00Z"),
    ("export", "kai", "2025-12-16T11:59:59Z"),  # a second too early
    ("export", "kai", "2025-12-16T12:00:00Z"),  # exactly 30 days ago: counted
    ("export", "lou", "2026-01-02T08:00:00Z"),
    ("export", "lou", "2026-01-15T12:00:00Z"),  # now: counted
    ("export", "lou", "2026-01-15T12:00:01Z"),  # after now
    ("archive", "kai", "2025-10-01T10:00:00Z"),  # only long ago
]


def test_volume_30_day_counts_the_last_30_days_by_the_server_clock(client, world, seed, conn, engine):
    add_events(conn, world.project_id, THIRTY_DAYS)
    add_events(conn, world.other_project_id, [("export", "zed", "2026-01-10T10:00:00Z")])
    add_event_definitions(
        conn,
        world.project_id,
        [("export", 6, "2025-11-01T10:00:00Z", "2026-01-15T12:00:01Z"),
         ("archive", 40, "2025-10-01T10:00:00Z", "2025-10-01T10:00:00Z")],
    )  # fmt: skip
    engine()
    url = f"/api/projects/{world.project_id}/event_definitions/"
    listed = client.get(url, headers=world.headers()).json()["results"]
    # by the 30-day volume, not the all-time one: archive's 40 stored events are all older
    assert [(d["name"], d["volume_30_day"]) for d in listed] == [
        ("export", 3),
        ("$pageview", 2),
        ("signup", 1),
        ("archive", 0),
    ]
    one = client.get(url + listed[0]["id"], headers=world.headers()).json()
    assert one["volume_30_day"] == 3


def test_event_definition_search_needs_every_term(client, world, seed, conn):
    seen = "2026-01-01T00:00:00Z"
    add_event_definitions(
        conn, world.project_id, [("checkout started", 5, seen, seen), ("Checkout Finished", 3, seen, seen)]
    )
    add_events(
        conn, world.project_id, [("checkout started", "bob", seen)] * 5 + [("Checkout Finished", "bob", seen)] * 3
    )
    url = f"/api/projects/{world.project_id}/event_definitions/"
    assert names(client.get(url, params={"search": "CHECKOUT"}, headers=world.headers())) == [
        "checkout started",
        "Checkout Finished",
    ]
    assert names(client.get(url, params={"search": "out fin"}, headers=world.headers())) == ["Checkout Finished"]
    assert names(client.get(url, params={"search": "%"}, headers=world.headers())) == []
    assert names(client.get(url, params={"search": "   "}, headers=world.headers())) == [
        "checkout started",
        "Checkout Finished",
        "$pageview",
        "signup",
    ]


def test_event_definitions_page_with_next_and_previous(client, world, seed):
    url = f"/api/projects/{world.project_id}/event_definitions/"
    first = client.get(url, params={"limit": 1}, headers=world.headers()).json()
    assert [item["name"] for item in first["results"]] == ["$pageview"]
    assert first["previous"] is None
    second = client.get(first["next"], headers=world.headers()).json()
    assert [item["name"] for item in second["results"]] == ["signup"]
    assert second["next"] is None
    assert second["previous"].endswith("limit=1")


def test_event_definition_retrieve_by_listed_id_only_in_its_project(client, world, seed):
    listed = client.get(f"/api/projects/{world.project_id}/event_definitions/", headers=world.headers()).json()
    item = listed["results"][0]
    one = client.get(f"/api/projects/{world.project_id}/event_definitions/{item['id']}/", headers=world.headers())
    assert one.json() == item
    other = client.get(
        f"/api/projects/{world.other_project_id}/event_definitions/{item['id']}", headers=world.headers()
    )
    assert other.status_code == 404


def test_property_definitions_by_kind(client, world, seed):
    url = f"/api/projects/{world.project_id}/property_definitions/"
    assert names(client.get(url, headers=world.headers())) == ["$current_url", "plan"]
    assert names(client.get(url, params={"type": "person"}, headers=world.headers())) == ["email"]
    group = client.get(url, params={"type": "group", "group_type_index": 0}, headers=world.headers()).json()
    assert [(p["name"], p["type"], p["group_type_index"]) for p in group["results"]] == [("industry", "group", 0)]
    assert names(client.get(url, params={"type": "group", "group_type_index": 1}, headers=world.headers())) == []


def test_property_definitions_hide_bookkeeping_keys_and_filter_numbers(client, world, seed, conn):
    add_property_definitions(
        conn,
        world.project_id,
        [(1, "$set", -1, None, False), (1, "distinct_id", -1, "String", False), (1, "amount", -1, "Numeric", True),
         (1, "timestamp", -1, "Numeric", True)],
    )  # fmt: skip
    url = f"/api/projects/{world.project_id}/property_definitions/"
    assert names(client.get(url, headers=world.headers())) == ["$current_url", "amount", "plan", "timestamp"]
    assert names(client.get(url, params={"is_numerical": "true"}, headers=world.headers())) == ["amount"]
    assert names(client.get(url, params={"is_numerical": "false"}, headers=world.headers())) == ["$current_url", "plan"]
    excluded = client.get(url, params={"excluded_properties": '["plan","amount"]'}, headers=world.headers())
    assert names(excluded) == ["$current_url", "timestamp"]
    assert names(client.get(url, params={"properties": "plan,amount"}, headers=world.headers())) == ["amount", "plan"]
    assert names(client.get(url, params={"properties": " plan, ,"}, headers=world.headers())) == ["plan"]
    assert len(names(client.get(url, params={"properties": ""}, headers=world.headers()))) == 4
    amount = client.get(url, params={"search": "amo"}, headers=world.headers()).json()["results"][0]
    assert (amount["property_type"], amount["is_numerical"], amount["is_seen_on_filtered_events"]) == (
        "Numeric",
        True,
        None,
    )


def test_event_names_mark_and_order_the_properties_seen_on_them(client, world, seed, engine):
    engine()
    url = f"/api/projects/{world.project_id}/property_definitions/"
    # signup events carry only "plan"; $pageview events carry only "$current_url"
    marked = client.get(url, params={"event_names": '["signup"]'}, headers=world.headers()).json()["results"]
    assert [(p["name"], p["is_seen_on_filtered_events"]) for p in marked] == [
        ("plan", True),
        ("$current_url", False),
    ]
    only = client.get(
        url, params={"event_names": '["signup"]', "filter_by_event_names": "true"}, headers=world.headers()
    )
    assert names(only) == ["plan"]
    both = client.get(url, params={"event_names": '["signup","$pageview"]', "filter_by_event_names": "1"},
                      headers=world.headers())  # fmt: skip
    assert names(both) == ["$current_url", "plan"]
    none = client.get(
        url, params={"event_names": '["never"]', "filter_by_event_names": "true"}, headers=world.headers()
    )
    assert none.json() == {"count": 0, "next": None, "previous": None, "results": []}


def test_event_names_sample_reads_only_the_newest_events(conn, world):
    from local_backend.store.definitions import properties_seen_on_events

    add_events(
        conn,
        world.project_id,
        [("click", "u1", "2026-01-01T00:00:00Z", {"old": 1}),
         ("click", "u1", "2026-01-02T00:00:00Z", {"new": 1}),
         ("click", "u1", "2026-01-03T00:00:00Z", {"newest": True, "nested": {"deep": 1}})],
    )  # fmt: skip
    assert properties_seen_on_events(conn, world.project_id, ["click"], sample=2) == {"new", "newest", "nested"}
    assert properties_seen_on_events(conn, world.project_id, ["click"], sample=3) == {"old", "new", "newest", "nested"}
    assert properties_seen_on_events(conn, world.other_project_id, ["click"]) == set()


def test_person_properties_are_never_seen_on_events(client, world, seed):
    url = f"/api/projects/{world.project_id}/property_definitions/"
    response = client.get(url, params={"type": "person", "event_names": '["signup"]'}, headers=world.headers())
    assert [(p["name"], p["is_seen_on_filtered_events"]) for p in response.json()["results"]] == [("email", False)]


def test_property_definition_retrieve(client, world, seed):
    url = f"/api/projects/{world.project_id}/property_definitions/"
    item = client.get(url, params={"type": "person"}, headers=world.headers()).json()["results"][0]
    assert client.get(url + item["id"], headers=world.headers()).json() == item
