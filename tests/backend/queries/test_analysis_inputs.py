"""Dates and periods as retention and paths resolve them, on hand-picked instants."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from local_backend.errors import ValidationError
from local_backend.queries.analysis_inputs import (
    add_months,
    add_periods,
    format_local,
    global_condition,
    parse_point,
    period_boundaries,
    truncate_period,
)

NOW = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)  # a Thursday
UTC_TZ = ZoneInfo("UTC")
BERLIN = ZoneInfo("Europe/Berlin")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2026-01-10", datetime(2026, 1, 10, tzinfo=UTC_TZ)),
        ("2026-01-10T08:30:00", datetime(2026, 1, 10, 8, 30, tzinfo=UTC_TZ)),
        ("-7d", datetime(2026, 1, 8, 12, tzinfo=UTC_TZ)),
        ("-24h", datetime(2026, 1, 14, 12, tzinfo=UTC_TZ)),
        ("-2w", datetime(2026, 1, 1, 12, tzinfo=UTC_TZ)),
        ("-1m", datetime(2025, 12, 15, 12, tzinfo=UTC_TZ)),
        ("-1y", datetime(2025, 1, 15, 12, tzinfo=UTC_TZ)),
        ("dStart", datetime(2026, 1, 15, tzinfo=UTC_TZ)),
        ("-1dEnd", datetime(2026, 1, 14, 23, 59, 59, 999_999, tzinfo=UTC_TZ)),
    ],
)
def test_points_absolute_and_relative(text, expected):
    assert parse_point(text, tz=UTC_TZ, now=NOW, attr="date_to") == expected


def test_a_naive_date_is_in_the_project_timezone():
    assert parse_point("2026-01-10", tz=BERLIN, now=NOW, attr="x").astimezone(UTC) == datetime(
        2026, 1, 9, 23, tzinfo=UTC
    )


def test_a_date_that_is_not_one_names_its_parameter():
    with pytest.raises(ValidationError) as error:
        parse_point("soon", tz=UTC_TZ, now=NOW, attr="date_from")
    assert error.value.attr == "date_from"


@pytest.mark.parametrize(
    "period, week_start, expected",
    [
        ("Hour", 0, datetime(2026, 1, 15, 12)),
        ("Day", 0, datetime(2026, 1, 15)),
        ("Week", 0, datetime(2026, 1, 11)),  # Sunday
        ("Week", 1, datetime(2026, 1, 12)),  # Monday
        ("Month", 0, datetime(2026, 1, 1)),
    ],
)
def test_truncate_period(period, week_start, expected):
    moment = datetime(2026, 1, 15, 12, 34, tzinfo=UTC_TZ)
    assert truncate_period(moment, period, week_start) == expected.replace(tzinfo=UTC_TZ)


def test_a_sunday_starts_its_own_sunday_week_and_ends_a_monday_week():
    sunday = datetime(2026, 1, 11, 9, tzinfo=UTC_TZ)
    assert truncate_period(sunday, "Week", 0).day == 11
    assert truncate_period(sunday, "Week", 1).day == 5


def test_months_clamp_to_the_last_day():
    assert add_months(datetime(2026, 1, 31), 1) == datetime(2026, 2, 28)
    assert add_months(datetime(2026, 3, 15), -3) == datetime(2025, 12, 15)


def test_days_follow_the_local_calendar_across_a_clock_change():
    # Berlin moves to summer time on 2026-03-29: that day lasts 23 hours
    start = datetime(2026, 3, 29, tzinfo=BERLIN)
    following = add_periods(start, "Day", 1)
    assert following == datetime(2026, 3, 30, tzinfo=BERLIN)
    assert (following.astimezone(UTC) - start.astimezone(UTC)).total_seconds() == 23 * 3600


def test_boundaries_end_one_period_after_the_last_start():
    bounds = period_boundaries(datetime(2026, 1, 15, tzinfo=UTC_TZ), "Day", 3)
    assert [b.day for b in bounds] == [13, 14, 15, 16]


def test_format_local():
    assert format_local(datetime(2026, 1, 5, tzinfo=UTC_TZ)) == "2026-01-05T00:00:00Z"
    assert format_local(datetime(2026, 1, 5, tzinfo=BERLIN)) == "2026-01-05T00:00:00+01:00"


PROPS = [
    {"plan": "pro", "seats": 95, "beta": True},
    {"plan": "free", "seats": 3},
    {"plan": "Pro team"},
]


@pytest.mark.parametrize(
    "condition, matching",
    [
        ({"key": "plan", "value": "pro"}, [0]),
        ({"key": "plan", "value": ["pro", "free"]}, [0, 1]),
        ({"key": "seats", "value": "95"}, [0]),  # numbers compare as written
        ({"key": "beta", "value": ["true"]}, [0]),
        ({"key": "plan", "value": "pro", "operator": "is_not"}, [1, 2]),
        ({"key": "plan", "value": "PRO", "operator": "icontains"}, [0, 2]),
        ({"key": "seats", "value": 10, "operator": "gt"}, [0]),
        ({"key": "seats", "value": 3, "operator": "lte"}, [1]),
        ({"key": "seats", "operator": "is_set"}, [0, 1]),
        ({"key": "beta", "operator": "is_not_set"}, [1, 2]),
        ({"type": "OR", "values": [{"key": "seats", "value": "3"}, {"key": "beta", "value": "true"}]}, [0, 1]),
    ],
)
def test_property_conditions_of_retention_and_paths(condition, matching):
    """Retention and paths filter through the same compiler as trends and funnels (its own table is in
    test_properties.py); these are the cases their documentation shows."""
    import json

    from local_backend.store.engine.connection import connect_with_engine
    from local_backend.store.engine.sqlite.engine import SQLITE_ENGINE

    conn = connect_with_engine(":memory:", SQLITE_ENGINE)
    conn.execute("CREATE TABLE events (id INTEGER, properties TEXT)")
    conn.executemany("INSERT INTO events VALUES (?, ?)", [(i, json.dumps(p)) for i, p in enumerate(PROPS)])
    sql, params = global_condition({"id": 1}, [condition], False, conn=conn)
    assert [row[0] for row in conn.execute(f"SELECT id FROM events e WHERE {sql} ORDER BY id", params)] == matching
