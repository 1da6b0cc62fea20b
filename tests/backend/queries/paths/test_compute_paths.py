"""``compute_paths`` on hand-written pageviews (clock: 2026-01-15 12:00 UTC, default range -7d).

* alice: /home 10:00:00, /pricing 10:01:00, /signup/ 10:03:00 (the trailing slash is dropped)
* bob:   /home 11:00:00, /pricing 11:02:00, then the custom event ``signup`` at 11:03:00
"""

from __future__ import annotations

from local_backend.queries.paths import PathFilter, compute_paths
from tests.factories import add_events


def _views(person: str, visits: list[tuple[str, str]]) -> list[tuple]:
    return [("$pageview", person, f"2026-01-14T{at}Z", {"$current_url": url}) for at, url in visits]


def test_edges_with_weights_and_average_times(conn, project, clock):
    add_events(
        conn,
        project["id"],
        [
            *_views("alice", [("10:00:00", "/home"), ("10:01:00", "/pricing"), ("10:03:00", "/signup/")]),
            *_views("bob", [("11:00:00", "/home"), ("11:02:00", "/pricing")]),
            ("signup", "bob", "2026-01-14T11:03:00Z"),
        ],
    )
    pageviews = PathFilter(include_event_types=["$pageview"])
    edges = [edge.as_dict() for edge in compute_paths(conn, project, pageviews, clock.now())]
    assert edges == [
        # two sessions, 60 s and 120 s apart: 90 000 ms on average
        {"source": "1_/home", "target": "2_/pricing", "value": 2, "average_conversion_time": 90_000.0},
        {"source": "2_/pricing", "target": "3_/signup", "value": 1, "average_conversion_time": 120_000.0},
    ]
    # without event types every event counts: bob's custom event follows his /pricing a minute later
    edges = [edge.as_dict() for edge in compute_paths(conn, project, PathFilter(), clock.now())]
    assert edges == [
        {"source": "1_/home", "target": "2_/pricing", "value": 2, "average_conversion_time": 90_000.0},
        {"source": "2_/pricing", "target": "3_/signup", "value": 1, "average_conversion_time": 120_000.0},
        {"source": "2_/pricing", "target": "3_signup", "value": 1, "average_conversion_time": 60_000.0},
    ]


def test_custom_events_as_items(conn, project, clock):
    add_events(
        conn,
        project["id"],
        [("opened", "carol", "2026-01-14T09:00:00Z"), ("saved", "carol", "2026-01-14T09:00:30Z")],
    )
    filter = PathFilter(include_event_types=["custom_event"])
    edges = [edge.as_dict() for edge in compute_paths(conn, project, filter, clock.now())]
    assert edges == [{"source": "1_opened", "target": "2_saved", "value": 1, "average_conversion_time": 30_000.0}]
