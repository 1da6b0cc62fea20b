"""``compute_lifecycle`` on hand-written events, each expected number worked out by hand from the rules: per
actor and interval, new (its first active interval is the one it was created in), returning (active in the
interval before too), resurrecting (any other active interval), dormant (once, right after a run of activity,
as -1); events are read from the interval before ``date_from``; personless events are left out.
"""

from __future__ import annotations

from typing import Any

import pytest

from local_backend.clock import parse_instant
from local_backend.queries.lifecycle import LifecycleFilter, compute_lifecycle
from local_backend.store.event_rows import to_micros
from tests.factories import add_events

STATUSES = ["new", "returning", "resurrecting", "dormant"]


def created(conn, people: dict[str, int], when: dict[str, str]) -> None:
    """Set when each person was created (the factories create them at the epoch)."""
    for name, iso in when.items():
        conn.execute("UPDATE persons SET created_at = ? WHERE id = ?", (to_micros(parse_instant(iso)), people[name]))
    conn.commit()


def lifecycle(conn, project, clock, **fields: Any) -> dict[str, list[float]]:
    body = {"events": [{"id": "e"}], **fields}
    series = compute_lifecycle(conn, project, LifecycleFilter(**body), clock.now()).series
    assert [item["status"] for item in series] == STATUSES
    return {item["status"]: item["data"] for item in series}


def test_each_status_and_the_interval_before_the_range(conn, project, clock):
    people = add_events(
        conn,
        project["id"],
        [
            ("e", "ann", "2026-01-09T10:00:00Z"),  # the day before the range
            ("e", "ann", "2026-01-10T10:00:00Z"),
            ("e", "ann", "2026-01-12T10:00:00Z"),
            ("e", "ben", "2026-01-11T10:00:00Z"),
            ("e", "ben", "2026-01-12T10:00:00Z"),
            ("e", "cat", "2026-01-11T23:59:59Z"),
        ],
    )
    created(conn, people, {"ann": "2026-01-09T09:00:00Z", "ben": "2026-01-11T09:00:00Z", "cat": "2025-06-01T00:00:00Z"})
    found = lifecycle(conn, project, clock, date_from="2026-01-10", date_to="2026-01-13")
    # 10th: ann returning (active the 9th, when she was created). 11th: ann dormant; ben new; cat resurrecting
    # (created long before). 12th: ann resurrecting, ben returning, cat dormant. 13th: ann and ben dormant
    assert found == {
        "new": [0.0, 1.0, 0.0, 0.0],
        "returning": [1.0, 0.0, 1.0, 0.0],
        "resurrecting": [0.0, 1.0, 1.0, 0.0],
        "dormant": [0.0, -1.0, -1.0, -2.0],
    }


def test_shape_labels_and_counts(conn, project, clock):
    people = add_events(conn, project["id"], [("e", "ann", "2026-01-14T10:00:00Z")])
    created(conn, people, {"ann": "2026-01-14T09:00:00Z"})
    series = compute_lifecycle(
        conn, project, LifecycleFilter(events=[{"id": "e"}], date_from="2026-01-14"), clock.now()
    ).series
    new, _, _, dormant = series
    assert new["label"] == "e - new" and dormant["label"] == "e - dormant"
    assert new["days"] == ["2026-01-14", "2026-01-15"] and new["labels"] == ["14-Jan-2026", "15-Jan-2026"]
    assert (new["data"], new["count"]) == ([1.0, 0.0], 1.0)
    assert (dormant["data"], dormant["count"]) == ([0.0, -1.0], -1.0)
    assert new["action"]["id"] == "e"


def test_a_person_created_before_the_first_event_is_never_new(conn, project, clock):
    people = add_events(
        conn, project["id"], [("e", "ann", "2026-01-12T10:00:00Z"), ("e", "bob", "2026-01-12T10:00:00Z")]
    )
    # ann was created the day before her first event; bob the same day, after it (still his first day)
    created(conn, people, {"ann": "2026-01-11T23:00:00Z", "bob": "2026-01-12T11:00:00Z"})
    found = lifecycle(conn, project, clock, date_from="2026-01-11", date_to="2026-01-12")
    assert found["new"] == [0.0, 1.0] and found["resurrecting"] == [0.0, 1.0]


