from __future__ import annotations

import pytest


def test_list_projects_is_paginated_with_absolute_links(client, world):
    response = client.get("/api/projects/?limit=1", headers=world.headers())
    assert response.status_code == 200
    page = response.json()
    assert page["count"] == 2
    assert [p["name"] for p in page["results"]] == ["Main"]
    assert page["previous"] is None
    assert page["next"] == "http://testserver/api/projects/?limit=1&offset=1"
    second = client.get(page["next"], headers=world.headers()).json()
    assert [p["name"] for p in second["results"]] == ["Other"]
    assert second["next"] is None
    assert second["previous"] == "http://testserver/api/projects/?limit=1"


def test_project_basic_fields(client, world):
    project = client.get("/api/projects/", headers=world.headers()).json()["results"][0]
    assert set(project) == {
        "id", "uuid", "organization", "project_id", "api_token", "name", "completed_snippet_onboarding",
        "has_completed_onboarding_for", "ingested_event", "is_demo", "timezone", "access_control",
    }  # fmt: skip
    assert project["api_token"] == world.project_token
    assert project["api_token"].startswith("phc_")


def test_retrieve_project_has_settings(client, world):
    project = client.get(f"/api/projects/{world.other_project_id}", headers=world.headers()).json()
    assert project["timezone"] == "Europe/Berlin"
    assert project["test_account_filters"] == []
    assert project["created_at"] == "2026-01-15T12:00:00.000000Z"


def test_patch_test_account_filters_and_timezone(client, world):
    filters = [{"key": "email", "value": "@example.com", "operator": "not_icontains", "type": "person"}]
    response = client.patch(
        f"/api/projects/{world.project_id}/",
        json={"test_account_filters": filters, "timezone": "America/New_York", "week_start_day": 1},
        headers=world.headers(),
    )
    assert response.status_code == 200
    again = client.get(f"/api/projects/{world.project_id}/", headers=world.headers()).json()
    assert again["test_account_filters"] == filters
    assert again["timezone"] == "America/New_York"
    assert again["week_start_day"] == 1


@pytest.mark.parametrize(
    "body, attr",
    [
        ({"timezone": "Mars/Olympus"}, "timezone"),
        ({"week_start_day": 3}, "week_start_day"),
        ({"name": ""}, "name"),
        ({"name": None}, "name"),
        ({"test_account_filters": "nope"}, "test_account_filters"),
    ],
)
def test_patch_bad_input_is_400_and_changes_nothing(client, world, body, attr):
    before = client.get(f"/api/projects/{world.project_id}/", headers=world.headers()).json()
    response = client.patch(f"/api/projects/{world.project_id}/", json=body, headers=world.headers())
    assert response.status_code == 400
    assert response.json()["type"] == "validation_error"
    assert response.json()["attr"] == attr
    assert client.get(f"/api/projects/{world.project_id}/", headers=world.headers()).json() == before


@pytest.mark.parametrize(
    "query, attr",
    [("limit=-1", "limit"), ("limit=abc", "limit"), ("limit=0", "limit"), ("offset=-5", "offset"),
     ("limit=100000000", "limit"), ("offset=1e9", "offset")],
)  # fmt: skip
def test_bad_paging_values_are_400(client, world, query, attr):
    response = client.get(f"/api/projects/?{query}", headers=world.headers())
    assert response.status_code == 400
    assert response.json()["attr"] == attr


def test_ingested_event_comes_from_the_event_engine(client, world, conn, engine):
    from tests.factories import add_events

    add_events(conn, world.project_id, [("$pageview", "a", "2026-01-10T10:00:00Z")])
    engine()
    listed = client.get("/api/projects/", headers=world.headers()).json()["results"]
    assert [(p["name"], p["ingested_event"]) for p in listed] == [("Main", True), ("Other", False)]
    one = client.get(f"/api/projects/{world.project_id}/", headers=world.headers()).json()
    assert one["ingested_event"] is True


def test_create_project_answers_it_and_lists_it(client, world):
    response = client.post(
        "/api/projects/", json={"name": " Lab ", "timezone": "Europe/Paris"}, headers=world.headers()
    )
    assert response.status_code == 201
    made = response.json()
    assert (made["name"], made["timezone"], made["ingested_event"]) == ("Lab", "Europe/Paris", False)
    assert made["api_token"].startswith("phc_") and made["api_token"] != world.project_token
    # the world holds Main and Other: the new one is the third, and can be read back
    listed = client.get("/api/projects/", headers=world.headers()).json()
    assert [p["name"] for p in listed["results"]] == ["Main", "Other", "Lab"]
    again = client.get(f"/api/projects/{made['id']}/", headers=world.headers()).json()
    assert again["timezone"] == "Europe/Paris"


def test_create_project_defaults_to_utc(client, world):
    made = client.post("/api/projects/", json={"name": "Plain"}, headers=world.headers()).json()
    assert made["timezone"] == "UTC"


@pytest.mark.parametrize(
    "body, attr",
    [({}, "name"), ({"name": ""}, "name"), ({"name": "   "}, "name"), ({"name": None}, "name"),
     ({"name": "x" * 201}, "name"), ({"name": "Lab", "timezone": "Mars/Olympus"}, "timezone"),
     ({"name": "Lab", "timezone": None}, "timezone")],
)  # fmt: skip
def test_create_project_bad_input_is_400_and_makes_nothing(client, world, body, attr):
    response = client.post("/api/projects/", json=body, headers=world.headers())
    assert response.status_code == 400
    assert (response.json()["type"], response.json()["attr"]) == ("validation_error", attr)
    assert client.get("/api/projects/", headers=world.headers()).json()["count"] == 2


@pytest.mark.parametrize("scopes, projects", [(("project:read",), None), (("*",), "main")])
def test_create_project_needs_write_scope_and_an_unscoped_key(client, world, scopes, projects):
    key = world.make_key(*scopes, projects=[world.project_id] if projects else None)
    response = client.post("/api/projects/", json={"name": "Lab"}, headers=world.headers(key))
    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"
    assert client.get("/api/projects/", headers=world.headers()).json()["count"] == 2
