"""Actions: access, bad input (every step field), create/update/soft delete, name uniqueness and activity."""

from __future__ import annotations

import pytest

from tests.backend.catalog_helpers import AUTH_CASES, check_auth_case, check_bad_input, seed_catalog

ACTIONS = "/api/projects/{pid}/actions"
ONE = ACTIONS + "/{aid}"
OTHER = ACTIONS + "/{oaid}"
STEP = {"event": "$pageview", "url": "/pricing", "url_matching": "contains"}
DEEP: dict = {"key": "plan", "value": "pro"}
for _ in range(10):
    DEEP = {"type": "AND", "values": [DEEP]}

# (name, method, path, body, status when all is well, a scope that is NOT enough)
ENDPOINTS = [
    ("list", "GET", ACTIONS, None, 200, "cohort:read"),
    ("create", "POST", ACTIONS, {"name": "Viewed pricing", "steps": [STEP]}, 201, "action:read"),
    ("retrieve", "GET", ONE, None, 200, "insight:read"),
    ("update", "PATCH", ONE, {"description": "Finished signing up"}, 200, "action:read"),
    ("delete", "DELETE", ONE, None, 405, "action:read"),
    ("activity", "GET", ONE + "/activity", None, 200, "action:write"),
]

BAD_INPUT = [
    # (method, path, body, status, code, attr)
    ("POST", ACTIONS, {}, 400, "required", "name"),
    ("POST", ACTIONS, {"name": "   "}, 400, "blank", "name"),
    ("POST", ACTIONS, {"name": "x" * 401}, 400, "invalid_input", "name"),
    ("POST", ACTIONS, {"name": "Signed up"}, 400, "unique", "name"),
    ("POST", ACTIONS, {"name": "A", "steps": "signup"}, 400, "invalid_input", "steps"),
    ("POST", ACTIONS, {"name": "A", "steps": ["signup"]}, 400, "invalid_input", "steps__0"),
    ("POST", ACTIONS, {"name": "A", "steps": [{"url": "/x", "url_matching": "startswith"}]}, 400,
     "invalid_input", "steps__0__url_matching"),
    ("POST", ACTIONS, {"name": "A", "steps": [STEP, {"url": "([a-z", "url_matching": "regex"}]}, 400,
     "invalid_input", "steps__1__url"),
    ("POST", ACTIONS, {"name": "A", "steps": [{"text": "*buy", "text_matching": "regex"}]}, 400,
     "invalid_input", "steps__0__text"),
    ("POST", ACTIONS, {"name": "A", "steps": [{"href": "(?P<x", "href_matching": "regex"}]}, 400,
     "invalid_input", "steps__0__href"),
    ("POST", ACTIONS, {"name": "A", "steps": [{"url": "x" * 1001}]}, 400, "invalid_input", "steps__0__url"),
    ("POST", ACTIONS, {"name": "A", "steps": [{"event": 5}]}, 400, "invalid_input", "steps__0__event"),
    ("POST", ACTIONS, {"name": "A", "steps": [{"event": "x", "properties": {"key": "plan"}}]}, 400,
     "invalid_input", "steps__0__properties"),
    ("POST", ACTIONS, {"name": "A", "steps": [{"event": "x", "properties": [{"value": "pro"}]}]}, 400,
     "invalid_input", "steps__0__properties__0__key"),
    ("POST", ACTIONS, {"name": "A", "steps": [{"event": "x", "properties": [{"key": "plan", "operator": "near"}]}]},
     400, "invalid_input", "steps__0__properties__0__operator"),
    ("POST", ACTIONS, {"name": "A", "steps": [{"event": "x", "properties": [{"key": "n", "operator": "gt",
     "value": "lots"}]}]}, 400, "invalid_input", "steps__0__properties__0__value"),
    ("POST", ACTIONS, {"name": "A", "steps": [{"event": "x", "properties": [{"key": "n", "type": "planet",
     "value": 1}]}]}, 400, "invalid_input", "steps__0__properties__0__type"),
    ("POST", ACTIONS, {"name": "A", "steps": [{"event": "x", "properties": [{"key": "n", "operator": "regex",
     "value": "(?<=a)b"}]}]}, 400, "invalid_input", "steps__0__properties__0__value"),  # RE2 has no lookbehind
    ("POST", ACTIONS, {"name": "A", "steps": [{"event": "x", "properties": [DEEP]}]}, 400, "invalid_input",
     "steps__0__properties"),
    ("POST", ACTIONS, {"name": "A", "tags": "growth"}, 400, "invalid_input", "tags"),
    ("POST", ACTIONS, {"name": "A", "steps": [{}] * 101}, 400, "invalid_input", "steps"),
    ("POST", ACTIONS, ["name"], 400, "invalid_input", None),
    ("POST", ACTIONS, "{oops", 400, "parse_error", None),
    ("PATCH", ONE, {"name": None}, 400, "null", "name"),
    ("PATCH", ONE, {"steps": None}, 400, "null", "steps"),
    ("PATCH", ONE, {"steps": [{"url": "[", "url_matching": "regex"}]}, 400, "invalid_input", "steps__0__url"),
    ("PATCH", ONE, {"deleted": "soon"}, 400, "invalid_input", "deleted"),
    ("PATCH", OTHER, {"name": "Mine now"}, 404, "not_found", None),
    ("GET", OTHER, None, 404, "not_found", None),
    ("GET", ACTIONS + "/abc", None, 404, "not_found", None),
    ("GET", ACTIONS + "/0", None, 404, "not_found", None),
    ("GET", ACTIONS + "/99999999999999999999999", None, 404, "not_found", None),
    ("DELETE", OTHER, None, 405, None, None),
    ("GET", OTHER + "/activity", None, 404, "not_found", None),
    ("GET", ACTIONS + "?limit=-1", None, 400, "invalid_input", "limit"),
]  # fmt: skip