def test_zero_fill_without_events(conn, project, clock):
    found = lifecycle(conn, project, clock, date_from="2026-01-12", date_to="2026-01-14")
    assert found == {status: [0.0, 0.0, 0.0] for status in STATUSES}


def test_personless_events_are_left_out(conn, project, clock):
    people = add_events(
        conn,
        project["id"],
        [
            ("e", "ann", "2026-01-12T10:00:00Z", {"$process_person_profile": False}),
            ("e", "ann", "2026-01-13T10:00:00Z"),
            ("e", "bob", "2026-01-12T10:00:00Z", {"$process_person_profile": True}),
        ],
    )
    created(conn, people, {"ann": "2026-01-12T10:00:00Z", "bob": "2026-01-12T10:00:00Z"})
    found = lifecycle(conn, project, clock, date_from="2026-01-12", date_to="2026-01-13")
    # without her personless event, ann is first active on the 13th, not the day she was created
    assert found["new"] == [1.0, 0.0]  # bob
    assert found["resurrecting"] == [0.0, 1.0]  # ann
    assert found["returning"] == [0.0, 0.0]
    assert found["dormant"] == [0.0, -1.0]  # bob


def test_groups_by_aggregation_group_type_index(conn, project, clock):
    add_events(
        conn,
        project["id"],
        [
            ("e", "ann", "2026-01-12T10:00:00Z"),
            ("e", "bob", "2026-01-13T10:00:00Z"),
            ("e", "cat", "2026-01-13T11:00:00Z"),
            ("e", "dan", "2026-01-13T12:00:00Z"),
        ],
    )
    # ann and bob act for acme (created the 12th), cat for initech (created long ago), dan for no group
    conn.execute(
        "UPDATE events SET group_0 = CASE distinct_id WHEN 'cat' THEN 'initech' WHEN 'dan' THEN NULL ELSE 'acme' END"
    )
    conn.executemany(
        "INSERT INTO groups (project_id, group_type_index, group_key, properties, created_at)"
        " VALUES (?, 0, ?, '{}', ?)",
        [(project["id"], "acme", to_micros(parse_instant("2026-01-12T00:00:00Z"))), (project["id"], "initech", 0)],
    )
    conn.commit()
    found = lifecycle(
        conn, project, clock, date_from="2026-01-12", date_to="2026-01-14", aggregation_group_type_index=0
    )
    # acme: new the 12th, returning the 13th, dormant the 14th; initech resurrecting the 13th, dormant the 14th
    assert found == {
        "new": [1.0, 0.0, 0.0],
        "returning": [0.0, 1.0, 0.0],
        "resurrecting": [0.0, 1.0, 0.0],
        "dormant": [0.0, 0.0, -2.0],
    }


def test_weeks_start_on_the_project_week_start_in_its_timezone(conn, project, clock):
    people = add_events(
        conn,
        project["id"],
        [
            ("e", "ann", "2026-01-05T03:00:00Z"),  # Sunday 4 January 22:00 in New York
            ("e", "ann", "2026-01-12T15:00:00Z"),  # Monday 12 January
        ],
    )
    created(conn, people, {"ann": "2026-01-05T02:00:00Z"})
    new_york = {**project, "timezone": "America/New_York", "week_start_day": 1}
    found = lifecycle(conn, new_york, clock, interval="week", date_from="2025-12-29", date_to="2026-01-18")
    # Monday weeks of 29 Dec, 5 Jan, 12 Jan: Sunday the 4th is in the first (new), the 12th starts the third
    # (after a week away: resurrecting); dormant in the second week
    assert found["new"] == [1.0, 0.0, 0.0]
    assert found["resurrecting"] == [0.0, 0.0, 1.0]
    assert found["dormant"] == [0.0, -1.0, 0.0]


