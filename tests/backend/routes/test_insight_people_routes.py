"""The people routes of trends, stickiness, lifecycle and paths as HTTP resources: scopes, projects, paging
and the 400s of points the calculation does not show.

Events: ann, ben and cat each view /home on 13 January 2026 at 10:00 (ann then /pricing at 10:05), so every list
below holds ann, ben and cat (sorted by person id: the order they were created in); everyone reached 1_/home.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests.factories import add_events

DAY = {"date_from": "2026-01-13T00:00:00", "date_to": "2026-01-13T23:59:59.999999", "explicit_date": "true"}
TREND = {"events": '[{"id": "$pageview", "math": "dau"}]', **DAY, "entity_id": "$pageview", "entity_order": "0"}
STICKY = {"insight": "STICKINESS", "events": '[{"id": "$pageview"}]', **DAY, "stickiness_days": "1"}
LIFE = {"insight": "LIFECYCLE", "events": '[{"id": "$pageview"}]', **DAY, "target_date": "2026-01-13"}
LIFE = {**LIFE, "lifecycle_type": "resurrecting"}
PATH = {"include_event_types": '["$pageview"]', **DAY, "path_end_key": "1_/home"}
ROUTES = {"trends": TREND, "stickiness": STICKY, "lifecycle": LIFE, "paths": PATH}


@pytest.fixture
def stored(conn, world):
    views = [(who, "/home", "10:00") for who in ("ann", "ben", "cat")] + [("ann", "/pricing", "10:05")]
    add_events(
        conn,
        world.project_id,
        [("$pageview", who, f"2026-01-13T{at}:00Z", {"$current_url": url}) for who, url, at in views],
    )


def _url(project_id: int, kind: str, **extra: str) -> str:
    return f"/api/projects/{project_id}/persons/{kind}/?" + urlencode({**ROUTES[kind], **extra})


def _names(body) -> list[str]:
    return [person["distinct_ids"][0] for person in body["results"][0]["people"]]


@pytest.mark.parametrize("kind", list(ROUTES))
def test_each_list_pages_by_limit_and_offset(client, world, stored, kind):
    first = client.get(_url(world.project_id, kind, limit="2"), headers=world.headers())
    assert first.status_code == 200, first.json()
    body = first.json()
    assert (body["count"], _names(body), body["previous"]) == (3, ["ann", "ben"], None)
    assert "offset=2" in body["next"]
    second = client.get(body["next"], headers=world.headers()).json()
    assert (_names(second), second["next"], second["results"][0]["count"]) == (["cat"], None, 1)


@pytest.mark.parametrize("kind", list(ROUTES))
@pytest.mark.parametrize(
    ("scopes", "project", "status"),
    [
        (("person:read",), None, 200),
        (("insight:read",), None, 403),  # the people of a number are persons: person:read, as the funnel's
        (("person:read",), "other", 403),  # a key scoped to the other project
    ],
)
def test_scopes_and_projects(client, world, stored, kind, scopes, project, status):
    projects = [world.other_project_id] if project == "other" else None
    key = world.make_key(*scopes, projects=projects)
    response = client.get(_url(world.project_id, kind), headers=world.headers(key))
    assert response.status_code == status, response.json()


def test_another_projects_lists_are_its_own(client, world, stored):
    response = client.get(_url(world.other_project_id, "trends"), headers=world.headers())
    assert response.status_code == 200 and response.json()["count"] == 0


@pytest.mark.parametrize(
    ("kind", "extra", "attr"),
    [
        ("trends", {"formula": "A"}, "formula"),
        ("trends", {"breakdown_value": "Chrome"}, "breakdown_value"),  # the series is not broken down
        ("trends", {"breakdown": "$current_url"}, "breakdown_value"),  # a broken-down series needs its value
        ("trends", {"breakdown": "$current_url", "breakdown_value": "/nowhere"}, "breakdown_value"),
        (
            "trends",
            {"breakdown": "$current_url", "breakdown_value": "/home", "series_date_from": "2026-01-01"},
            "series_date_to",
        ),
        ("trends", {"entity_id": "signup"}, "entity_id"),
        ("trends", {"entity_order": "x"}, "entity_order"),
        ("trends", {"date_from": "soon"}, "date_from"),
        ("stickiness", {"stickiness_days": "2"}, "stickiness_days"),  # a one-day range has one bucket
        ("stickiness", {"stickiness_days": "0"}, "stickiness_days"),
        ("lifecycle", {"lifecycle_type": "asleep"}, "lifecycle_type"),
        ("lifecycle", {"target_date": "2026-01-20"}, "target_date"),
        ("paths", {"path_end_key": "7_/home"}, "path_end_key"),
    ],
)
def test_a_point_not_shown_is_a_400_naming_the_field(client, world, stored, kind, extra, attr):
    response = client.get(_url(world.project_id, kind, **extra), headers=world.headers())
    assert response.status_code == 400, response.json()
    assert (response.json()["type"], response.json()["attr"]) == ("validation_error", attr)


def test_an_insight_actors_query_needs_person_read(client, world, stored):
    source = {"kind": "TrendsQuery", "series": [{"kind": "EventsNode", "event": "$pageview"}]}
    body = {
        "query": {
            "kind": "ActorsQuery",
            "source": {"kind": "InsightActorsQuery", "source": source, "day": "2026-01-13"},
        }
    }
    key = world.make_key("query:read")
    response = client.post(f"/api/projects/{world.project_id}/query/", json=body, headers=world.headers(key))
    assert response.status_code == 403


@pytest.mark.parametrize("kind", list(ROUTES))
def test_each_list_names_its_people_as_the_persons_api_does(client, conn, world, kind):
    # ann has an email and a name (the email wins), ben only a name, cat neither (her distinct id names her)
    persons = {"ann": {"email": "ann@example.com", "name": "Ann"}, "ben": {"name": "Ben"}}
    views = [(who, "/home", "10:00") for who in ("ann", "ben", "cat")] + [("ann", "/pricing", "10:05")]
    events = [("$pageview", who, f"2026-01-13T{at}:00Z", {"$current_url": url}) for who, url, at in views]
    add_events(conn, world.project_id, events, persons=persons)
    response = client.get(_url(world.project_id, kind), headers=world.headers())
    assert response.status_code == 200, response.json()
    people = response.json()["results"][0]["people"]
    assert [person["name"] for person in people] == ["ann@example.com", "Ben", "cat"]