@pytest.fixture
def seed(conn, world):
    return seed_catalog(conn, world)


@pytest.mark.parametrize("case, kind, status, code", AUTH_CASES, ids=[c[0] for c in AUTH_CASES])
@pytest.mark.parametrize("name, method, path, body, ok_status, weak_scope", ENDPOINTS, ids=[e[0] for e in ENDPOINTS])
def test_auth_table(client, world, seed, name, method, path, body, ok_status, weak_scope, case, kind, status, code):
    check_auth_case(client, world, seed, method, path, body, ok_status, weak_scope, kind, status, code)


@pytest.mark.parametrize("method, path, body, status, code, attr", BAD_INPUT)
def test_bad_input_table(client, world, seed, method, path, body, status, code, attr):
    if status == 405:  # DELETE is refused before the action is looked up, with the envelope
        from tests.backend.catalog_helpers import fill, send

        response = send(client, method, fill(path, seed), body, world.headers())
        assert (response.status_code, response.json()["code"]) == (405, "method_not_allowed")
        return
    check_bad_input(client, world, seed, method, path, body, status, code, attr, listing=ACTIONS)


def url(world, suffix: str = "") -> str:
    return f"/api/projects/{world.project_id}/actions/{suffix}"


def test_create_returns_the_stored_action(client, world, seed):
    body = {
        "name": "Bought",
        "description": "Any purchase",
        "tags": ["revenue"],
        "steps": [
            {"event": "purchase", "properties": [{"key": "amount", "operator": "gt", "value": 0, "type": "event"}]},
            {"event": "$pageview", "url": r"^https://shop\.example\.com/thanks$", "url_matching": "regex"},
            {"event": "$autocapture", "text": "Buy", "selector": "button.buy", "href": "/checkout"},
        ],
        "is_calculating": True,  # read-only: ignored
    }
    created = client.post(url(world), json=body, headers=world.headers())
    assert created.status_code == 201, created.text
    action = created.json()
    assert (action["name"], action["description"], action["tags"], action["deleted"]) == (
        "Bought",
        "Any purchase",
        ["revenue"],
        False,
    )
    assert action["is_calculating"] is False
    assert action["team_id"] == world.project_id
    assert action["created_by"]["email"] == "analyst@example.com"
    assert action["created_at"] == "2026-01-15T12:00:00.000000Z"
    assert [step["url_matching"] for step in action["steps"]] == ["contains", "regex", "contains"]
    assert action["steps"][0]["properties"] == body["steps"][0]["properties"]
    assert action["steps"][2]["selector"] == "button.buy"
    assert client.get(url(world, str(action["id"])), headers=world.headers()).json() == action


