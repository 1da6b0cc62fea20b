"""Insights API: auth and bad input as tables, then the behaviour an analyst notices."""

from __future__ import annotations

import csv
import io

import pytest

BASE = "/api/projects/{pid}/insights/"


@pytest.fixture
def insight(client, world):
    response = client.post(
        BASE.format(pid=world.project_id),
        json={"name": "Weekly pageviews", "filters": {"insight": "TRENDS", "events": [{"id": "$pageview"}]}},
        headers=world.headers(),
    )
    assert response.status_code == 201
    return response.json()


def _path(template: str, world, insight) -> str:
    return template.format(pid=world.project_id, id=insight["id"])


ENDPOINTS = [
    ("get", "/api/projects/{pid}/insights/", None, 200, "insight:read"),
    ("post", "/api/projects/{pid}/insights/", {"name": "x"}, 201, "insight:write"),
    ("get", "/api/projects/{pid}/insights/{id}/", None, 200, "insight:read"),
    ("patch", "/api/projects/{pid}/insights/{id}/", {"name": "y"}, 200, "insight:write"),
    ("post", "/api/projects/{pid}/insights/{id}/viewed/", {}, 200, "insight:read"),
    ("get", "/api/projects/{pid}/insights/my_last_viewed/", None, 200, "insight:read"),
    ("post", "/api/projects/{pid}/insights/cancel/", {"client_query_id": "q"}, 200, "insight:read"),
    ("get", "/api/projects/{pid}/insights/activity/", None, 200, "activity_log:read"),
    ("get", "/api/projects/{pid}/insights/{id}/activity/", None, 200, "activity_log:read"),
    ("get", "/api/projects/{pid}/insights/{id}/sharing/", None, 200, "sharing_configuration:read"),
    ("patch", "/api/projects/{pid}/insights/{id}/sharing/", {"enabled": True}, 200, "sharing_configuration:write"),
    ("get", "/api/projects/{pid}/dashboards/", None, 200, "dashboard:read"),
    ("post", "/api/projects/{pid}/dashboards/", {"name": "Growth"}, 201, "dashboard:write"),
]


def _call(client, method, path, body, headers):
    kwargs = {"headers": headers}
    if body is not None:
        kwargs["json"] = body
    return getattr(client, method)(path, **kwargs)


@pytest.mark.parametrize("method, template, body, status, scope", ENDPOINTS)
def test_ok_with_the_scope(client, world, insight, method, template, body, status, scope):
    key = world.make_key(scope)
    assert _call(client, method, _path(template, world, insight), body, world.headers(key)).status_code == status


@pytest.mark.parametrize("method, template, body, status, scope", ENDPOINTS)
def test_missing_scope_is_403(client, world, insight, method, template, body, status, scope):
    key = world.make_key("plugin:write")
    response = _call(client, method, _path(template, world, insight), body, world.headers(key))
    assert response.status_code == 403
    assert response.json()["detail"] == f"API key missing required scope '{scope}'"


@pytest.mark.parametrize("method, template, body, status, scope", ENDPOINTS)
def test_no_key_and_bad_key(client, world, insight, method, template, body, status, scope):
    expected = 401 if "dashboards" in template else 403  # insights answer 403, as PostHog's insights do
    missing = _call(client, method, _path(template, world, insight), body, {})
    assert (missing.status_code, missing.json()["code"]) == (expected, "not_authenticated")
    bad = _call(client, method, _path(template, world, insight), body, world.headers("phx_wrong"))
    assert (bad.status_code, bad.json()["code"]) == (expected, "authentication_failed")


@pytest.mark.parametrize("method, template, body, status, scope", ENDPOINTS)
def test_key_restricted_to_another_project_is_403(client, world, insight, method, template, body, status, scope):
    key = world.make_key("*", projects=[world.other_project_id])
    response = _call(client, method, _path(template, world, insight), body, world.headers(key))
    assert response.status_code == 403


@pytest.mark.parametrize(
    "method, suffix",
    [
        ("get", "{id}/"),
        ("patch", "{id}/"),
        ("post", "{id}/viewed/"),
        ("get", "{id}/sharing/"),
        ("get", "{id}/activity/"),
    ],
)
def test_insight_of_another_project_is_404(client, world, insight, method, suffix):
    path = f"/api/projects/{world.other_project_id}/insights/" + suffix.format(id=insight["id"])
    response = _call(client, method, path, {} if method != "get" else None, world.headers())
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


