"""``compute_stickiness`` on hand-written events, each expected number worked out by hand from the rules:
an actor counts for an interval when it did the event there (or its events there meet the criterion), the
series is the histogram of actors by their number of such intervals, from 1 to N (the intervals the range
touches), and ``cumulative`` makes bucket k "k or more". The clock is Thursday 2026-01-15 12:00 UTC.
"""

from __future__ import annotations

from typing import Any

import pytest

from local_backend.queries.stickiness import StickinessFilter, compute_stickiness
from local_backend.store.actions import create_action
from tests.factories import add_events

FIVE_DAYS = {"date_from": "2026-01-10", "date_to": "2026-01-14"}
# per day of 10..14 January: alice 1, 2, 1 events on the 10th, 11th, 12th (3 days); bob 3 on the 10th and 1 on
# the 14th (2 days); carol 1 on the 13th (1 day); dave only outside the range; erin only another event
EVENTS = [
    ("e", "alice", "2026-01-10T09:00:00Z"),
    ("e", "alice", "2026-01-11T09:00:00Z"),
    ("e", "alice", "2026-01-11T10:00:00Z"),
    ("e", "alice", "2026-01-12T09:00:00Z"),
    ("e", "bob", "2026-01-10T08:00:00Z"),
    ("e", "bob", "2026-01-10T09:00:00Z"),
    ("e", "bob", "2026-01-10T23:59:59Z"),
    ("e", "bob", "2026-01-14T12:00:00Z"),
    ("e", "carol", "2026-01-13T00:00:00Z"),
    ("e", "dave", "2026-01-09T23:59:59Z"),
    ("e", "dave", "2026-01-15T00:00:00Z"),
    ("other", "erin", "2026-01-12T09:00:00Z"),
]


def sticky(conn, project, clock, **fields: Any) -> list[dict[str, Any]]:
    body = {"events": [{"id": "e"}], **FIVE_DAYS, **fields}
    return compute_stickiness(conn, project, StickinessFilter(**body), clock.now()).series


def test_exact_buckets_count_each_actor_once_by_its_number_of_days(conn, project, clock):
    add_events(conn, project["id"], EVENTS)
    [series] = sticky(conn, project, clock)
    assert series["data"] == [1, 1, 1, 0, 0]  # carol 1 day, bob 2, alice 3
    assert series["days"] == [1, 2, 3, 4, 5]
    assert series["labels"] == ["1 day", "2 days", "3 days", "4 days", "5 days"]
    assert series["count"] == 3
    assert series["label"] == "e" and series["action"]["id"] == "e"


def test_cumulative_buckets_are_k_or_more(conn, project, clock):
    add_events(conn, project["id"], EVENTS)
    [series] = sticky(conn, project, clock, computed_as="cumulative")
    assert series["data"] == [3, 2, 1, 0, 0]  # 1+: all three; 2+: bob, alice; 3+: alice
    assert series["labels"][:2] == ["1 day or more", "2 days or more"]
    assert series["count"] == 3  # actors, not the sum of the cumulative buckets


@pytest.mark.parametrize(
    ("criterion", "data", "count"),
    [
        # days with 2+ events: alice the 11th, bob the 10th
        ({"operator": "gte", "value": 2}, [2, 0, 0, 0, 0], 2),
        # days with 1 event: alice the 10th and 12th, bob the 14th, carol the 13th
        ({"operator": "lte", "value": 1}, [2, 1, 0, 0, 0], 3),
        # days with exactly 2 events: alice the 11th (bob's 10th has 3)
        ({"operator": "exact", "value": 2}, [1, 0, 0, 0, 0], 1),
        ({"operator": "gte", "value": 3}, [1, 0, 0, 0, 0], 1),  # bob's 10th
    ],
)
def test_each_criterion_operator(conn, project, clock, criterion, data, count):
    add_events(conn, project["id"], EVENTS)
    [series] = sticky(conn, project, clock, stickiness_criteria=criterion)
    assert (series["data"], series["count"]) == (data, count)


