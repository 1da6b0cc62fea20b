"""The calendar functions HogQL queries call on SQLite, in the project's time zone (registered per connection).

A DateTime travels as UTC microseconds, a Date as ``YYYY-MM-DD`` text; each function takes either.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

__all__ = ["register_time_functions", "micros_of", "local_of"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def micros_of(moment: datetime) -> int:
    return (moment - _EPOCH) // timedelta(microseconds=1)


def local_of(value: int | str | None, tz: str) -> datetime | None:
    """The moment ``value`` (microseconds or a date/time text read in ``tz``) in ``tz``."""
    if value is None:
        return None
    zone = ZoneInfo(tz)
    if isinstance(value, int | float):
        return (_EPOCH + timedelta(microseconds=int(value))).astimezone(zone)
    text = str(value).strip().replace("T", " ")
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed.astimezone(zone) if parsed.tzinfo else parsed.replace(tzinfo=zone)


def to_datetime(value: int | str | None, tz: str) -> int | None:
    moment = local_of(value, tz)
    return None if moment is None else micros_of(moment)


def to_date(value: int | str | None, tz: str) -> str | None:
    moment = local_of(value, tz)
    return None if moment is None else moment.date().isoformat()


def _start(moment: datetime, unit: str) -> datetime:
    unit = unit.lower()
    if unit == "second":
        return moment.replace(microsecond=0)
    if unit == "minute":
        return moment.replace(second=0, microsecond=0)
    if unit == "hour":
        return moment.replace(minute=0, second=0, microsecond=0)
    day = moment.replace(hour=0, minute=0, second=0, microsecond=0, fold=0)
    if unit == "week":  # PostHog's toStartOfWeek: weeks start on Sunday (mode 0)
        day -= timedelta(days=(day.weekday() + 1) % 7)
    elif unit == "month":
        day = day.replace(day=1)
    elif unit == "quarter":
        day = day.replace(day=1, month=(day.month - 1) // 3 * 3 + 1)
    elif unit == "year":
        day = day.replace(day=1, month=1)
    return day.replace(tzinfo=None).replace(tzinfo=moment.tzinfo)


def start_of(unit: str, value: int | str | None, tz: str) -> int | None:
    moment = local_of(value, tz)
    return None if moment is None else micros_of(_start(moment, unit))


def start_date(unit: str, value: int | str | None, tz: str) -> str | None:
    moment = local_of(value, tz)
    return None if moment is None else _start(moment, unit).date().isoformat()


def _months(moment: datetime) -> int:
    return moment.year * 12 + moment.month - 1


def date_diff(unit: str, low: int | str | None, high: int | str | None, tz: str) -> int | None:
    """ClickHouse's dateDiff: how many unit boundaries lie between the two moments, in ``tz``."""
    start, end = local_of(low, tz), local_of(high, tz)
    if start is None or end is None:
        return None
    unit = unit.lower().rstrip("s")
    if unit in ("second", "minute", "hour"):
        size = {"second": 1, "minute": 60, "hour": 3600}[unit]
        return micros_of(_start(end, unit)) // 1_000_000 // size - micros_of(_start(start, unit)) // 1_000_000 // size
    if unit == "day":
        return (end.date() - start.date()).days
    if unit == "week":
        return ((_start(end, "week").date() - _start(start, "week").date()).days) // 7
    if unit == "month":
        return _months(end) - _months(start)
    if unit == "quarter":
        return _months(end) // 3 - _months(start) // 3
    if unit == "year":
        return end.year - start.year
    return None


def add_interval(value: int | str | None, amount: int, unit: str, tz: str) -> int | None:
    moment = local_of(value, tz)
    if moment is None:
        return None
    unit = unit.lower().rstrip("s")
    if unit in ("month", "quarter", "year"):
        months = _months(moment) + amount * {"month": 1, "quarter": 3, "year": 12}[unit]
        year, month = divmod(months, 12)
        last = (date(year + (month == 11), (month + 1) % 12 + 1, 1) - timedelta(days=1)).day
        wall = moment.replace(tzinfo=None).replace(year=year, month=month + 1, day=min(moment.day, last))
        return micros_of(wall.replace(tzinfo=moment.tzinfo))
    if unit in ("day", "week"):  # calendar days in the zone, as ClickHouse adds them
        wall = moment.replace(tzinfo=None) + timedelta(days=amount * (7 if unit == "week" else 1))
        return micros_of(wall.replace(tzinfo=moment.tzinfo))
    seconds = {"second": 1, "minute": 60, "hour": 3600}.get(unit)
    return None if seconds is None else micros_of(moment) + amount * seconds * 1_000_000


def register_time_functions(conn: sqlite3.Connection) -> None:
    conn.create_function("il_sql_datetime", 2, to_datetime, deterministic=True)
    conn.create_function("il_sql_date", 2, to_date, deterministic=True)
    conn.create_function("il_sql_start", 3, start_of, deterministic=True)
    conn.create_function("il_sql_start_date", 3, start_date, deterministic=True)
    conn.create_function("il_sql_diff", 4, date_diff, deterministic=True)
    conn.create_function("il_sql_add", 4, add_interval, deterministic=True)
