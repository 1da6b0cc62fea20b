"""Persons: access, bad input, search on distinct ids and email, distinct_id, property filters and paging."""

from __future__ import annotations

import json

import pytest

from tests.backend.catalog_helpers import AUTH_CASES, check_auth_case, check_bad_input, seed_catalog
from tests.factories import add_events

PERSONS = "/api/projects/{pid}/persons"

# (name, method, path, body, status when all is well, a scope that is NOT enough)
ENDPOINTS = [
    ("list", "GET", PERSONS, None, 200, "cohort:read"),
    ("retrieve by id", "GET", PERSONS + "/{person}", None, 200, "query:read"),
    ("retrieve by uuid", "GET", PERSONS + "/{puuid}", None, 200, "event_definition:read"),
]

BAD_INPUT = [
    # (method, path, status, code, attr)
    ("GET", PERSONS + "?properties=plan", 400, "invalid_input", "properties"),
    ("GET", PERSONS + '?properties={"key":"plan","type":"event"}', 400, "unsupported", "properties__type"),
    ("GET", PERSONS + '?properties=[{"key":"plan","type":"cohort","value":2}]', 400, "unsupported",
     "properties__0__type"),
    ("GET", PERSONS + '?properties=[{"key":"plan","operator":"regex","value":"(?<=a)b"}]', 400, "invalid_input",
     "properties__0__value"),
    ("GET", PERSONS + '?properties=[{"value":"pro"}]', 400, "invalid_input", "properties__0"),
    ("GET", PERSONS + '?properties=[{"key":"seats","operator":"gt","value":"many"}]', 400, "invalid_input",
     "properties__0__value"),
    ("GET", PERSONS + "?properties=[1]", 400, "invalid_input", "properties__0"),
    ("GET", PERSONS + "?limit=100000000", 400, "invalid_input", "limit"),
    ("GET", PERSONS + "?properties=" + "[" * 5000 + "]" * 5000, 400, "invalid_input", "properties"),
    ("GET", PERSONS + "?cohort=abc", 400, "does_not_exist", "cohort"),
    ("GET", PERSONS + "?cohort={ocid}", 400, "does_not_exist", "cohort"),
    ("GET", PERSONS + "/{operson}", 404, "not_found", None),
    ("GET", PERSONS + "/00000000-0000-0000-0000-000000000000", 404, "not_found", None),
    ("GET", PERSONS + "/99999999999999999999999", 404, "not_found", None),
]  # fmt: skip


@pytest.fixture
def seed(conn, world):
    return seed_catalog(conn, world)


@pytest.mark.parametrize("case, kind, status, code", AUTH_CASES, ids=[c[0] for c in AUTH_CASES])
@pytest.mark.parametrize("name, method, path, body, ok_status, weak_scope", ENDPOINTS, ids=[e[0] for e in ENDPOINTS])
def test_auth_table(client, world, seed, name, method, path, body, ok_status, weak_scope, case, kind, status, code):
    check_auth_case(client, world, seed, method, path, body, ok_status, weak_scope, kind, status, code)


@pytest.mark.parametrize("method, path, status, code, attr", BAD_INPUT)
def test_bad_input_table(client, world, seed, method, path, status, code, attr):
    check_bad_input(client, world, seed, method, path, None, status, code, attr, listing=PERSONS)


def listed(client, world, **params) -> list[str]:
    response = client.get(f"/api/projects/{world.project_id}/persons/", params=params, headers=world.headers())
    assert response.status_code == 200, response.text
    return [person["distinct_ids"][0] for person in response.json()["results"]]


def test_person_shape(client, world, seed):
    response = client.get(f"/api/projects/{world.project_id}/persons/{seed.persons['alice']}/", headers=world.headers())
    person = response.json()
    assert person == {
        "id": seed.persons["alice"],
        "uuid": seed.person_uuid,
        "name": "alice@example.com",
        "distinct_ids": ["alice"],
        "properties": {"email": "alice@example.com", "plan": "pro"},
        "is_identified": False,
        "created_at": "1970-01-01T00:00:00Z",
    }
    by_uuid = client.get(f"/api/projects/{world.project_id}/persons/{seed.person_uuid}", headers=world.headers())
    assert by_uuid.json() == person


def test_search_matches_distinct_ids_and_email_and_needs_every_term(client, world, seed):
    assert listed(client, world) == ["bob", "alice"]  # newest first
    assert listed(client, world, search="ALI") == ["alice"]  # a distinct id
    assert listed(client, world, search="corp.io") == ["bob"]  # an email
    assert listed(client, world, search="example alice") == ["alice"]
    assert listed(client, world, search="example bob") == []
    assert listed(client, world, search="%") == []


