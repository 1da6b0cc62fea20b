"""Paths restricted by a funnel (clock: 2026-01-15 12:00 UTC).

PostHog's own cases (its paths tests ``test_path_by_funnel_after_dropoff``, ``..._after_step``,
``..._before_dropoff``, ``..._before_step`` and ``..._between_step``) replayed with their expected edges, their
events rewritten in our factories on 14 January 2026: a funnel ``step one`` -> ``step two`` -> ``step three``
with a 7-day window, and three groups of persons:

* 5 complete it: step one 00:00, between_step_1_a 00:01, _b 00:02, _c 00:03, step two 00:04, step three 00:05;
* 10 stop after step two: step one 00:00, between_step_1_a 00:01, _b 00:02, step two 00:03,
  between_step_2_a 00:04:20, _b 00:05:40;
* 20 stop after step one: step one 00:00, step dropoff1 00:01, step dropoff2 00:02, and every other one a
  step branch 00:03.

Then cases worked out by hand from :mod:`local_backend.queries.paths.funnel`: the session gap becomes the
conversion window, and a dropped person's paths before the step they missed run to the window's end.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from local_backend.errors import APIError
from local_backend.queries.filter_parsing import parse_filter
from local_backend.queries.paths import PathFilter, compute_paths
from tests.factories import add_events

MIN = 60_000  # one minute in ms
DAY = "2026-01-14"
STEPS = [{"id": "step one", "order": 0}, {"id": "step two", "order": 1}, {"id": "step three", "order": 2}]
FUNNEL = {
    "insight": "FUNNELS",
    "events": STEPS,
    "date_from": "2026-01-14",
    "date_to": "2026-01-20",
    "funnel_window_interval": 7,
    "funnel_window_interval_unit": "day",
}
RANGE = {"date_from": "2026-01-14", "date_to": "2026-01-15"}


def _at(who: str, event: str, clock: str) -> tuple:
    return (event, who, f"{DAY}T00:{clock}Z")


@pytest.fixture
def dropoffs(conn, project) -> None:
    events: list[tuple] = []
    for i in range(5):
        who = f"user_{i}"
        events += [_at(who, "step one", "00:00"), _at(who, "between_step_1_a", "01:00")]
        events += [_at(who, "between_step_1_b", "02:00"), _at(who, "between_step_1_c", "03:00")]
        events += [_at(who, "step two", "04:00"), _at(who, "step three", "05:00")]
    for i in range(5, 15):
        who = f"user_{i}"
        events += [_at(who, "step one", "00:00"), _at(who, "between_step_1_a", "01:00")]
        events += [_at(who, "between_step_1_b", "02:00"), _at(who, "step two", "03:00")]
        events += [_at(who, "between_step_2_a", "04:20"), _at(who, "between_step_2_b", "05:40")]
    for i in range(15, 35):
        who = f"user_{i}"
        events += [_at(who, "step one", "00:00"), _at(who, "step dropoff1", "01:00")]
        events.append(_at(who, "step dropoff2", "02:00"))
        if i % 2 == 0:
            events.append(_at(who, "step branch", "03:00"))
    add_events(conn, project["id"], events)


def edges(conn, project, clock, **fields: Any) -> list[tuple[str, str, int, float]]:
    found = compute_paths(conn, project, parse_filter(PathFilter, {**RANGE, **fields}), clock.now())
    return [(e.source, e.target, e.value, e.average_conversion_time) for e in found]


BEFORE_STEP_TWO = [
    ("1_step one", "2_between_step_1_a", 15, MIN),
    ("2_between_step_1_a", "3_between_step_1_b", 15, MIN),
    ("3_between_step_1_b", "4_step two", 10, MIN),
    ("3_between_step_1_b", "4_between_step_1_c", 5, MIN),
    ("4_between_step_1_c", "5_step two", 5, MIN),
]
POSTHOG_CASES = {
    "after dropoff": (
        "funnel_path_after_step",
        -2,
        [
            ("1_step one", "2_step dropoff1", 20, MIN),
            ("2_step dropoff1", "3_step dropoff2", 20, MIN),
            ("3_step dropoff2", "4_step branch", 10, MIN),
        ],
    ),
    "after step": (
        "funnel_path_after_step",
        2,
        [
            ("1_step two", "2_between_step_2_a", 10, 80_000),
            ("2_between_step_2_a", "3_between_step_2_b", 10, 80_000),
            ("1_step two", "2_step three", 5, MIN),
        ],
    ),
    "before dropoff": (
        "funnel_path_before_step",
        -3,
        [
            ("1_step one", "2_between_step_1_a", 10, MIN),
            ("2_between_step_1_a", "3_between_step_1_b", 10, MIN),
            ("3_between_step_1_b", "4_step two", 10, MIN),
            ("4_step two", "5_between_step_2_a", 10, 80_000),
        ],
    ),
    "before step": ("funnel_path_before_step", 2, BEFORE_STEP_TWO),
    "between steps": ("funnel_path_between_steps", 2, BEFORE_STEP_TWO),
}


@pytest.mark.parametrize("case", list(POSTHOG_CASES))
def test_posthogs_funnel_paths_cases(conn, project, clock, dropoffs, case):
    kind, step, expected = POSTHOG_CASES[case]
    assert edges(conn, project, clock, funnel_paths=kind, funnel_filter=FUNNEL, funnel_step=step) == expected


def test_the_step_may_sit_inside_the_funnel_filter_and_kinds_in_posthogs_old_spelling(conn, project, clock, dropoffs):
    kind, step, expected = POSTHOG_CASES["after dropoff"]
    fields = {"funnel_paths": "funneL_path_after_step", "funnel_filter": {**FUNNEL, "funnel_step": step}}
    assert edges(conn, project, clock, **fields) == expected


@pytest.fixture
def slow(conn, project) -> None:
    """pat does step one at 10:00 and browses an hour later, never step two; quinn does step one at 10:00 on the
    14th, ``later`` two days on (inside the 7-day window) and ``much later`` eight days on (beyond it)."""
    add_events(
        conn,
        project["id"],
        [
            ("step one", "pat", "2026-01-10T10:00:00Z"),
            ("browse", "pat", "2026-01-10T11:00:00Z"),
            ("step one", "quinn", "2026-01-04T10:00:00Z"),
            ("later", "quinn", "2026-01-06T10:00:00Z"),
            ("much later", "quinn", "2026-01-12T10:00:01Z"),
        ],
    )


def test_sessions_are_cut_by_the_conversion_window_not_half_an_hour(conn, project, clock, slow):
    funnel = {**FUNNEL, "date_from": "2026-01-10", "date_to": "2026-01-10"}
    dates = {"date_from": "2026-01-10", "date_to": "2026-01-10"}
    # pat's step one and browse are an hour apart: one session within a 7-day window
    restricted = edges(conn, project, clock, **dates, funnel_paths="funnel_path_after_step", funnel_filter=funnel,
                       funnel_step=-2)  # fmt: skip
    assert restricted == [("1_step one", "2_browse", 1, 60 * MIN)]
    # without the funnel the half-hour gap cuts them apart: no edge at all
    assert edges(conn, project, clock, **dates) == []


def test_a_dropped_persons_paths_before_the_missed_step_run_to_the_end_of_the_window(conn, project, clock, slow):
    funnel = {**FUNNEL, "date_from": "2026-01-04", "date_to": "2026-01-04"}
    dates = {"date_from": "2026-01-01", "date_to": "2026-01-14"}
    # quinn dropped before step two: step one (Jan 4 10:00) + 7 days = Jan 11 10:00 keeps ``later`` (Jan 6), not
    # ``much later`` (Jan 12); the two days between are inside the window, so one session
    found = edges(conn, project, clock, **dates, funnel_paths="funnel_path_before_step", funnel_filter=funnel,
                  funnel_step=-2)  # fmt: skip
    assert found == [("1_step one", "2_later", 1, 2 * 24 * 60 * MIN)]


@pytest.mark.parametrize(
    "fields, attr",
    [
        ({"funnel_paths": "funnel_path_after_step", "funnel_step": 2}, "funnel_filter"),
        ({"funnel_filter": FUNNEL, "funnel_step": 2}, "funnel_paths"),
        ({"funnel_paths": "funnel_path_after_step", "funnel_filter": FUNNEL}, "funnel_step"),
        ({"funnel_paths": "funnel_path_after_step", "funnel_filter": FUNNEL, "funnel_step": 4}, "funnel_step"),
        ({"funnel_paths": "funnel_path_between_steps", "funnel_filter": FUNNEL, "funnel_step": 1}, "funnel_step"),
        ({"funnel_paths": "funnel_path_between_steps", "funnel_filter": FUNNEL, "funnel_step": -2}, "funnel_step"),
        ({"funnel_paths": "sideways", "funnel_filter": FUNNEL, "funnel_step": 2}, "funnel_paths"),
        (
            {"funnel_paths": "funnel_path_after_step", "funnel_filter": {**FUNNEL, "breakdown": "$browser"},
             "funnel_step": 2},
            "funnel_filter__breakdown",
        ),
    ],
)  # fmt: skip
def test_incomplete_or_impossible_funnel_restrictions_are_400s(conn, project, clock, fields, attr):
    with pytest.raises(APIError) as refused:
        edges(conn, project, clock, **fields)
    assert refused.value.attr == attr


def test_the_api_the_query_node_and_path_people_agree(client, world, conn, clock):
    add_events(
        conn,
        world.project_id,
        [_at(who, name, at) for who in ("ann", "ben") for name, at in (("step one", "00:00"), ("step two", "01:00"))]
        + [_at("ann", "step three", "02:00"), _at("ben", "wander", "02:00"), _at("cy", "step one", "00:00")],
    )
    # reached step two: ann and ben; after it, ann goes on to step three and ben wanders
    body = {**RANGE, "funnel_paths": "funnel_path_after_step", "funnel_filter": FUNNEL, "funnel_step": 2}
    base = f"/api/projects/{world.project_id}"
    answer = client.post(f"{base}/insights/path/", json=body, headers=world.headers())
    assert answer.status_code == 200, answer.json()
    found = [(e["source"], e["target"], e["value"]) for e in answer.json()["result"]]
    assert found == [("1_step two", "2_step three", 1), ("1_step two", "2_wander", 1)]
    source = {"kind": "FunnelsQuery", "series": [{"kind": "EventsNode", "event": s["id"]} for s in STEPS],
              "dateRange": {"date_from": "2026-01-14", "date_to": "2026-01-20"},
              "funnelsFilter": {"funnelWindowInterval": 7, "funnelWindowIntervalUnit": "day"}}  # fmt: skip
    node = {
        "kind": "PathsQuery",
        "dateRange": {"date_from": RANGE["date_from"], "date_to": RANGE["date_to"]},
        "funnelPathsFilter": {"funnelPathType": "funnel_path_after_step", "funnelStep": 2, "funnelSource": source},
    }
    queried = client.post(f"{base}/query/", json={"query": node}, headers=world.headers())
    assert queried.status_code == 200, queried.json()
    assert [(e["source"], e["target"], e["value"]) for e in queried.json()["results"]] == found
    params = {key: json.dumps(value) if isinstance(value, dict) else value for key, value in body.items()}
    params["path_end_key"] = "2_wander"
    people = client.get(f"{base}/persons/paths/", params=params, headers=world.headers())
    assert people.status_code == 200, people.json()
    [page] = people.json()["results"]
    assert [d for person in page["people"] for d in person["distinct_ids"]] == ["ben"]