def test_hours_and_months(conn, project, clock):
    people = add_events(
        conn,
        project["id"],
        [
            ("e", "ann", "2026-01-14T10:30:00Z"),
            ("e", "ann", "2026-01-14T11:05:00Z"),
            ("e", "ann", "2025-11-20T10:00:00Z"),
        ],
    )
    created(conn, people, {"ann": "2025-11-20T09:00:00Z"})
    hours = lifecycle(
        conn, project, clock, interval="hour", date_from="2026-01-14T10:00:00", date_to="2026-01-14T12:00:00"
    )
    # 10:00 resurrecting (created in November), 11:00 returning, 12:00 dormant
    assert hours["resurrecting"] == [1.0, 0.0, 0.0] and hours["returning"] == [0.0, 1.0, 0.0]
    assert hours["dormant"] == [0.0, 0.0, -1.0]
    months = lifecycle(conn, project, clock, interval="month", date_from="2025-11-01", date_to="2026-01-31")
    # November new, December dormant, January resurrecting
    assert months == {"new": [1.0, 0.0, 0.0], "returning": [0.0, 0.0, 0.0], "resurrecting": [0.0, 0.0, 1.0],
                      "dormant": [0.0, -1.0, 0.0]}  # fmt: skip


def test_an_action_series(conn, project, clock):
    from local_backend.store.actions import create_action

    people = add_events(
        conn, project["id"], [("signup", "ann", "2026-01-12T10:00:00Z"), ("e", "bob", "2026-01-12T10:00:00Z")]
    )
    created(conn, people, {"ann": "2026-01-12T10:00:00Z", "bob": "2026-01-12T10:00:00Z"})
    step = [{"event": "signup", "url": None, "url_matching": "contains", "properties": []}]
    action_id = create_action(conn, project_id=project["id"], user_id=None, values={"name": "Signed up", "steps": step},
                              now="2026-01-01")  # fmt: skip
    body = {"actions": [{"id": action_id}], "date_from": "2026-01-12", "date_to": "2026-01-13"}
    new, *_ = compute_lifecycle(conn, project, LifecycleFilter(**body), clock.now()).series
    assert (new["label"], new["data"]) == ("Signed up - new", [1.0, 0.0])  # ann only


@pytest.mark.parametrize("body", [{"events": [{"id": "e"}, {"id": "f"}]}, {"events": []}])
def test_one_series_exactly(body):
    from local_backend.errors import ValidationError

    with pytest.raises(ValidationError) as raised:
        LifecycleFilter(**body)
    assert raised.value.attr == "events"


# Replays PostHog's ``posthog/hogql_queries/insights/test/test_lifecycle_query_runner.py`` test_lifecycle_trend:
# each person created at their first event; p1 viewed on 11, 12, 13, 15, 17 and 19 January 2020, p2 on the 9th
# and 12th, p3 on the 12th, p4 on the 15th; the range 12-19 January by day. The expected data are PostHog's.
def test_posthog_lifecycle_trend(conn, project, clock):
    visits = {
        "p1": ["11", "12", "13", "15", "17", "19"],
        "p2": ["09", "12"],
        "p3": ["12"],
        "p4": ["15"],
    }
    events = [("e", name, f"2020-01-{day}T12:00:00Z") for name, days in visits.items() for day in days]
    people = add_events(conn, project["id"], events)
    created(conn, people, {name: f"2020-01-{days[0]}T12:00:00Z" for name, days in visits.items()})
    found = lifecycle(conn, project, clock, date_from="2020-01-12T00:00:00Z", date_to="2020-01-19T00:00:00Z")
    assert found == {
        "new": [1, 0, 0, 1, 0, 0, 0, 0],
        "returning": [1, 1, 0, 0, 0, 0, 0, 0],
        "resurrecting": [1, 0, 0, 1, 0, 1, 0, 1],
        "dormant": [0, -2, -1, 0, -2, 0, -1, 0],
    }
