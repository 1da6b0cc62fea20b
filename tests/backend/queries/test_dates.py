"""The date-range resolver and the bucketer, against dates worked out by hand."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from local_backend.errors import ValidationError
from local_backend.queries.buckets import make_buckets
from local_backend.queries.dates import parse_date, resolve_date_range

UTC_ZONE = ZoneInfo("UTC")
# Wednesday 2026-01-14 10:20 UTC
NOW = datetime(2026, 1, 14, 10, 20, 30, tzinfo=UTC)


def naive(moment: datetime) -> str:
    return moment.replace(tzinfo=None).isoformat()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-01-05", "2026-01-05T00:00:00"),
        ("2026-1-5", "2026-01-05T00:00:00"),
        ("2026-01-05T08:30", "2026-01-05T08:30:00"),
        ("2026-01-05T08:30:00Z", "2026-01-05T08:30:00"),
        ("2026-01-05T08:30:00+02:00", "2026-01-05T06:30:00"),
        ("-7d", "2026-01-07T10:20:30"),
        ("7d", "2026-01-07T10:20:30"),
        ("-24h", "2026-01-13T10:20:30"),
        ("-2w", "2025-12-31T10:20:30"),
        ("-1m", "2025-12-14T10:20:30"),
        ("-1q", "2025-10-15T10:20:30"),
        ("-1y", "2025-01-14T10:20:30"),
        ("-30M", "2026-01-14T09:50:30"),
        ("dStart", "2026-01-14T00:00:00"),
        ("-1dStart", "2026-01-13T00:00:00"),
        ("-1dEnd", "2026-01-13T23:59:59.999999"),
        ("-1hStart", "2026-01-14T09:00:00"),
        ("mStart", "2026-01-01T00:00:00"),
        ("-1mStart", "2025-12-01T00:00:00"),
        ("-1mEnd", "2025-12-31T23:59:59.999999"),
        ("yStart", "2026-01-01T00:00:00"),
        ("wStart", "2026-01-14T10:20:30"),
    ],
)
def test_parse_date_grammar(text, expected):
    assert naive(parse_date(text, tz=UTC_ZONE, now=NOW, attr="date_from")) == expected


def test_month_back_clamps_to_the_month_length():
    march_31 = datetime(2026, 3, 31, 12, tzinfo=UTC)
    assert naive(parse_date("-1m", tz=UTC_ZONE, now=march_31, attr="date_from")) == "2026-02-28T12:00:00"
    assert naive(parse_date("-1mEnd", tz=UTC_ZONE, now=march_31, attr="date_to")) == "2026-02-28T23:59:59.999999"


def test_naive_dates_are_project_wall_clock_and_relative_dates_count_from_local_now():
    tz = ZoneInfo("America/Los_Angeles")  # UTC-8 in January
    assert parse_date("2026-01-05", tz=tz, now=NOW, attr="x").isoformat() == "2026-01-05T00:00:00-08:00"
    # 10:20 UTC is 02:20 in Los Angeles, still the 14th
    assert parse_date("dStart", tz=tz, now=NOW, attr="x").isoformat() == "2026-01-14T00:00:00-08:00"


@pytest.mark.parametrize("text", ["yesterday", "-7x", "2026-13-01", "-7d; DROP TABLE events", ""])
def test_unreadable_dates_are_400s_naming_the_field(text):
    with pytest.raises(ValidationError) as raised:
        parse_date(text, tz=UTC_ZONE, now=NOW, attr="date_to")
    assert raised.value.attr == "date_to"


def resolve(**kwargs):
    options = {"date_from": None, "date_to": None, "interval": "day", "explicit_date": False, "tz": UTC_ZONE}
    options.update(kwargs)
    return resolve_date_range(now=NOW, **options)


def test_defaults_are_seven_days_back_from_midnight_to_the_end_of_today_in_eight_day_buckets():
    date_range = resolve()
    assert naive(date_range.date_from) == "2026-01-07T00:00:00"
    assert naive(date_range.date_to) == "2026-01-14T23:59:59.999999"
    buckets = make_buckets(date_range)
    assert buckets.days == [f"2026-01-{day:02d}" for day in range(7, 15)]
    assert buckets.labels[0] == "7-Jan-2026"


def test_dstart_is_one_bucket():
    assert make_buckets(resolve(date_from="dStart")).days == ["2026-01-14"]


def test_absolute_date_to_covers_its_whole_day_unless_explicit():
    assert naive(resolve(date_from="2026-01-01", date_to="2026-01-03").date_to) == "2026-01-03T23:59:59.999999"
    explicit = resolve(date_from="2026-01-01T06:00:00", date_to="2026-01-03T12:00:00", explicit_date=True)
    assert naive(explicit.date_from) == "2026-01-01T06:00:00"
    assert naive(explicit.date_to) == "2026-01-03T12:00:00"
    assert explicit.lower == explicit.date_from


def test_week_interval_rounds_the_lower_bound_to_the_week_start():
    # 2026-01-07 is a Wednesday: Sunday-weeks start on the 4th, Monday-weeks on the 5th
    sunday = resolve(date_from="2026-01-07", interval="week")
    assert naive(sunday.lower) == "2026-01-04T00:00:00"
    assert make_buckets(sunday).days == ["2026-01-04", "2026-01-11"]
    monday = resolve(date_from="2026-01-07", interval="week", week_start_day=1)
    assert naive(monday.lower) == "2026-01-05T00:00:00"
    assert make_buckets(monday).labels == ["5-Jan-2026", "12-Jan-2026"]


def test_month_buckets_are_labelled_by_their_first_day():
    date_range = resolve(date_from="2025-11-20", interval="month")
    assert naive(date_range.lower) == "2025-11-01T00:00:00"
    assert make_buckets(date_range).days == ["2025-11-01", "2025-12-01", "2026-01-01"]


def test_last_24_hours_by_day_keeps_the_exact_lower_bound():
    date_range = resolve(date_from="-24h")
    # the span is under two days, so no rounding: the lower bound stays at 10:20 yesterday
    assert naive(date_range.lower) == "2026-01-13T10:20:30"
    # hourly (an h in date_from): date_to ends with the current hour
    assert naive(date_range.date_to) == "2026-01-14T10:59:59.999999"
    assert make_buckets(date_range).days == ["2026-01-13", "2026-01-14"]


def test_hour_buckets_show_the_time():
    date_range = resolve(date_from="-3h", interval="hour")
    buckets = make_buckets(date_range)
    assert buckets.days == [f"2026-01-14 {hour:02d}:00:00" for hour in (7, 8, 9, 10)]
    assert buckets.labels[-1] == "14-Jan-2026 10:00"
    assert naive(date_range.lower) == "2026-01-14T07:00:00"


def test_buckets_follow_the_project_timezone_across_a_dst_change():
    tz = ZoneInfo("Europe/Berlin")  # clocks go forward on 2026-03-29
    now = datetime(2026, 3, 30, 12, tzinfo=UTC)
    date_range = resolve_date_range(
        date_from="2026-03-28", date_to="2026-03-30", interval="day", explicit_date=False, tz=tz, now=now
    )
    buckets = make_buckets(date_range)
    assert buckets.days == ["2026-03-28", "2026-03-29", "2026-03-30"]
    # the 29th is 23 hours long
    assert buckets.edges[2] - buckets.edges[1] == 23 * 3_600_000_000


def test_all_starts_at_the_first_event():
    first = datetime(2026, 1, 10, 15, tzinfo=UTC)
    date_range = resolve(date_from="all", earliest_event=lambda: first)
    assert naive(date_range.date_from) == "2026-01-10T00:00:00"


def test_date_from_after_date_to_is_a_400():
    with pytest.raises(ValidationError) as raised:
        resolve(date_from="2026-01-10", date_to="2026-01-05")
    assert raised.value.attr == "date_from"


def test_too_many_buckets_is_a_400_on_interval():
    with pytest.raises(ValidationError) as raised:
        make_buckets(resolve(date_from="2000-01-01", interval="hour"))
    assert raised.value.attr == "interval"
