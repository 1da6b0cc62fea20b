"""A trend broken down by a hot property (``$browser``, ``$os``) with nothing else to read: SQLite answers it in
one pass over ``idx_events_browser`` (:mod:`local_backend.store.engine.sqlite.covering`), the other engines as
they always do; the numbers are the same whichever days the spans are."""

from __future__ import annotations

from local_backend.queries.trends import TrendsFilter, compute_trends
from tests.factories import add_events


def _by_value(result) -> dict[str, list[int]]:
    return {series["breakdown_value"]: series["data"] for series in result.series}


def test_daily_breakdown_by_browser_counts_each_day_and_value(conn, project, clock):
    add_events(
        conn,
        project["id"],
        [
            ("$pageview", "alice", "2026-01-13T00:00:00Z", {"$browser": "Chrome"}),  # first instant of day 0
            ("$pageview", "alice", "2026-01-13T23:59:59Z", {"$browser": "Chrome"}),  # last second of day 0
            ("$pageview", "bob", "2026-01-14T00:00:00Z", {"$browser": "Chrome"}),  # day 1
            ("$pageview", "bob", "2026-01-14T08:00:00Z", {"$browser": "Safari"}),  # day 1
            ("$pageview", "carol", "2026-01-15T11:00:00Z", {}),  # day 2, no browser: the null value
            ("$pageview", "carol", "2026-01-15T11:30:00Z", {"$browser": ""}),  # day 2, blank: also null
            ("$pageview", "dave", "2026-01-12T23:59:59Z", {"$browser": "Chrome"}),  # the day before the range
            ("signed_up", "dave", "2026-01-14T09:00:00Z", {"$browser": "Safari"}),  # another event
        ],
    )
    filter = TrendsFilter(events=[{"id": "$pageview"}], breakdown="$browser", date_from="-2d")
    result = compute_trends(conn, project, filter, clock.now())
    # days 2026-01-13, 14, 15; Chrome 2 + 1 = 3 events, ranked first; Safari 1; null 2 (ranked by count)
    assert [series["breakdown_value"] for series in result.series] == [
        "Chrome",
        "$$_posthog_breakdown_null_$$",
        "Safari",
    ]
    assert _by_value(result) == {"Chrome": [2, 1, 0], "Safari": [0, 1, 0], "$$_posthog_breakdown_null_$$": [0, 0, 2]}


def test_breakdown_over_days_of_unequal_length_puts_each_event_in_its_local_day(conn, project, clock):
    # New York leaves daylight time at 02:00 on 2025-11-02: that day lasts 25 hours, 04:00Z to 05:00Z next day
    conn.execute("UPDATE projects SET timezone = 'America/New_York' WHERE id = ?", (project["id"],))
    project = {**project, "timezone": "America/New_York"}
    add_events(
        conn,
        project["id"],
        [
            ("$pageview", "alice", "2025-11-02T03:59:59Z", {"$os": "Mac OS X"}),  # 23:59:59 EDT on the 1st
            ("$pageview", "alice", "2025-11-02T04:00:00Z", {"$os": "Mac OS X"}),  # 00:00 EDT on the 2nd
            ("$pageview", "bob", "2025-11-03T04:30:00Z", {"$os": "Windows"}),  # 23:30 EST, still the 2nd
            ("$pageview", "bob", "2025-11-03T05:00:00Z", {"$os": "Windows"}),  # 00:00 EST on the 3rd
            ("$pageview", "bob", "2025-11-04T04:59:59Z", {"$os": "Mac OS X"}),  # 23:59:59 EST on the 3rd
            ("$pageview", "carol", "2025-11-04T05:00:00Z", {"$os": "Windows"}),  # the 4th: after the range
        ],
    )
    filter = TrendsFilter(events=[{"id": "$pageview"}], breakdown="$os", date_from="2025-11-01", date_to="2025-11-03")
    result = compute_trends(conn, project, filter, clock.now())
    assert result.series[0]["days"] == ["2025-11-01", "2025-11-02", "2025-11-03"]
    # Mac OS X: the 1st, the 2nd, the 3rd; Windows: the 2nd (23:30 EST) and the 3rd
    assert _by_value(result) == {"Mac OS X": [1, 1, 1], "Windows": [0, 1, 1]}


def test_breakdown_by_browser_with_a_filter_on_another_property_reads_the_rows(conn, project, clock):
    add_events(
        conn,
        project["id"],
        [
            ("$pageview", "alice", "2026-01-14T10:00:00Z", {"$browser": "Chrome", "plan": "pro"}),
            ("$pageview", "bob", "2026-01-14T11:00:00Z", {"$browser": "Chrome", "plan": "free"}),
            ("$pageview", "carol", "2026-01-15T10:00:00Z", {"$browser": "Safari", "plan": "pro"}),
        ],
    )
    filter = TrendsFilter(
        events=[{"id": "$pageview"}],
        breakdown="$browser",
        date_from="-1d",
        properties=[{"key": "plan", "value": "pro"}],
    )
    # only alice's and carol's page views are on the pro plan
    assert _by_value(compute_trends(conn, project, filter, clock.now())) == {"Chrome": [1, 0], "Safari": [0, 1]}
