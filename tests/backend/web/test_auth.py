"""Keys, scopes and project access, on the projects endpoints (the same checks guard every route)."""

from __future__ import annotations

import pytest

MISSING = {
    "type": "authentication_error",
    "code": "not_authenticated",
    "detail": "Authentication credentials were not provided.",
    "attr": None,
}


def test_no_key_is_401_with_envelope(client, world):
    response = client.get(f"/api/projects/{world.project_id}/")
    assert response.status_code == 401
    assert response.json() == MISSING


@pytest.mark.parametrize(
    "how, source",
    [
        ("header", "Authorization header"),
        ("query", "query string"),
        ("body", "body"),
    ],
)
def test_invalid_key_names_where_it_was_found(client, world, how, source):
    kwargs: dict = {}
    url = f"/api/projects/{world.project_id}/"
    if how == "header":
        kwargs["headers"] = {"Authorization": "Bearer phx_not_a_real_key"}
    elif how == "query":
        url += "?personal_api_key=phx_not_a_real_key"
    else:
        kwargs["json"] = {"personal_api_key": "phx_not_a_real_key", "name": "renamed"}
    method = client.patch if how == "body" else client.get
    response = method(url, **kwargs)
    assert response.status_code == 401
    assert response.json() == {
        "type": "authentication_error",
        "code": "authentication_failed",
        "detail": f"Personal API key found in request {source} is invalid.",
        "attr": None,
    }


@pytest.mark.parametrize("how", ["header", "query", "body"])
def test_valid_key_works_from_each_place(client, world, how):
    url = f"/api/projects/{world.project_id}/"
    if how == "header":
        response = client.get(url, headers=world.headers())
    elif how == "query":
        response = client.get(url + f"?personal_api_key={world.key}")
    else:
        response = client.patch(url, json={"personal_api_key": world.key, "name": "Renamed"})
    assert response.status_code == 200
    assert response.json()["id"] == world.project_id


@pytest.mark.parametrize(
    "scopes, method, status",
    [
        (["project:read"], "get", 200),
        (["project:write"], "get", 200),  # write implies read
        (["*"], "get", 200),
        (["insight:read"], "get", 403),
        (["project:read"], "patch", 403),
        (["project:write"], "patch", 200),
    ],
)
def test_scopes(client, world, scopes, method, status):
    key = world.make_key(*scopes)
    url = f"/api/projects/{world.project_id}/"
    kwargs = {"json": {"name": "New name"}} if method == "patch" else {}
    response = getattr(client, method)(url, headers=world.headers(key), **kwargs)
    assert response.status_code == status
    if status == 403:
        scope = "project:write" if method == "patch" else "project:read"
        assert response.json() == {
            "type": "authentication_error",
            "code": "permission_denied",
            "detail": f"API key missing required scope '{scope}'",
            "attr": None,
        }


def test_key_restricted_to_projects(client, world):
    key = world.make_key("*", projects=[world.project_id])
    assert client.get(f"/api/projects/{world.project_id}/", headers=world.headers(key)).status_code == 200
    response = client.get(f"/api/projects/{world.other_project_id}/", headers=world.headers(key))
    assert response.status_code == 403
    assert response.json()["detail"] == (
        f"API key does not have access to the requested project: ID {world.other_project_id}."
    )
    listed = client.get("/api/projects/", headers=world.headers(key)).json()
    assert [p["id"] for p in listed["results"]] == [world.project_id]


@pytest.mark.parametrize("project_id", ["999", "abc", "99999999999999999999999", "-1"])
def test_unknown_or_malformed_project_is_404(client, world, project_id):
    response = client.get(f"/api/projects/{project_id}/", headers=world.headers())
    assert response.status_code == 404
    assert response.json() == {
        "type": "invalid_request",
        "code": "not_found",
        "detail": "Project not found.",
        "attr": None,
    }


def test_current_project_is_the_users_current_one(client, world):
    response = client.get("/api/projects/@current/", headers=world.headers())
    assert response.status_code == 200
    assert response.json()["id"] == world.project_id
