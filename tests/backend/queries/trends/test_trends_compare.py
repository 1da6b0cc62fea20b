"""The previous period of ``compare`` trends, over hand-written events with hand-worked expected numbers.

PostHog's rule (``get_compare_period_dates``): the previous period has the current one's length, starts on the
day that length reaches back to, at the current start's time of day, and its lower bound is rounded to the
interval as a current range's is. The clock is fixed at Thursday 2026-01-15 12:00 UTC; weeks start on Sunday.
"""

from __future__ import annotations

from tests.factories import add_events


def compare(client, world, body: dict) -> tuple[dict, dict]:
    response = client.post(
        f"/api/projects/{world.project_id}/insights/trend/",
        json={"events": [{"id": "e"}], "compare": True, **body},
        headers=world.headers(),
    )
    assert response.status_code == 200, response.text
    current, previous = response.json()["result"]
    assert (current["compare_label"], previous["compare_label"]) == ("current", "previous")
    return current, previous


def events_at(conn, world, *timestamps: str) -> None:
    add_events(conn, world.project_id, [("e", "a", timestamp) for timestamp in timestamps])


def test_hourly_today_so_far_compares_the_same_hours_of_yesterday(client, world, conn, clock):
    clock.advance(hours=8, minutes=17)  # 20:17: today so far is the 21 hours 00:00 .. 20:59
    events_at(
        conn,
        world,
        "2026-01-15T00:30:00Z",  # current hour 0
        "2026-01-15T20:05:00Z",  # current hour 20
        "2026-01-14T00:10:00Z",  # previous hour 0
        "2026-01-14T20:40:00Z",  # previous hour 20
        "2026-01-14T21:30:00Z",  # after the previous period's 20:59
        "2026-01-13T23:59:00Z",  # before it
    )
    current, previous = compare(client, world, {"interval": "hour", "date_from": "dStart"})
    assert current["data"] == [1] + [0] * 19 + [1]
    assert previous["days"][0] == "2026-01-14 00:00:00" and previous["days"][-1] == "2026-01-14 20:00:00"
    assert previous["data"] == [1] + [0] * 19 + [1]
    assert previous["labels"][0] == "hour 0" and len(previous["labels"]) == 21


def test_hourly_last_24_hours_compares_the_same_clock_hours_a_day_earlier(client, world, conn):
    # -24h at 12:00 is the 25 hours 2026-01-14 12:00 .. 2026-01-15 12:59; the previous period is the
    # 25 hours 2026-01-13 12:00 .. 2026-01-14 12:59 (moved back two days' dates, same clock hours)
    events_at(
        conn,
        world,
        "2026-01-13T11:30:00Z",  # the hour before the previous period
        "2026-01-13T12:30:00Z",  # previous hour 0
        "2026-01-14T12:45:00Z",  # previous hour 24, and current hour 0
    )
    current, previous = compare(client, world, {"interval": "hour", "date_from": "-24h"})
    assert current["data"] == [1] + [0] * 24
    assert previous["days"][0] == "2026-01-13 12:00:00" and previous["days"][-1] == "2026-01-14 12:00:00"
    assert previous["data"] == [1] + [0] * 23 + [1]


def test_hourly_range_within_one_day_compares_the_same_hours_the_day_before(client, world, conn):
    # -2h at 12:00 is 10:00 .. 12:59; the length reaches back only to 07:00 of the same day, where PostHog
    # would start the "previous" period at 10:00 today (the current period itself): here it is yesterday's
    events_at(conn, world, "2026-01-14T10:15:00Z", "2026-01-14T12:59:00Z", "2026-01-15T11:00:00Z")
    current, previous = compare(client, world, {"interval": "hour", "date_from": "-2h"})
    assert current["data"] == [0, 1, 0]
    assert previous["days"] == ["2026-01-14 10:00:00", "2026-01-14 11:00:00", "2026-01-14 12:00:00"]
    assert previous["data"] == [1, 0, 1]


def test_weekly_compare_moves_back_by_the_range_length_in_days(client, world, conn):
    # -14d: 2026-01-01 (Thu) 00:00 .. 2026-01-15 23:59, 15 days, counted from Sunday 2025-12-28 (weeks
    # Dec 28, Jan 4, Jan 11). Previous: the 15 days before, 2025-12-17 .. 2025-12-31, counted from
    # Sunday 2025-12-14 (weeks Dec 14, Dec 21, Dec 28); not three weeks back (Dec 11 .. Dec 25).
    events_at(
        conn,
        world,
        "2025-12-13T10:00:00Z",  # Saturday before the previous period's first week
        "2025-12-14T10:00:00Z",  # previous week 0
        "2025-12-31T10:00:00Z",  # previous week 2 (its last day), and current week 0 (rounded down to Dec 28)
        "2026-01-01T10:00:00Z",  # current week 0
    )
    current, previous = compare(client, world, {"interval": "week", "date_from": "-14d"})
    assert current["days"] == ["2025-12-28", "2026-01-04", "2026-01-11"]
    assert current["data"] == [2, 0, 0]
    assert previous["days"] == ["2025-12-14", "2025-12-21", "2025-12-28"]
    assert previous["data"] == [1, 0, 1]


