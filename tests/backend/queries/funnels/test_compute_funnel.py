"""The funnel package's entry points on hand-written events (clock: 2026-01-15 12:00 UTC, range -7d).

Two steps, ``$pageview`` then ``signup`` within the default 14-day window:

* alice: pageview 10th 10:00, signup 10th 10:05 -> converts in 300 s
* bob:   pageview 11th 09:00, signup 11th 09:15 -> converts in 900 s
* carol: pageview 12th 08:00 only                 -> drops off before step 2
* dave:  signup 12th 09:00 only                   -> never enters
"""

from __future__ import annotations

import pytest

from local_backend.errors import ValidationError
from local_backend.queries.funnels import (
    FunnelFilter,
    compute_correlation,
    compute_correlation_people,
    compute_funnel,
    compute_funnel_people,
)
from tests.factories import add_events

TWO_STEPS = FunnelFilter(events=[{"id": "$pageview", "order": 0}, {"id": "signup", "order": 1}])


def _link(params: dict) -> str:
    return "people?" + "&".join(f"{key}={value}" for key, value in sorted(params.items()))


@pytest.fixture
def persons(conn, project) -> dict[str, int]:
    return add_events(
        conn,
        project["id"],
        [
            ("$pageview", "alice", "2026-01-10T10:00:00Z"),
            ("signup", "alice", "2026-01-10T10:05:00Z"),
            ("$pageview", "bob", "2026-01-11T09:00:00Z"),
            ("signup", "bob", "2026-01-11T09:15:00Z"),
            ("$pageview", "carol", "2026-01-12T08:00:00Z"),
            ("signup", "dave", "2026-01-12T09:00:00Z"),
        ],
    )


def test_two_step_funnel_counts_and_times(conn, project, clock, persons):
    first, second = compute_funnel(conn, project, TWO_STEPS, clock.now(), _link)
    assert (first["count"], second["count"]) == (3, 2)
    assert second["average_conversion_time"] == 600.0  # (300 + 900) / 2
    assert second["median_conversion_time"] == 600.0
    assert first["dropped_people_url"] is None


def test_people_links_are_made_by_the_given_link_from_the_point_parameters(conn, project, clock, persons):
    _, second = compute_funnel(
        conn, project, TWO_STEPS, clock.now(), lambda params: f"/people/?step={params['funnel_step']}"
    )
    assert second["converted_people_url"] == "/people/?step=2"
    assert second["dropped_people_url"] == "/people/?step=-2"


def test_people_of_a_step(conn, project, clock, persons):
    reached = compute_funnel_people(conn, project, TWO_STEPS, clock.now(), 2)
    dropped = compute_funnel_people(conn, project, TWO_STEPS, clock.now(), -2)
    assert reached.person_ids == sorted([persons["alice"], persons["bob"]])
    assert dropped.person_ids == [persons["carol"]]
    assert reached.group_keys is None


def test_correlation_counts_an_event_done_between_the_steps(conn, project, clock, persons):
    add_events(conn, project["id"], [("watched_video", "alice", "2026-01-10T10:01:00Z")])
    captured: list[dict] = []
    result = compute_correlation(
        conn, project, TWO_STEPS, clock.now(), {}, lambda params: captured.append(params) or ""
    )
    [row] = [entry for entry in result["events"] if entry["event"]["event"] == "watched_video"]
    # successes: alice, bob (1 did it); failures: carol (0 did it) -> (1 + 1)(1 - 0 + 1) / ((2 - 1 + 1)(0 + 1)) = 2
    assert (row["success_count"], row["failure_count"], row["odds_ratio"]) == (1, 0, 2.0)
    assert {params["funnel_correlation_value"] for params in captured} == {"watched_video"}
    people = compute_correlation_people(conn, project, TWO_STEPS, clock.now(), {}, "watched_video", True)
    assert people == [persons["alice"]]


def test_correlation_of_a_group_funnel_is_refused(conn, project, clock):
    grouped = TWO_STEPS.model_copy(update={"aggregation_group_type_index": 0})
    with pytest.raises(ValidationError) as caught:
        compute_correlation(conn, project, grouped, clock.now(), {}, _link)
    assert caught.value.attr == "aggregation_group_type_index"