def test_list_is_by_name_and_searchable(client, world, seed):
    for name in ("Zeta", "alpha signup", "Beta"):
        assert client.post(url(world), json={"name": name}, headers=world.headers()).status_code == 201
    listed = client.get(url(world), headers=world.headers()).json()
    # SQLite orders names by their bytes: capitals before lower case
    assert [a["name"] for a in listed["results"]] == ["Beta", "Signed up", "Zeta", "alpha signup"]
    assert listed["count"] == 4
    found = client.get(url(world), params={"search": "SIGN"}, headers=world.headers()).json()
    assert [a["name"] for a in found["results"]] == ["Signed up", "alpha signup"]


def test_soft_delete_hides_from_list_keeps_retrieve_and_frees_the_name(client, world, seed):
    one = url(world, str(seed.action_id))
    deleted = client.patch(one, json={"deleted": True}, headers=world.headers())
    assert deleted.json()["deleted"] is True
    assert [a["name"] for a in client.get(url(world), headers=world.headers()).json()["results"]] == []
    assert client.get(one, headers=world.headers()).json()["deleted"] is True
    again = client.post(url(world), json={"name": "Signed up"}, headers=world.headers())
    assert again.status_code == 201
    # restoring the first would make two live actions with one name
    clash = client.patch(one, json={"deleted": False}, headers=world.headers())
    assert (clash.status_code, clash.json()["attr"], clash.json()["code"]) == (400, "name", "unique")
    assert (
        client.patch(one, json={"deleted": False, "name": "Signed up (old)"}, headers=world.headers()).json()["deleted"]
        is False
    )


def test_delete_is_refused_and_changes_nothing(client, world, seed):
    one = url(world, str(seed.action_id))
    response = client.delete(one, headers=world.headers())
    assert (response.status_code, response.json()["code"]) == (405, "method_not_allowed")
    assert client.get(one, headers=world.headers()).json()["deleted"] is False


def test_update_replaces_steps_and_logs_what_changed(client, world, seed):
    one = url(world, str(seed.action_id))
    new_steps = [{"event": "signup", "url": "/welcome", "url_matching": "exact"}]
    updated = client.patch(one, json={"steps": new_steps, "name": "Joined"}, headers=world.headers()).json()
    assert [(s["event"], s["url"], s["url_matching"]) for s in updated["steps"]] == [("signup", "/welcome", "exact")]
    client.patch(one, json={"deleted": True}, headers=world.headers())
    client.patch(one, json={"name": "Joined"}, headers=world.headers())  # no change: not logged
    activity = client.get(one + "/activity", headers=world.headers()).json()
    assert [entry["activity"] for entry in activity["results"]] == ["deleted", "updated"]
    changes = activity["results"][1]["detail"]["changes"]
    assert [c["field"] for c in changes] == ["name", "steps"]
    assert (changes[0]["before"], changes[0]["after"]) == ("Signed up", "Joined")
    assert activity["results"][0]["detail"]["name"] == "Joined"
    assert activity["total_count"] == 2


def test_create_is_logged(client, world, seed):
    created = client.post(url(world), json={"name": "New"}, headers=world.headers()).json()
    activity = client.get(url(world, f"{created['id']}/activity"), headers=world.headers()).json()
    assert [(e["activity"], e["scope"], e["item_id"]) for e in activity["results"]] == [
        ("created", "Action", str(created["id"]))
    ]
