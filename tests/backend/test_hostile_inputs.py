"""Inputs a careless or hostile client sends: each answered with a 400 envelope or a rejected event, never a 500."""

from __future__ import annotations

import json

INSIGHTS = "/api/projects/{pid}/insights/"


def capture(client, world, events: list[dict]) -> dict:
    body = json.dumps({"api_key": world.project_token, "batch": events})
    return client.post("/batch/", content=body, headers={"Content-Type": "application/json"}).json()


def stored_events(conn) -> list[tuple]:
    return conn.execute("SELECT event, distinct_id, timestamp FROM events ORDER BY event").fetchall()


def test_project_ids_take_ascii_digits_only(client, world):
    # int() reads the Arabic-Indic digit two as 2, and " 1", "+1" and "0_1" as 1: none of them is a project id
    assert client.get(f"/api/projects/{world.project_id}/", headers=world.headers()).status_code == 200
    for text in ("\u0662", "\u0661", "+1", "0_1", "%201", "01\u0660"):
        response = client.get(f"/api/projects/{text}/insights/", headers=world.headers())
        assert response.status_code == 404, text
        assert response.json() == {
            "type": "invalid_request",
            "code": "not_found",
            "detail": "Project not found.",
            "attr": None,
        }


def test_re_enabling_sharing_mints_a_new_token(client, world):
    insight = client.post(INSIGHTS.format(pid=world.project_id), json={"name": "Shared"}, headers=world.headers())
    url = INSIGHTS.format(pid=world.project_id) + f"{insight.json()['id']}/sharing/"
    shown = client.get(url, headers=world.headers()).json()["access_token"]
    first = client.patch(url, json={"enabled": True}, headers=world.headers()).json()["access_token"]
    assert first == shown  # the token shown before the first enable is the one shared
    client.patch(url, json={"enabled": False}, headers=world.headers())
    again = client.patch(url, json={"enabled": True}, headers=world.headers()).json()
    assert again["enabled"] is True and again["access_token"] != first
    leaked = client.get(INSIGHTS.format(pid=world.project_id) + f"?sharing_access_token={first}")
    assert leaked.status_code == 403
    fresh = client.get(INSIGHTS.format(pid=world.project_id) + f"?sharing_access_token={again['access_token']}")
    assert [i["name"] for i in fresh.json()["results"]] == ["Shared"]


def test_a_timestamp_of_ones_is_rejected_not_stored_in_year_1111(client, conn, world):
    good = {"event": "signup", "distinct_id": "alice", "timestamp": "2026-01-15T10:00:00Z"}
    bad = {"event": "broken", "distinct_id": "bob", "timestamp": "1" * 400}
    answer = capture(client, world, [good, bad])
    assert (answer["accepted"], answer["rejected"]) == (1, 1)
    assert [r["index"] for r in answer["rejections"]] == [1]
    assert [row[0] for row in stored_events(conn)] == ["signup"]


def test_a_date_of_ones_in_a_filter_is_a_400_naming_it(client, world):
    response = client.post(
        f"/api/projects/{world.project_id}/insights/trend/",
        json={"events": [{"id": "$pageview"}], "date_from": "1" * 400},
        headers=world.headers(),
    )
    assert response.status_code == 400
    assert response.json()["attr"] == "date_from"
