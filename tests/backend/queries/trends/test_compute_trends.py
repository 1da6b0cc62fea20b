"""``compute_trends`` on hand-written events. The clock is Thursday 2026-01-15 12:00 UTC, so the default
range (-7d) is the eight days 2026-01-08 .. 2026-01-15 and index i of ``data`` is 2026-01-(08 + i)."""

from __future__ import annotations

from local_backend.queries.trends import TrendsFilter, compute_trends
from tests.factories import add_events

EVENTS = [
    ("$pageview", "alice", "2026-01-08T00:00:00Z"),
    ("$pageview", "alice", "2026-01-10T09:00:00Z"),
    ("$pageview", "alice", "2026-01-10T09:30:00Z"),
    ("$pageview", "bob", "2026-01-10T23:59:59Z"),
    ("$pageview", "bob", "2026-01-15T11:00:00Z"),
    ("$pageview", "bob", "2026-01-07T23:59:59Z"),  # the day before the range
    ("signup", "bob", "2026-01-10T10:00:00Z"),  # another event
]


def test_daily_count_of_an_event(conn, project, clock):
    add_events(conn, project["id"], EVENTS)
    result = compute_trends(conn, project, TrendsFilter(events=[{"id": "$pageview"}]), clock.now())
    [series] = result.series
    assert series["data"] == [1, 0, 3, 0, 0, 0, 0, 1]
    assert series["count"] == 5
    assert series["days"][0] == "2026-01-08" and series["days"][-1] == "2026-01-15"
    assert result.has_more is False


def test_daily_unique_users(conn, project, clock):
    add_events(conn, project["id"], EVENTS)
    filter = TrendsFilter(events=[{"id": "$pageview", "math": "dau"}])
    [series] = compute_trends(conn, project, filter, clock.now()).series
    # the 10th: alice twice and bob once are two users
    assert series["data"] == [1, 0, 2, 0, 0, 0, 0, 1]


def test_breakdown_by_an_event_property(conn, project, clock):
    add_events(
        conn,
        project["id"],
        [
            ("$pageview", "alice", "2026-01-14T10:00:00Z", {"$browser": "Chrome"}),
            ("$pageview", "bob", "2026-01-14T11:00:00Z", {"$browser": "Chrome"}),
            ("$pageview", "carol", "2026-01-15T10:00:00Z", {"$browser": "Safari"}),
        ],
    )
    filter = TrendsFilter(events=[{"id": "$pageview"}], breakdown="$browser", date_from="-1d")
    result = compute_trends(conn, project, filter, clock.now())
    assert {series["breakdown_value"]: series["data"] for series in result.series} == {
        "Chrome": [2, 0],
        "Safari": [0, 1],
    }


def test_events_at_times_a_day_number_misplaces_stay_out_of_a_daily_count(conn, project, clock):
    # ClickHouse keeps each event's UTC day beside its time and counts whole UTC days by it: an event in 1970's
    # first hours (18,000 s after the epoch, which a day number read as days puts on 2019-04-14), one before
    # 1970 and one after 2149 (past the days a Date holds) must stay out of a count of April 2019
    add_events(
        conn,
        project["id"],
        [
            ("$pageview", "alice", "1970-01-01T05:00:00Z"),
            ("$pageview", "alice", "1969-12-31T23:00:00Z"),
            ("$pageview", "alice", "2200-01-01T00:00:00Z"),
            ("$pageview", "bob", "2019-04-14T08:00:00Z"),
            ("$pageview", "bob", "2019-04-16T23:59:59Z"),
        ],
    )
    filter = TrendsFilter(events=[{"id": "$pageview"}], date_from="2019-04-12", date_to="2019-04-16")
    [series] = compute_trends(conn, project, filter, clock.now()).series
    assert series["days"] == ["2019-04-12", "2019-04-13", "2019-04-14", "2019-04-15", "2019-04-16"]
    assert series["data"] == [0, 0, 1, 0, 1]


def test_a_daily_count_over_the_first_days_of_1970_counts_them_by_time(conn, project, clock):
    add_events(
        conn,
        project["id"],
        [
            ("$pageview", "alice", "1969-12-31T23:00:00Z"),
            ("$pageview", "alice", "1970-01-01T05:00:00Z"),
            ("$pageview", "bob", "1970-01-02T00:00:00Z"),
            ("$pageview", "bob", "1970-01-03T12:00:00Z"),
        ],
    )
    filter = TrendsFilter(events=[{"id": "$pageview"}], date_from="1969-12-31", date_to="1970-01-02")
    [series] = compute_trends(conn, project, filter, clock.now()).series
    assert series["data"] == [1, 1, 1]