def test_distinct_id_and_property_filters(client, world, seed, conn):
    add_events(conn, world.project_id, [("x", "carol", "2026-01-10T00:00:00Z")],
               persons={"carol": {"plan": "team", "seats": 12}})  # fmt: skip
    assert listed(client, world, distinct_id="bob") == ["bob"]
    assert listed(client, world, distinct_id="zed") == []  # another project's
    pro = [{"key": "plan", "value": "pro", "type": "person"}]
    assert listed(client, world, properties=json.dumps(pro)) == ["alice"]
    any_plan = [{"key": "plan", "operator": "is_set"}]
    assert listed(client, world, properties=json.dumps(any_plan)) == ["carol", "alice"]
    group = {"type": "OR", "values": [{"key": "seats", "operator": "gt", "value": 10},
                                      {"key": "email", "operator": "icontains", "value": "CORP"}]}  # fmt: skip
    assert listed(client, world, properties=json.dumps(group)) == ["carol", "bob"]
    assert listed(client, world, properties=json.dumps(pro), search="bob") == []


def test_person_filters_on_keys_events_keep_in_columns(client, world, seed, conn):
    # $browser and $os have their own columns on events, not on persons: a person filter reads the properties
    add_events(conn, world.project_id, [("x", "dave", "2026-01-10T00:00:00Z")],
               persons={"dave": {"$browser": "Chrome", "$os": "Mac"}})  # fmt: skip
    chrome = [{"key": "$browser", "value": "Chrome", "type": "person"}]
    assert listed(client, world, properties=json.dumps(chrome)) == ["dave"]
    not_mac = {"type": "AND", "values": [{"key": "$os", "value": "Mac", "operator": "is_not", "type": "person"}]}
    assert "dave" not in listed(client, world, properties=json.dumps(not_mac))


def test_regex_person_filters_run_on_re2(client, world, seed, conn):
    """Person filters compile through the calculations' compiler, so regexes mean what they mean in a trend.

    eve's plan is 40 a's then a b: a backtracking engine would try about 2**40 ways to match ``^(a+)+$``
    before failing; RE2 answers at once, with no match.
    """
    add_events(
        conn, world.project_id, [("x", "eve", "2026-01-10T00:00:00Z")], persons={"eve": {"plan": "a" * 40 + "b"}}
    )
    corp = [{"key": "email", "operator": "regex", "value": "@corp\\.io$"}]
    assert listed(client, world, properties=json.dumps(corp)) == ["bob"]
    not_alice = [{"key": "email", "operator": "not_regex", "value": "^alice@"}, {"key": "email", "operator": "is_set"}]
    assert listed(client, world, properties=json.dumps(not_alice)) == ["bob"]
    nested = [{"key": "plan", "operator": "regex", "value": "^(a+)+$"}]
    assert listed(client, world, properties=json.dumps(nested)) == []


def test_persons_page(client, world, seed):
    first = client.get(f"/api/projects/{world.project_id}/persons/?limit=1", headers=world.headers()).json()
    assert (first["count"], [p["distinct_ids"] for p in first["results"]]) == (2, [["bob"]])
    second = client.get(first["next"], headers=world.headers()).json()
    assert [p["distinct_ids"] for p in second["results"]] == [["alice"]]
    assert second["next"] is None


def test_person_name_falls_back_to_a_distinct_id(client, world, conn):
    add_events(conn, world.project_id, [("x", "anon-7", "2026-01-10T00:00:00Z")],
               persons={"anon-7": {"name": ""}})  # fmt: skip
    body = client.get(f"/api/projects/{world.project_id}/persons/", headers=world.headers()).json()
    assert body["results"][0]["name"] == "anon-7"


def test_cohort_filter(client, world, seed):
    assert listed(client, world, cohort=str(seed.static_cohort_id)) == ["alice"]
    assert listed(client, world, cohort=str(seed.property_cohort_id), search="corp") == []
    person_only = {"Authorization": f"Bearer {world.make_key('person:read')}"}
    response = client.get(f"/api/projects/{world.project_id}/persons/", params={"cohort": seed.static_cohort_id},
                          headers=person_only)  # fmt: skip
    assert (response.status_code, response.json()["detail"]) == (403, "API key missing required scope 'cohort:read'")
