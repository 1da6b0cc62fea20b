"""Funnel breakdowns given as a list of properties, as PostHog's UI sends them: numbers worked by hand."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlparse

import pytest

from tests.factories import add_events

URL = "/api/projects/{pid}/insights/funnel/"
PEOPLE = "/api/projects/{pid}/persons/funnel/"
AB = [{"id": "a", "order": 0}, {"id": "b", "order": 1}]


def funnel(client, world, **body):
    body.setdefault("events", AB)
    response = client.post(URL.format(pid=world.project_id), json=body, headers=world.headers())
    assert response.status_code == 200, response.json()
    return response.json()["result"]


def by_value(result):
    return {json.dumps(g[0]["breakdown_value"]): [s["count"] for s in g] for g in result}


@pytest.fixture
def three(conn, world):
    # u1 (Chrome, Mac) does a then b; u2 (Chrome, Windows) only a; u3 (Safari, Mac) only a
    add_events(
        conn,
        world.project_id,
        [("a", "u1", "2026-01-10T10:00:00Z", {"$browser": "Chrome", "$os": "Mac"}),
         ("b", "u1", "2026-01-10T10:05:00Z", {"$browser": "Chrome", "$os": "Mac"}),
         ("a", "u2", "2026-01-10T11:00:00Z", {"$browser": "Chrome", "$os": "Windows"}),
         ("a", "u3", "2026-01-10T12:00:00Z", {"$browser": "Safari", "$os": "Mac"})],
        persons={"u1": {"plan": "pro"}, "u2": {"plan": "pro"}, "u3": {"plan": "free"}},
    )  # fmt: skip


@pytest.mark.parametrize("attribution", ["first_touch", "last_touch", "all_events", "step"])
def test_one_property_list_matches_the_string_form(client, world, three, attribution):
    extra = {"breakdown_attribution_value": 0} if attribution == "step" else {}
    common = {"breakdown_type": "event", "breakdown_attribution_type": attribution, **extra}
    listed = funnel(client, world, breakdown=["$browser"], **common)
    # Chrome: u1 and u2 enter, u1 converts; Safari: u3 enters only
    assert by_value(listed) == {'["Chrome"]': [2, 1], '["Safari"]': [1, 0]}
    assert all(s["breakdown"] == s["breakdown_value"] for g in listed for s in g)
    plain = funnel(client, world, breakdown="$browser", **common)
    assert [[s["count"] for s in g] for g in plain] == [[s["count"] for s in g] for g in listed]


def test_several_properties_break_down_by_their_combination(client, world, three):
    result = funnel(client, world, breakdown=["$browser", "$os"], breakdown_type="event")
    assert by_value(result) == {
        '["Chrome", "Mac"]': [1, 1],
        '["Chrome", "Windows"]': [1, 0],
        '["Safari", "Mac"]': [1, 0],
    }


def test_person_property_list(client, world, three):
    result = funnel(client, world, breakdown=["plan"], breakdown_type="person")
    assert by_value(result) == {'["pro"]': [2, 1], '["free"]': [1, 0]}


def test_people_of_a_list_breakdown_value(client, world, three):
    query = {"events": json.dumps(AB), "breakdown": json.dumps(["$browser"]), "breakdown_type": "event",
             "funnel_step": "1", "funnel_step_breakdown": json.dumps(["Chrome"])}  # fmt: skip
    response = client.get(PEOPLE.format(pid=world.project_id), params=query, headers=world.headers())
    assert response.status_code == 200, response.json()
    people = response.json()["results"][0]["people"]
    assert sorted(d for p in people for d in p["distinct_ids"]) == ["u1", "u2"]
    query["funnel_step"] = "2"
    response = client.get(PEOPLE.format(pid=world.project_id), params=query, headers=world.headers())
    assert [p["distinct_ids"] for p in response.json()["results"][0]["people"]] == [["u1"]]


@pytest.fixture
def tied(conn, world):
    # Two persons convert a -> b, each with two events of their own value: every step count and every event
    # count ties, so only the values order the groups. "Chrome" < "Chrome iOS" element by element, while the
    # JSON texts compare the other way round ('["Chrome","Windows"]' > '["Chrome iOS","iOS"]': '"' > ' ').
    chrome = {"$browser": "Chrome", "$os": "Windows"}
    ios = {"$browser": "Chrome iOS", "$os": "iOS"}
    add_events(
        conn,
        world.project_id,
        [("a", "u1", "2026-01-10T10:00:00Z", chrome), ("b", "u1", "2026-01-10T10:05:00Z", chrome),
         ("a", "u2", "2026-01-10T11:00:00Z", ios), ("b", "u2", "2026-01-10T11:05:00Z", ios)],
    )  # fmt: skip


def test_tied_list_values_are_ordered_by_value_element_by_element(client, world, tied):
    # PostHog orders the groups by persons completing exactly the last step, ..., exactly the first (descending);
    # full ties keep the order of its value list: event count, then value, both descending
    for _ in range(3):
        result = funnel(client, world, breakdown=["$browser", "$os"], breakdown_type="event")
        assert [g[0]["breakdown_value"] for g in result] == [["Chrome iOS", "iOS"], ["Chrome", "Windows"]]
        assert [[s["count"] for s in g] for g in result] == [[1, 1], [1, 1]]


def test_breakdown_limit_keeps_the_first_list_value_element_by_element(client, world, tied):
    result = funnel(client, world, breakdown=["$browser", "$os"], breakdown_type="event", breakdown_limit=1)
    assert [g[0]["breakdown_value"] for g in result] == [["Chrome iOS", "iOS"], ["Other"]]


def test_people_links_name_their_entities(client, world, conn, three):
    conn.execute(
        "INSERT INTO actions (project_id, name, steps, created_at, updated_at) VALUES (?, 'Did b', ?, '', '')",
        (world.project_id, json.dumps([{"event": "b"}])),
    )
    conn.commit()
    action_id = conn.execute("SELECT id FROM actions").fetchone()[0]
    result = funnel(
        client, world, events=[{"id": "a", "order": 0, "type": "events"}],
        actions=[{"id": action_id, "order": 1, "type": "actions"}], breakdown=["$browser"], breakdown_type="event",
    )  # fmt: skip
    for group in result:
        for step in group:
            for key in ("converted_people_url", "dropped_people_url"):
                if step[key] is None:
                    continue
                query = parse_qs(urlparse(step[key]).query)
                assert [(e["id"], e["name"]) for e in json.loads(query["events"][0])] == [("a", "a")]
                assert [(e["id"], e["name"]) for e in json.loads(query["actions"][0])] == [(action_id, "Did b")]
    chrome = next(g for g in result if g[0]["breakdown_value"] == ["Chrome"])
    followed = client.get(chrome[1]["converted_people_url"], headers=world.headers())
    assert followed.status_code == 200, followed.json()
    assert [p["distinct_ids"] for p in followed.json()["results"][0]["people"]] == [["u1"]]