def test_hourly_buckets_end_at_a_date_only_date_to_midnight(conn, project, clock):
    add_events(
        conn,
        project["id"],
        [
            ("e", "alice", "2026-01-10T00:15:00Z"),
            ("e", "alice", "2026-01-10T05:30:00Z"),
            ("e", "alice", "2026-01-11T00:00:00Z"),  # the range's last hour, 00:00 on the 11th
            ("e", "bob", "2026-01-10T23:59:00Z"),
            ("e", "bob", "2026-01-11T01:00:00Z"),  # after the range
        ],
    )
    [series] = sticky(conn, project, clock, interval="hour", date_from="2026-01-10", date_to="2026-01-11")
    # 00:00 on the 10th to 00:00 on the 11th: 25 hours; alice in 3, bob in 1
    assert len(series["days"]) == 25 and series["labels"][:2] == ["1 hour", "2 hours"]
    assert series["data"][:4] == [1, 0, 1, 0] and sum(series["data"]) == 2


@pytest.mark.parametrize(("week_start_day", "data"), [(0, [1, 0, 0]), (1, [0, 1, 0])])
def test_weeks_follow_the_project_week_start(conn, project, clock, week_start_day, data):
    # Sunday 4 and Monday 5 January: one Sunday-week, two Monday-weeks; 1-14 January touches three weeks either way
    add_events(conn, project["id"], [("e", "alice", "2026-01-04T10:00:00Z"), ("e", "alice", "2026-01-05T10:00:00Z")])
    project = {**project, "week_start_day": week_start_day}
    [series] = sticky(conn, project, clock, interval="week", date_from="2026-01-01", date_to="2026-01-14")
    assert series["data"] == data
    assert series["labels"] == ["1 week", "2 weeks", "3 weeks"]


def test_months(conn, project, clock):
    add_events(
        conn,
        project["id"],
        [
            ("e", "alice", "2025-10-05T10:00:00Z"),
            ("e", "alice", "2025-11-30T10:00:00Z"),
            ("e", "alice", "2025-12-01T10:00:00Z"),
            ("e", "bob", "2025-10-01T00:00:00Z"),
            ("e", "bob", "2025-10-31T23:59:59Z"),
        ],
    )
    [series] = sticky(conn, project, clock, interval="month", date_from="2025-10-01", date_to="2025-12-31")
    assert series["data"] == [1, 0, 1]  # bob in October only, alice in all three months
    assert series["labels"] == ["1 month", "2 months", "3 months"]


def test_days_in_the_project_timezone(conn, project, clock):
    add_events(
        conn,
        project["id"],
        [
            ("e", "alice", "2026-01-11T03:00:00Z"),  # 10 Jan 22:00 in New York
            ("e", "alice", "2026-01-11T15:00:00Z"),  # 11 Jan
            ("e", "bob", "2026-01-10T04:00:00Z"),  # 9 Jan 23:00: before the range
            ("e", "bob", "2026-01-10T06:00:00Z"),  # 10 Jan 01:00
        ],
    )
    new_york = {**project, "timezone": "America/New_York"}
    [series] = sticky(conn, new_york, clock, date_from="2026-01-10", date_to="2026-01-11")
    assert series["data"] == [1, 1]  # bob one day, alice two
    [in_utc] = sticky(conn, project, clock, date_from="2026-01-10", date_to="2026-01-11")
    assert in_utc["data"] == [2, 0]  # in UTC both of alice's events fall on the 11th, both of bob's on the 10th


def test_event_and_person_properties_and_test_accounts(conn, project, clock):
    add_events(
        conn,
        project["id"],
        [
            ("e", "alice", "2026-01-10T09:00:00Z", {"$browser": "Chrome"}),
            ("e", "alice", "2026-01-11T09:00:00Z", {"$browser": "Safari"}),
            ("e", "bob", "2026-01-10T09:00:00Z", {"$browser": "Chrome"}),
            ("e", "staff", "2026-01-10T09:00:00Z", {"$browser": "Chrome"}),
        ],
        persons={"alice": {"plan": "pro"}, "bob": {"plan": "free"}, "staff": {"email": "me@insightlab.dev"}},
    )
    chrome = [{"key": "$browser", "value": "Chrome"}]
    # Chrome days: alice 1, bob 1, staff 1
    assert sticky(conn, project, clock, properties=chrome)[0]["data"] == [3, 0, 0, 0, 0]
    pro = [{"key": "plan", "value": "pro", "type": "person"}]
    assert sticky(conn, project, clock, events=[{"id": "e", "properties": pro}])[0]["data"] == [0, 1, 0, 0, 0]
    staff = [{"key": "email", "value": "insightlab.dev", "operator": "not_icontains", "type": "person"}]
    with_filters = {**project, "test_account_filters": staff}
    assert sticky(conn, with_filters, clock, filter_test_accounts=True)[0]["data"] == [1, 1, 0, 0, 0]