@pytest.mark.parametrize(
    "method, template, body, attr",
    [
        ("post", BASE, {"name": "x" * 401}, "name"),
        ("post", BASE, {"filters": "not an object"}, "filters"),
        ("post", BASE, {"tags": "growth"}, "tags"),
        ("post", BASE, {"dashboards": [999]}, "dashboards"),
        ("post", BASE, {"order": "first"}, "order"),
        ("patch", BASE + "{id}/", {"deleted": "maybe"}, "deleted"),
        ("patch", BASE + "{id}/", {"favorited": None}, "favorited"),
        ("get", BASE + "?order=password", None, "order"),
        ("get", BASE + "?limit=-1", None, "limit"),
        ("get", BASE + "?created_by=me", None, "created_by"),
        ("get", BASE + "?format=xml", None, "format"),
        ("post", BASE + "cancel/", {}, "client_query_id"),
        ("patch", BASE + "{id}/sharing/", {"enabled": "sometimes"}, "enabled"),
    ],
)
def test_bad_input_is_400_naming_the_field(client, world, insight, method, template, body, attr):
    response = _call(client, method, _path(template, world, insight), body, world.headers())
    assert response.status_code == 400, response.text
    assert response.json()["attr"] == attr


@pytest.mark.parametrize("insight_id", ["abc", "0", "-3", "99999", "1e3", "99999999999999999999"])
def test_unknown_or_malformed_id_is_404(client, world, insight_id):
    response = client.get(BASE.format(pid=world.project_id) + f"{insight_id}/", headers=world.headers())
    assert response.status_code == 404


def test_malformed_json_is_a_parse_error(client, world):
    response = client.post(
        BASE.format(pid=world.project_id), content=b"{", headers={**world.headers(), "Content-Type": "application/json"}
    )
    assert (response.status_code, response.json()["code"]) == (400, "parse_error")


def test_create_with_nothing_gives_defaults(client, world):
    response = client.post(BASE.format(pid=world.project_id), json={}, headers=world.headers())
    assert response.status_code == 201
    body = response.json()
    assert len(body["short_id"]) == 8 and body["short_id"].isalnum()
    assert (body["name"], body["description"], body["tags"], body["result"], body["last_refresh"]) == (
        None, None, [], None, None,
    )  # fmt: skip
    assert body["filters"] == {"insight": "TRENDS"}
    assert body["created_by"]["email"] == "analyst@example.com"
    assert body["created_by"] == body["last_modified_by"]
    assert body["created_at"] == body["updated_at"] == body["last_modified_at"] == "2026-01-15T12:00:00.000000Z"
    assert (body["effective_restriction_level"], body["effective_privilege_level"], body["is_cached"]) == (
        21,
        37,
        False,
    )


def test_delete_is_refused_with_a_405_envelope(client, world, insight):
    response = client.delete(BASE.format(pid=world.project_id) + f"{insight['id']}/", headers=world.headers())
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"
    assert (
        client.get(BASE.format(pid=world.project_id) + f"{insight['id']}/", headers=world.headers()).status_code == 200
    )


def test_last_modified_moves_only_for_material_changes(client, world, insight, clock):
    url = BASE.format(pid=world.project_id) + f"{insight['id']}/"
    other = world.make_key("insight:write", email="colleague@example.com")
    clock.advance(minutes=5)
    favourited = client.patch(url, json={"favorited": True}, headers=world.headers(other)).json()
    assert favourited["updated_at"] == "2026-01-15T12:05:00.000000Z"
    assert favourited["last_modified_at"] == "2026-01-15T12:00:00.000000Z"
    assert favourited["last_modified_by"]["email"] == "analyst@example.com"
    clock.advance(minutes=5)
    renamed = client.patch(url, json={"name": "Daily pageviews"}, headers=world.headers(other)).json()
    assert renamed["last_modified_at"] == "2026-01-15T12:10:00.000000Z"
    assert renamed["last_modified_by"]["email"] == "colleague@example.com"


def test_soft_delete_hides_and_restore_brings_back(client, world, insight):
    base = BASE.format(pid=world.project_id)
    url = base + f"{insight['id']}/"
    assert client.patch(url, json={"deleted": True}, headers=world.headers()).status_code == 200
    assert client.get(url, headers=world.headers()).status_code == 404
    assert client.patch(url, json={"name": "x"}, headers=world.headers()).status_code == 404
    assert client.post(url + "viewed/", headers=world.headers()).status_code == 404
    assert client.get(base, headers=world.headers()).json()["count"] == 0
    restored = client.patch(url, json={"deleted": False, "name": "Back"}, headers=world.headers())
    assert restored.status_code == 200
    assert restored.json()["name"] == "Back"
    assert client.get(base, headers=world.headers()).json()["count"] == 1


