"""Who went through a node or an edge of a paths result: ``persons/paths/`` with ``path_start_key``,
``path_end_key`` and ``path_dropoff_key``.

Hand-written pageviews, 12 January 2026 unless said (each person's views five minutes apart, one session):
ann /home, /pricing, /signup; ben /home, /pricing; cat /home, /about; dan /pricing alone; eve /home, /pricing on
the 12th and again on the 13th (two sessions). Edges by hand: 1_/home -> 2_/pricing 4 sessions (ann, ben, eve
twice), 2_/pricing -> 3_/signup 1 (ann), 1_/home -> 2_/about 1 (cat); dan's one-step path makes no edge.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest

from tests.factories import add_events

PATH = "/api/projects/{pid}/insights/path/"
PEOPLE = "/api/projects/{pid}/persons/paths/"
FILTER = {"include_event_types": '["$pageview"]', "date_from": "2026-01-12", "date_to": "2026-01-14"}


def _views(person: str, day: int, urls: list[str]) -> list[tuple[str, str, str, dict[str, Any]]]:
    return [
        ("$pageview", person, f"2026-01-{day}T10:{5 * i:02d}:00Z", {"$current_url": url}) for i, url in enumerate(urls)
    ]


@pytest.fixture
def stored(conn, world):
    add_events(
        conn,
        world.project_id,
        [
            *_views("ann", 12, ["/home", "/pricing", "/signup"]),
            *_views("ben", 12, ["/home", "/pricing"]),
            *_views("cat", 12, ["/home", "/about"]),
            *_views("dan", 12, ["/pricing"]),
            *_views("eve", 12, ["/home", "/pricing"]),
            *_views("eve", 13, ["/home", "/pricing"]),
        ],
    )


def _people(client, world, **keys: str):
    url = PEOPLE.format(pid=world.project_id) + "?" + urlencode({**FILTER, **keys})
    return client.get(url, headers=world.headers())


def _names(response) -> set[str]:
    assert response.status_code == 200, response.json()
    [page] = response.json()["results"]
    return {distinct_id for person in page["people"] for distinct_id in person["distinct_ids"]}


def test_the_edges_are_as_worked_out(client, world, stored):
    response = client.post(PATH.format(pid=world.project_id), json=FILTER, headers=world.headers())
    edges = {(edge["source"], edge["target"]): edge["value"] for edge in response.json()["result"]}
    assert edges == {("1_/home", "2_/pricing"): 4, ("2_/pricing", "3_/signup"): 1, ("1_/home", "2_/about"): 1}


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        ({"path_start_key": "1_/home", "path_end_key": "2_/pricing"}, {"ann", "ben", "eve"}),  # eve once
        ({"path_end_key": "2_/pricing"}, {"ann", "ben", "eve"}),
        ({"path_start_key": "2_/pricing"}, {"ann"}),  # only ann went on
        ({"path_dropoff_key": "2_/pricing"}, {"ben", "eve"}),
        ({"path_dropoff_key": "3_/signup"}, {"ann"}),
        ({"path_end_key": "2_/about"}, {"cat"}),
        ({}, {"ann", "ben", "cat", "dan", "eve"}),  # everyone with a path
    ],
)
def test_each_node_and_edge_lists_who_went_through_it(client, world, stored, keys, expected):
    assert _names(_people(client, world, **keys)) == expected


@pytest.mark.parametrize(
    ("keys", "attr"),
    [
        ({"path_end_key": "9_/nowhere"}, "path_end_key"),
        ({"path_start_key": "3_/signup"}, "path_start_key"),  # no edge leaves the last step
        ({"path_start_key": "1_/home", "path_end_key": "3_/signup"}, "path_end_key"),
        ({"path_dropoff_key": "2_/pricing", "path_start_key": "1_/home"}, "path_dropoff_key"),
    ],
)
def test_a_key_the_result_does_not_show_is_a_400_naming_it(client, world, stored, keys, attr):
    response = _people(client, world, **keys)
    assert response.status_code == 400 and response.json()["attr"] == attr