def test_an_action_series_is_labelled_by_the_action(conn, project, clock):
    add_events(conn, project["id"], EVENTS)
    step = [{"event": "other", "url": None, "url_matching": "contains", "properties": []}]
    action_id = create_action(
        conn, project_id=project["id"], user_id=None, values={"name": "Did other", "steps": step}, now="2026-01-01"
    )
    [series] = sticky(conn, project, clock, events=[], actions=[{"id": action_id}])
    assert series["data"] == [1, 0, 0, 0, 0]  # erin on the 12th
    assert series["label"] == "Did other" and series["action"]["name"] == "Did other"


def test_groups_count_by_group_key(conn, project, clock):
    add_events(
        conn,
        project["id"],
        [
            ("e", "alice", "2026-01-10T09:00:00Z"),
            ("e", "bob", "2026-01-11T09:00:00Z"),
            ("e", "carol", "2026-01-11T10:00:00Z"),
            ("e", "dave", "2026-01-12T10:00:00Z"),
        ],
    )
    # alice and bob are in acme (days 10 and 11), carol in initech (11), dave has an empty key (left out)
    conn.execute(
        "UPDATE events SET group_0 = CASE distinct_id WHEN 'carol' THEN 'initech' WHEN 'dave' THEN '' ELSE 'acme' END"
    )
    conn.commit()
    groups = [{"id": "e", "math": "unique_group", "math_group_type_index": 0}]
    [series] = sticky(conn, project, clock, events=groups)
    assert series["data"] == [1, 1, 0, 0, 0] and series["count"] == 2
    [by_aggregation] = sticky(conn, project, clock, aggregation_group_type_index=0)
    assert by_aggregation["data"] == [1, 1, 0, 0, 0]


def test_compare_adds_the_previous_period_after_each_series(conn, project, clock):
    add_events(
        conn,
        project["id"],
        [
            ("e", "alice", "2026-01-13T09:00:00Z"),
            ("e", "alice", "2026-01-14T09:00:00Z"),
            ("e", "bob", "2026-01-11T09:00:00Z"),
            ("e", "carol", "2026-01-11T09:00:00Z"),
            ("e", "carol", "2026-01-12T09:00:00Z"),
        ],
    )
    current, previous = sticky(conn, project, clock, date_from="2026-01-13", date_to="2026-01-14", compare=True)
    # 13-14 January: alice on both days; the previous two days, 11-12: bob one day, carol two
    assert (current["compare_label"], current["data"], current["count"]) == ("current", [0, 1], 1)
    assert (previous["compare_label"], previous["data"], previous["count"]) == ("previous", [1, 1], 2)
    assert current["compare"] is previous["compare"] is True


def test_breakdown_by_event_property_with_none_and_other(conn, project, clock):
    add_events(
        conn,
        project["id"],
        [
            ("e", "alice", "2026-01-10T09:00:00Z", {"$browser": "Chrome"}),
            ("e", "alice", "2026-01-11T09:00:00Z", {"$browser": "Chrome"}),
            ("e", "alice", "2026-01-12T09:00:00Z", {"$browser": "Safari"}),
            ("e", "bob", "2026-01-10T09:00:00Z", {"$browser": "Chrome"}),
            ("e", "bob", "2026-01-11T09:00:00Z"),
            ("e", "bob", "2026-01-12T09:00:00Z"),
            ("e", "bob", "2026-01-13T09:00:00Z"),
            ("e", "carol", "2026-01-14T09:00:00Z", {"$browser": "Firefox"}),
        ],
    )
    # events by value: Chrome 3, none 3, Safari 1, Firefox 1; with a limit of 2 the top two are Chrome and the
    # null bucket (ranked by count, then value descending), Safari and Firefox go to Other
    series = sticky(conn, project, clock, breakdown="$browser", breakdown_limit=2)
    found = {item["breakdown_value"]: (item["data"], item["count"], item["label"]) for item in series}
    assert found == {
        "Chrome": ([1, 1, 0, 0, 0], 2, "Chrome"),  # bob 1 Chrome day, alice 2
        "$$_posthog_breakdown_null_$$": ([0, 0, 1, 0, 0], 1, "None (i.e. no value)"),  # bob 3 days
        "$$_posthog_breakdown_other_$$": ([2, 0, 0, 0, 0], 2, "Other (i.e. all remaining values)"),
    }
    assert [item["count"] for item in series] == [2, 2, 1]  # largest first, ties by label


