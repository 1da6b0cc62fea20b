"""HogQL's calendar on SQLite as offset arithmetic: the same answers as the Python functions behind it, in any zone.

The Python functions (:mod:`local_backend.store.engine.sqlite.hogql_times`) are the reference; the arithmetic
must agree with them at every time, DST changes, half-hour zones and values that are no integer included.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

import pytest

from local_backend.store.engine.sqlite.hogql_offsets import date_sql, offset_pieces, start_sql, window_of
from local_backend.store.engine.sqlite.hogql_times import register_time_functions

NOW_US = int(datetime(2026, 1, 15, 12, tzinfo=UTC).timestamp()) * 1_000_000
HOUR = 3_600_000_000


def _us(text: str) -> int:
    return int(datetime.fromisoformat(text).timestamp()) * 1_000_000


@pytest.fixture
def conn() -> sqlite3.Connection:
    connection = sqlite3.connect(":memory:")
    register_time_functions(connection)
    return connection


def test_the_pieces_of_a_zone_start_at_its_transitions():
    first, last = window_of(NOW_US)
    assert (first, last) == (1996, 2036)
    pieces = dict(offset_pieces("America/New_York", 2026, 2027))
    # 2026-01-01 00:00 UTC in EST; EDT from 2026-03-08 07:00 UTC; EST again from 2026-11-01 06:00 UTC
    assert pieces == {
        _us("2026-01-01T00:00:00+00:00"): -5 * HOUR,
        _us("2026-03-08T07:00:00+00:00"): -4 * HOUR,
        _us("2026-11-01T06:00:00+00:00"): -5 * HOUR,
    }
    assert offset_pieces("UTC", 2026, 2027) == ((_us("2026-01-01T00:00:00+00:00"), 0),)
    assert offset_pieces("Asia/Kolkata", 2026, 2027) == ((_us("2026-01-01T00:00:00+00:00"), 5 * HOUR + HOUR // 2),)


@pytest.mark.parametrize(
    ("tz", "moment", "day", "week", "month", "day_start", "hour_start"),
    [
        # New York on the day clocks go forward (03-08 07:00 UTC): that day began at 00:00 EST
        ("America/New_York", "2026-03-08T07:30:00+00:00", "2026-03-08", "2026-03-08", "2026-03-01",
         "2026-03-08T05:00:00+00:00", "2026-03-08T07:00:00+00:00"),
        ("America/New_York", "2026-03-08T06:59:00+00:00", "2026-03-08", "2026-03-08", "2026-03-01",
         "2026-03-08T05:00:00+00:00", "2026-03-08T06:00:00+00:00"),
        ("America/New_York", "2026-03-08T04:30:00+00:00", "2026-03-07", "2026-03-01", "2026-03-01",
         "2026-03-07T05:00:00+00:00", "2026-03-08T04:00:00+00:00"),
        # Kolkata (UTC+5:30): 20:00 UTC is 01:30 the next day, its hour from 01:00 (19:30 UTC)
        ("Asia/Kolkata", "2026-01-10T20:00:00+00:00", "2026-01-11", "2026-01-11", "2026-01-01",
         "2026-01-10T18:30:00+00:00", "2026-01-10T19:30:00+00:00"),
        ("UTC", "2026-01-31T23:59:59+00:00", "2026-01-31", "2026-01-25", "2026-01-01",
         "2026-01-31T00:00:00+00:00", "2026-01-31T23:00:00+00:00"),
    ],
)  # fmt: skip
def test_hand_worked_days_weeks_and_starts(conn, tz, moment, day, week, month, day_start, hour_start):
    t = str(_us(moment))
    zone = f"'{tz}'"
    row = conn.execute(
        "SELECT "
        + ", ".join(
            [
                str(date_sql(t, zone, tz, NOW_US, "day")),
                str(date_sql(t, zone, tz, NOW_US, "week")),
                str(date_sql(t, zone, tz, NOW_US, "month")),
                str(start_sql(t, zone, tz, NOW_US, "day")),
                str(start_sql(t, zone, tz, NOW_US, "hour")),
            ]
        )
    ).fetchone()
    assert row == (day, week, month, _us(day_start), _us(hour_start))


_ZONES = ["America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kathmandu", "Africa/Casablanca", "UTC"]


@pytest.mark.parametrize("tz", _ZONES)
def test_times_through_two_years_agree_with_python(conn, tz):
    # every 97 minutes through 2025 and 2026 (both DST changes of each year, at every minute offset), the
    # window's edges, a time before the window (Python answers it) and values that are no integer
    low, high = _us("2025-01-01T00:00:00+00:00"), _us("2027-01-01T00:00:00+00:00")
    times: list[object] = list(range(low, high, 97 * 60_000_000))
    first, last = window_of(NOW_US)
    edge = _us(f"{first}-01-01T00:00:00+00:00")
    times += [edge - 1, edge, edge + 1, _us(f"{last}-01-01T00:00:00+00:00") + 5, 0, "2026-03-08 01:30:00", None]
    conn.execute("CREATE TEMP TABLE t (v)")
    conn.executemany("INSERT INTO t VALUES (?)", [(v,) for v in times])
    zone = f"'{tz}'"
    columns, reference = [], []
    for unit in ("day", "week", "month", "year"):
        columns.append(str(date_sql("v", zone, tz, NOW_US, unit)))
        reference.append(f"il_sql_date(v, {zone})" if unit == "day" else f"il_sql_start_date('{unit}', v, {zone})")
    for unit in ("second", "minute", "hour", "day"):
        columns.append(str(start_sql("v", zone, tz, NOW_US, unit)))
        reference.append(f"il_sql_start('{unit}', v, {zone})")
    ours = conn.execute(f"SELECT {', '.join(columns)} FROM t ORDER BY rowid").fetchall()
    python = conn.execute(f"SELECT {', '.join(reference)} FROM t ORDER BY rowid").fetchall()
    assert len(ours) == len(times)
    assert ours == python


def test_a_quarter_is_left_to_python():
    assert date_sql("v", "'UTC'", "UTC", NOW_US, "quarter") is None
    assert start_sql("v", "'UTC'", "UTC", NOW_US, "week") is None