def test_my_last_viewed_is_most_recent_first_ties_by_viewing_order(client, world, clock):
    base = BASE.format(pid=world.project_id)
    ids = [client.post(base, json={"name": f"i{n}"}, headers=world.headers()).json()["id"] for n in range(7)]
    for insight_id in ids:  # all viewed at the same instant: the order of viewing decides
        client.post(base + f"{insight_id}/viewed/", headers=world.headers())
    clock.advance(minutes=1)
    client.post(base + f"{ids[0]}/viewed/", headers=world.headers())
    client.patch(base + f"{ids[6]}/", json={"deleted": True}, headers=world.headers())
    viewed = client.get(base + "my_last_viewed/", headers=world.headers()).json()
    assert [item["name"] for item in viewed] == ["i0", "i5", "i4", "i3", "i2"]
    other = world.make_key("insight:read", email="colleague@example.com")
    assert client.get(base + "my_last_viewed/", headers=world.headers(other)).json() == []


def test_list_filters(client, world):
    base = BASE.format(pid=world.project_id)
    dashboard = client.post(
        f"/api/projects/{world.project_id}/dashboards/", json={"name": "Growth"}, headers=world.headers()
    )
    dashboard_id = dashboard.json()["id"]
    client.post(base, json={"name": "Signups 100%", "saved": True, "tags": ["growth"]}, headers=world.headers())
    client.post(base, json={"name": "Revenue", "favorited": True, "description": "money"}, headers=world.headers())
    client.post(base, json={"name": "Churn", "dashboards": [dashboard_id]}, headers=world.headers())
    other = world.make_key("*", email="colleague@example.com")
    client.post(base, json={"name": "Theirs"}, headers=world.headers(other))

    def names(query: str) -> list[str]:
        return [i["name"] for i in client.get(base + query, headers=world.headers()).json()["results"]]

    assert names("?favorited") == ["Revenue"]
    assert names("?saved=true") == ["Signups 100%", "Churn"]  # saved, or on a dashboard
    assert names("?saved=false") == ["Revenue", "Churn", "Theirs"]
    assert names("?search=MONEY") == ["Revenue"]
    assert names("?search=growth") == ["Signups 100%"]
    assert names("?search=100%25") == ["Signups 100%"]  # % is a literal, not a wildcard
    assert names("?user") == ["Signups 100%", "Revenue", "Churn"]
    assert names("?order=-name") == ["Theirs", "Signups 100%", "Revenue", "Churn"]


def test_dashboards_become_tiles_and_removal_keeps_the_tile(client, world, insight, conn):
    base = BASE.format(pid=world.project_id)
    dashboards_url = f"/api/projects/{world.project_id}/dashboards/"
    dash = [client.post(dashboards_url, json={"name": n}, headers=world.headers()).json()["id"] for n in ("A", "B")]
    url = base + f"{insight['id']}/"
    on_both = client.patch(url, json={"dashboards": dash}, headers=world.headers()).json()
    assert on_both["dashboards"] == dash
    assert [t["dashboard_id"] for t in on_both["dashboard_tiles"]] == dash
    on_one = client.patch(url, json={"dashboards": [dash[1]]}, headers=world.headers()).json()
    assert on_one["dashboards"] == [dash[1]]
    assert (
        conn.execute("SELECT count(*) FROM dashboard_tiles WHERE insight_id = ?", (insight["id"],)).fetchone()[0] == 2
    )


def test_sharing_token_is_stable_and_toggles(client, world, insight):
    url = BASE.format(pid=world.project_id) + f"{insight['id']}/sharing/"
    first = client.get(url, headers=world.headers()).json()
    assert set(first) == {"created_at", "enabled", "access_token"}
    assert first["enabled"] is False and len(first["access_token"]) == 30
    enabled = client.patch(url, json={"enabled": True}, headers=world.headers()).json()
    assert enabled["enabled"] is True and enabled["access_token"] == first["access_token"]
    assert client.get(url, headers=world.headers()).json() == enabled


def test_activity_records_create_update_and_soft_delete(client, world, insight, clock):
    base = BASE.format(pid=world.project_id)
    url = base + f"{insight['id']}/"
    clock.advance(minutes=1)
    client.patch(url, json={"name": "Renamed", "favorited": True}, headers=world.headers())
    clock.advance(minutes=1)
    client.patch(url, json={"deleted": True}, headers=world.headers())
    page = client.get(url + "activity/", headers=world.headers()).json()
    assert page["total_count"] == 3
    assert [e["activity"] for e in page["results"]] == ["deleted", "updated", "created"]
    updated = page["results"][1]
    assert updated["detail"]["changes"] == [
        {"type": "Insight", "action": "changed", "field": "name", "before": "Weekly pageviews", "after": "Renamed"},
        {"type": "Insight", "action": "changed", "field": "favorited", "before": False, "after": True},
    ]
    assert updated["user"]["email"] == "analyst@example.com"
    assert page["results"][0]["detail"]["changes"] == [
        {"type": "Insight", "action": "changed", "field": "deleted", "before": False, "after": True}
    ]
    everything = client.get(base + "activity/?limit=2", headers=world.headers()).json()
    assert everything["total_count"] == 3 and len(everything["results"]) == 2 and everything["next"]