def test_breakdown_by_person_property(conn, project, clock):
    add_events(conn, project["id"], EVENTS, persons={"alice": {"plan": "pro"}, "bob": {"plan": "pro"}})
    series = sticky(conn, project, clock, breakdown="plan", breakdown_type="person")
    found = {item["breakdown_value"]: item["data"] for item in series}
    # pro: alice 3 days, bob 2; no plan: carol 1 day
    assert found == {"pro": [0, 1, 1, 0, 0], "$$_posthog_breakdown_null_$$": [1, 0, 0, 0, 0]}


def test_several_series_are_labelled_by_entity_and_value(conn, project, clock):
    add_events(conn, project["id"], EVENTS)
    series = sticky(conn, project, clock, events=[{"id": "e", "order": 0}, {"id": "other", "order": 1}])
    assert [(item["label"], item["data"]) for item in series] == [
        ("e", [1, 1, 1, 0, 0]),
        ("other", [1, 0, 0, 0, 0]),
    ]


# The next cases replay PostHog's ``posthog/hogql_queries/insights/test/test_stickiness_query_runner.py`` (its
# events: p1 viewed every day 11-19 January 2020, p2 every other day 11-19; both with $browser Chrome / Firefox
# and in group org:1). PostHog's older runner there zero-fills one interval more than the range touches; the
# data points are its, the bucket counts the range's (10 days, 3 Sunday weeks).
def _posthog_events(conn, project) -> None:
    p1 = [("$pageview", "p1", f"2020-01-{day}T12:00:00Z", {"$browser": "Chrome"}) for day in range(11, 20)]
    p2 = [("$pageview", "p2", f"2020-01-{day}T12:00:00Z", {"$browser": "Firefox"}) for day in range(11, 20, 2)]
    add_events(conn, project["id"], [*p1, *p2])
    conn.execute("UPDATE events SET group_0 = 'org:1'")
    conn.commit()


POSTHOG_RANGE = {"events": [{"id": "$pageview"}], "date_from": "2020-01-11", "date_to": "2020-01-20"}


def _posthog(conn, project, clock, **fields: Any) -> dict[str, Any]:
    return compute_stickiness(conn, project, StickinessFilter(**{**POSTHOG_RANGE, **fields}), clock.now()).series[0]


def test_posthog_interval_day(conn, project, clock):  # mirrors test_interval_day
    _posthog_events(conn, project)
    assert _posthog(conn, project, clock)["data"] == [0, 0, 0, 0, 1, 0, 0, 0, 1, 0]


def test_posthog_interval_week(conn, project, clock):  # mirrors test_interval_week
    _posthog_events(conn, project)
    assert _posthog(conn, project, clock, interval="week")["data"] == [0, 0, 2]


def test_posthog_property_filtering(conn, project, clock):  # mirrors test_property_filtering
    _posthog_events(conn, project)
    chrome = [{"key": "$browser", "value": "Chrome", "operator": "exact"}]
    assert _posthog(conn, project, clock, properties=chrome)["data"] == [0, 0, 0, 0, 0, 0, 0, 0, 1, 0]


def test_posthog_group_aggregations(conn, project, clock):  # mirrors test_group_aggregations
    _posthog_events(conn, project)
    series = _posthog(conn, project, clock, events=[{"id": "$pageview", "math": "unique_group",
                                                      "math_group_type_index": 0}])  # fmt: skip
    assert series["data"] == [0, 0, 0, 0, 0, 0, 0, 0, 1, 0]


def test_posthog_compare(conn, project, clock):  # mirrors test_compare
    _posthog_events(conn, project)
    body = {**POSTHOG_RANGE, "compare": True}
    current, previous = compute_stickiness(conn, project, StickinessFilter(**body), clock.now()).series
    assert (current["count"], current["compare_label"]) == (2, "current")
    assert (previous["count"], previous["compare_label"]) == (0, "previous")