def test_monthly_month_to_date_compares_with_the_whole_previous_month(client, world, conn):
    # mStart: 2026-01-01 .. 2026-01-15, 15 days. Previous: 2025-12-17 .. 2025-12-31, rounded down to the
    # start of its month, so all of December counts (not December 1 .. 15, one month back)
    events_at(conn, world, "2025-11-30T23:00:00Z", "2025-12-03T10:00:00Z", "2025-12-20T10:00:00Z")
    current, previous = compare(client, world, {"interval": "month", "date_from": "mStart"})
    assert current["data"] == [0]
    assert previous["days"] == ["2025-12-01"]
    assert previous["data"] == [2]


def test_monthly_last_three_months_moves_back_by_their_days(client, world, conn):
    # -3m: 2025-10-15 .. 2026-01-15 = 93 days, counted from 2025-10-01 (months Oct .. Jan). Previous: the
    # 93 days before, 2025-07-14 .. 2025-10-14, counted from 2025-07-01 (months Jul .. Oct); four months
    # back would be 2025-06-15 .. 2025-09-15, counted from June 1.
    events_at(
        conn,
        world,
        "2025-06-20T10:00:00Z",  # before the previous period
        "2025-07-02T10:00:00Z",  # previous month 0
        "2025-10-14T10:00:00Z",  # previous month 3 (its last day), and current month 0 (from Oct 1)
        "2025-10-15T10:00:00Z",  # current month 0 only
    )
    current, previous = compare(client, world, {"interval": "month", "date_from": "-3m"})
    assert current["days"] == ["2025-10-01", "2025-11-01", "2025-12-01", "2026-01-01"]
    assert current["data"] == [2, 0, 0, 0]
    assert previous["days"] == ["2025-07-01", "2025-08-01", "2025-09-01", "2025-10-01"]
    assert previous["data"] == [1, 0, 0, 1]


def test_hourly_compare_keeps_the_clock_hours_across_a_dst_change(client, world, conn, clock):
    # Europe/Berlin moves to summer time on 2026-03-29 (02:00 -> 03:00). On 2026-03-30 at 12:00 local
    # (10:00 UTC), dStart hourly is 00:00 .. 12:59 local; the previous period is 00:00 .. 12:59 local on the
    # 29th, which has no 02:00, so it holds 12 buckets. 09:30 local on the 29th is 07:30 UTC.
    conn.execute("UPDATE projects SET timezone = 'Europe/Berlin' WHERE id = ?", (world.project_id,))
    conn.commit()
    clock.advance(days=74, hours=-2)  # 2026-01-15 12:00 UTC -> 2026-03-30 10:00 UTC
    events_at(conn, world, "2026-03-29T07:30:00Z", "2026-03-28T22:59:00Z")
    current, previous = compare(client, world, {"interval": "hour", "date_from": "dStart"})
    assert previous["days"][0] == "2026-03-29 00:00:00" and previous["days"][-1] == "2026-03-29 12:00:00"
    assert len(previous["days"]) == 12 and len(current["days"]) == 13
    assert previous["data"][previous["days"].index("2026-03-29 09:00:00")] == 1
    assert sum(previous["data"]) == 1


def test_test_accounts_are_left_out_of_both_periods_of_each_series(client, world, conn):
    # -2d at 12:00 is the 3 days Jan 13 .. Jan 15; the previous period is Jan 10 .. Jan 12
    add_events(
        conn,
        world.project_id,
        [
            ("e", "staff", "2026-01-15T10:00:00Z"),  # a test account: left out
            ("e", "user", "2026-01-15T10:00:00Z"),  # current day 2
            ("e", "user", "2026-01-13T10:00:00Z"),  # current day 0
            ("e", "staff", "2026-01-11T10:00:00Z"),  # left out
            ("e", "user", "2026-01-10T09:00:00Z"),  # previous day 0
            ("f", "user", "2026-01-12T09:00:00Z"),  # the second series' previous day 2
            ("f", "staff", "2026-01-14T09:00:00Z"),  # left out
            ("e", "user", "2026-01-09T23:00:00Z"),  # before the previous period
        ],
        persons={"staff": {"email": "me@insightlab.dev"}, "user": {"email": "u@example.com"}},
    )
    response = client.patch(
        f"/api/projects/{world.project_id}/",
        json={
            "test_account_filters": [
                {"key": "email", "value": "insightlab.dev", "operator": "not_icontains", "type": "person"}
            ]
        },
        headers=world.headers(),
    )
    assert response.status_code == 200
    response = client.post(
        f"/api/projects/{world.project_id}/insights/trend/",
        json={"events": [{"id": "e"}, {"id": "f"}], "compare": True, "date_from": "-2d", "filter_test_accounts": True},
        headers=world.headers(),
    )
    assert response.status_code == 200, response.text
    found = {(item["action"]["id"], item["compare_label"]): item["data"] for item in response.json()["result"]}
    assert found == {
        ("e", "current"): [1, 0, 1],
        ("f", "current"): [0, 0, 0],
        ("e", "previous"): [1, 0, 0],
        ("f", "previous"): [0, 0, 1],
    }