def test_csv_format_flattens_the_page(client, world, insight):
    response = client.get(BASE.format(pid=world.project_id) + "?format=csv", headers=world.headers())
    assert response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert len(rows) == 1
    assert rows[0]["count"] == "1"
    assert rows[0]["results.0.name"] == "Weekly pageviews"
    assert rows[0]["results.0.created_by.email"] == "analyst@example.com"
    header = response.text.splitlines()[0].split(",")
    assert header == sorted(header)


def test_demo_seeds_a_dashboard_of_saved_insights(tmp_path, clock):
    from local_backend.demo_data.setup import seed_demo
    from local_backend.store.engine.choice import open_database
    from local_backend.store.migrations import migrate

    path = tmp_path / "demo.db"
    migrate(path)
    conn = open_database(path)
    access = seed_demo(conn, clock, events=500)
    names = [
        r[0]
        for r in conn.execute("SELECT name FROM insights WHERE project_id = ? ORDER BY id", (access.project["id"],))
    ]
    assert names == ["Pageviews per day", "Daily active users", "Signup to purchase"]
    on_dashboard = conn.execute("SELECT count(*) FROM dashboard_tiles WHERE deleted = 0").fetchone()[0]
    assert on_dashboard == 3
    seed_demo(conn, clock, events=500)  # seeding again adds nothing
    assert conn.execute("SELECT count(*) FROM insights").fetchone()[0] == 3


def test_list_filters_by_dashboards_kind_and_modification_date(client, world, clock):
    base = BASE.format(pid=world.project_id)
    dashboards_url = f"/api/projects/{world.project_id}/dashboards/"
    a, b = (client.post(dashboards_url, json={"name": n}, headers=world.headers()).json()["id"] for n in ("A", "B"))
    client.post(base, json={"name": "old trend", "dashboards": [a]}, headers=world.headers())  # 12:00
    clock.advance(days=3)
    client.post(
        base, json={"name": "funnel", "filters": {"insight": "FUNNELS"}, "dashboards": [a, b]}, headers=world.headers()
    )
    client.post(base, json={"name": "query based", "query": {"kind": "InsightVizNode"}}, headers=world.headers())

    def names(query: str) -> list[str]:
        response = client.get(base + query, headers=world.headers())
        assert response.status_code == 200, response.text
        return [i["name"] for i in response.json()["results"]]

    assert names("?dashboards=[1]") == ["old trend", "funnel"]
    assert names("?dashboards=[1,2]") == ["funnel"]  # on every dashboard listed
    assert names("?insight=TRENDS") == ["old trend"]  # query-based insights are not legacy TRENDS
    assert names("?insight=funnels") == ["funnel"]
    # now is 2026-01-18T12:00Z: -2d is 2026-01-16T12:00Z
    assert names("?date_from=-2d") == ["funnel", "query based"]
    assert names("?date_to=2026-01-16") == ["old trend"]
    for bad, attr in (("?dashboards=1", "dashboards"), ("?insight=PIE", "insight"), ("?date_from=soon", "date_from")):
        response = client.get(base + bad, headers=world.headers())
        assert (response.status_code, response.json()["attr"]) == (400, attr)


def test_sharing_token_reads_only_its_insight_and_only_while_enabled(client, world, insight):
    base = BASE.format(pid=world.project_id)
    other = client.post(base, json={"name": "Private"}, headers=world.headers()).json()
    sharing_url = base + f"{insight['id']}/sharing/"
    token = client.get(sharing_url, headers=world.headers()).json()["access_token"]

    def shared(path: str, method: str = "get"):
        separator = "&" if "?" in path else "?"
        return getattr(client, method)(f"{path}{separator}sharing_access_token={token}")

    invalid = shared(base + f"{insight['id']}/")  # not enabled yet
    assert (invalid.status_code, invalid.json()["detail"]) == (403, "Sharing access token is invalid.")
    client.patch(sharing_url, json={"enabled": True}, headers=world.headers())
    assert shared(base + f"{insight['id']}/").json()["name"] == "Weekly pageviews"
    assert [i["name"] for i in shared(base).json()["results"]] == ["Weekly pageviews"]
    assert shared(base + f"{other['id']}/").status_code == 404
    refused = shared(base + f"{insight['id']}/", method="patch")
    assert (refused.status_code, refused.json()["detail"]) == (
        403,
        "Sharing access token can only be used for GET requests.",
    )
    assert shared(f"/api/projects/{world.other_project_id}/insights/").status_code == 403
    client.patch(sharing_url, json={"enabled": False}, headers=world.headers())
    assert shared(base + f"{insight['id']}/").status_code == 403
