"""Insight and plugin-config functions send the right method, path and body, and return typed rows."""

from __future__ import annotations

import pytest

from toolkit import MethodNotAllowedError, NotFoundError, TrendRequest

from .fakes import load

INSIGHTS = "/api/projects/1/insights/"
CONFIGS = "/api/projects/1/plugin_configs/"


def page(items):
    return (200, {"count": len(items), "next": None, "previous": None, "results": items})


@pytest.mark.parametrize(
    "call, method, path, body",
    [
        (lambda c: c.insight(42), "GET", f"{INSIGHTS}42/", None),
        (lambda c: c.update_insight(42, name="Renamed"), "PATCH", f"{INSIGHTS}42/", {"name": "Renamed"}),
        (lambda c: c.delete_insight(42), "PATCH", f"{INSIGHTS}42/", {"deleted": True}),
        (lambda c: c.favorite(42), "PATCH", f"{INSIGHTS}42/", {"favorited": True}),
        (lambda c: c.favorite(42, favorited=False), "PATCH", f"{INSIGHTS}42/", {"favorited": False}),
        (
            lambda c: c.create_insight(name="Weekly", request=TrendRequest(events=["signup"], interval="week")),
            "POST",
            INSIGHTS,
            {
                "name": "Weekly",
                "filters": {
                    "insight": "TRENDS",
                    "events": [{"id": "signup", "type": "events", "order": 0}],
                    "interval": "week",
                },
                "saved": True,
            },
        ),
    ],
)
def test_insight_calls(client, fake, call, method, path, body):
    fake.routes[(method, path)] = (201 if method == "POST" else 200, load("insight.json"))
    frame = call(client)
    sent = fake.calls[-1]
    assert (sent.method, sent.path, sent.json) == (method, path, body)
    assert frame.loc[0, "short_id"] == "a1B2c3D4" and len(frame) == 1
    assert frame.attrs["raw"]["id"] == 42


def test_insight_by_short_id_looks_it_up_first(client, fake):
    fake.routes[("GET", INSIGHTS)] = page([load("insight.json")])
    fake.routes[("GET", f"{INSIGHTS}42/")] = (200, load("insight.json"))
    assert client.insight("a1B2c3D4", refresh="blocking").loc[0, "id"] == 42
    assert fake.calls[0].params == {"short_id": "a1B2c3D4", "limit": "1"}
    assert fake.calls[1].params == {"refresh": "blocking"}


def test_unknown_short_id_is_not_found(client, fake):
    fake.routes[("GET", INSIGHTS)] = page([])
    with pytest.raises(NotFoundError, match="zzzzzzzz"):
        client.insight("zzzzzzzz")


def test_hard_delete_is_refused_by_the_server_and_reported(client, fake):
    fake.routes[("DELETE", f"{INSIGHTS}42/")] = (405, None)
    with pytest.raises(MethodNotAllowedError):
        client.request("DELETE", client.project_path("insights/42/"))


def test_views_activity_and_sharing(client, fake):
    fake.routes[("POST", f"{INSIGHTS}42/viewed/")] = (200, None)
    fake.routes[("GET", f"{INSIGHTS}42/activity/")] = (200, load("insight_activity.json"))
    fake.routes[("GET", f"{INSIGHTS}activity/")] = (200, load("insight_activity.json"))
    fake.routes[("PATCH", f"{INSIGHTS}42/sharing/")] = (
        200,
        {"access_token": "tok", "created_at": "2026-01-15T12:00:00Z", "enabled": True},
    )
    assert client.mark_viewed(42) is None
    assert client.insight_activity(42)["activity"].tolist() == ["updated", "created"]
    assert client.insight_activity(limit=1)["activity"].tolist() == ["updated"]
    sharing = client.sharing(42, enabled=True)
    assert fake.calls[-1].json == {"enabled": True}
    assert bool(sharing.loc[0, "enabled"]) and sharing.loc[0, "insight_id"] == 42


def test_plugin_config_calls(client, fake):
    config = load("plugin_config.json")
    fake.routes[("POST", CONFIGS)] = (201, config)
    fake.routes[("PATCH", f"{CONFIGS}7/")] = (200, {**config, "enabled": False})
    fake.routes[("DELETE", f"{CONFIGS}7/")] = (204, None)
    fake.routes[("PATCH", f"{CONFIGS}rearrange/")] = (200, [{**config, "order": 2}])
    fake.routes[("POST", f"{CONFIGS}7/job/")] = (200, None)
    fake.routes[("GET", f"{CONFIGS}7/activity/")] = (
        200,
        {"results": [], "next": None, "previous": None, "total_count": 0},
    )
    fake.routes[("GET", "/api/organizations/@current/plugins/")] = page([{"id": 2, "name": "Property filter"}])

    created = client.create_plugin_config(2, order=1, enabled=True, config={"properties": "$ip"}, name="Filter")
    assert fake.calls[-1].json == {
        "plugin": 2,
        "order": 1,
        "enabled": True,
        "config": {"properties": "$ip"},
        "name": "Filter",
    }
    assert created.loc[0, "id"] == 7
    assert not client.update_plugin_config(7, enabled=False).loc[0, "enabled"]
    assert client.delete_plugin_config(7) is None
    assert fake.calls[-1].method == "DELETE"
    assert client.rearrange_plugin_configs({7: 2})["order"].tolist() == [2]
    assert fake.calls[-1].json == {"orders": {"7": 2}}
    assert client.run_plugin_job(7, "reprocess", {"date_from": "2026-01-01"}) is None
    assert fake.calls[-1].json == {
        "job": {"type": "reprocess", "payload": {"date_from": "2026-01-01"}, "operation": "start"}
    }
    assert client.plugin_config_activity(7).empty
    assert client.plugins()["name"].tolist() == ["Property filter"]


def test_persons_events_and_definitions(client, fake):
    fake.routes[("GET", "/api/projects/1/persons/")] = page(load("legacy_funnel_people.json")["results"][0]["people"])
    fake.routes[("GET", "/api/projects/1/events/")] = (
        200,
        {
            "next": None,
            "results": [
                {
                    "id": "e1",
                    "event": "signup",
                    "distinct_id": "ann",
                    "timestamp": "2026-01-01T00:00:00Z",
                    "properties": {},
                }
            ],
        },
    )
    fake.routes[("GET", "/api/projects/1/event_definitions/")] = page(
        [{"id": "d1", "name": "signup", "volume_30_day": 12, "last_seen_at": "2026-01-15T00:00:00Z"}]
    )
    assert client.persons(search="ann")["name"].tolist() == ["ann@example.com"]
    assert fake.calls[-1].params["search"] == "ann"
    assert client.events(event="signup", limit=5)["event"].tolist() == ["signup"]
    assert fake.calls[-1].params == {"event": "signup", "limit": "5"}
    definitions = client.event_definitions()
    assert definitions["name"].tolist() == ["signup"] and str(definitions["volume_30_day"].dtype) == "Int64"


def test_actions_frame(client, fake):
    steps = [{"event": "$pageview", "url": "/signup", "url_matching": "contains"}]
    fake.routes[("GET", "/api/projects/1/actions/")] = page(
        [
            {
                "id": 4,
                "name": "Signed up",
                "description": "",
                "steps": steps,
                "deleted": False,
                "created_at": "2026-01-02T00:00:00Z",
                "tags": [],
            }
        ]
    )
    frame = client.actions()
    assert frame.columns.tolist() == ["id", "name", "description", "steps", "deleted", "created_at"]
    assert frame.loc[0, "steps"] == steps and frame.loc[0, "id"] == 4
