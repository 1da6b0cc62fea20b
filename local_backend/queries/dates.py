"""Date ranges of trends and funnels: the relative grammar, the project timezone, and the rounding rules.

Grammar of ``date_from`` / ``date_to`` (PostHog's ``relative_date_parse``):

* absolute: ``2026-01-05``, ``2026-1-5``, ``2026-01-05T10:00[:00[.ffffff]]``, with or without an offset; a naive
  value is a wall-clock time in the project timezone, an offset value is converted to it;
* relative: ``-<n><unit>[Start|End]`` with units ``h`` hours, ``d`` days, ``w`` weeks, ``m`` months, ``q``
  quarters (13 weeks), ``y`` years, ``M`` minutes, always counted back from now (``7d`` means ``-7d``);
  ``Start``/``End`` move to the start or end of that hour (``h``), day (``d``), month (``m``, ``End`` = its last
  day) or year (``yStart`` = January 1; ``yEnd`` = day 31 of the same month, as PostHog does); weeks and
  quarters have no Start/End; ``dStart`` alone is today 00:00;
* ``all`` (``date_from`` only): the project's first event.

The range (:func:`resolve_date_range`): ``date_from`` defaults to 00:00 seven days ago and ``date_to`` to now.
Unless the query is hourly (``interval`` hour, or an ``h`` in ``date_from``) or ``explicit_date`` is set,
``date_from`` is moved to 00:00 and ``date_to`` to the end of its day (23:59:59.999999); an hourly relative
``date_to`` ends with its hour. Both bounds are inclusive. The lower bound is further rounded down to the
start of its interval for week and month intervals, and for day and hour intervals spanning at least two
intervals, so the first bucket is whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from ..clock import has_iso_date_form
from ..errors import ValidationError

__all__ = [
    "INTERVALS",
    "DateRange",
    "parse_date",
    "resolve_date_range",
    "truncate",
    "add_intervals",
    "add_months",
    "lower_bound",
]

INTERVALS = ("hour", "day", "week", "month")
DEFAULT_DATE_FROM_DAYS = 7
_RELATIVE = re.compile(r"-?(\d{1,6})?([hdwmqyM])(Start|End)?")
_BARE_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}")
_END_OF_DAY = {"hour": 23, "minute": 59, "second": 59, "microsecond": 999_999}


def add_months(naive: datetime, months: int) -> datetime:
    """``naive`` moved by whole months, the day clamped to the month's length (Jan 31 + 1 month = Feb 28)."""
    index = naive.year * 12 + naive.month - 1 + months
    year, month = divmod(index, 12)
    return naive.replace(year=year, month=month + 1, day=min(naive.day, _days_in_month(year, month + 1)))


def _days_in_month(year: int, month: int) -> int:
    following = datetime(year + month // 12, month % 12 + 1, 1)
    return (following - timedelta(days=1)).day


def _local(naive: datetime, tz: ZoneInfo) -> datetime:
    """A wall-clock time in ``tz``; a time skipped by a DST change maps to the instant after the gap."""
    aware = naive.replace(tzinfo=tz)
    return aware.astimezone(tz)


def _parse_absolute(text: str, tz: ZoneInfo) -> datetime | None:
    if not has_iso_date_form(text):
        return None
    value = text.replace("Z", "+00:00")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        if not _BARE_DATE.fullmatch(value):
            return None
        try:
            parsed = datetime.strptime(value, "%Y-%m-%d")
        except ValueError:
            return None
    return _local(parsed, tz) if parsed.tzinfo is None else parsed.astimezone(tz)


def _parse_relative(match: re.Match[str], tz: ZoneInfo, now: datetime) -> datetime:
    number = int(match.group(1)) if match.group(1) else 0
    unit, position = match.group(2), match.group(3)
    naive = now.astimezone(tz).replace(tzinfo=None)
    if unit in ("m", "y"):
        naive = add_months(naive, -number * (12 if unit == "y" else 1))
    else:
        step = {"h": timedelta(hours=1), "d": timedelta(days=1), "w": timedelta(weeks=1)}.get(unit)
        step = step or (timedelta(weeks=13) if unit == "q" else timedelta(minutes=1))
        naive -= step * number
    if position == "Start":
        if unit == "h":
            naive = naive.replace(minute=0, second=0, microsecond=0)
        elif unit == "d":
            naive = naive.replace(hour=0, minute=0, second=0, microsecond=0)
        elif unit == "m":
            naive = naive.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
        elif unit == "y":
            naive = naive.replace(month=1, day=1, hour=0, minute=0, second=0, microsecond=0)
    elif position == "End":
        if unit == "h":
            naive = naive.replace(minute=59, second=59, microsecond=999_999)
        elif unit == "d":
            naive = naive.replace(**_END_OF_DAY)
        elif unit in ("m", "y"):
            naive = naive.replace(day=_days_in_month(naive.year, naive.month))
            if unit == "m":
                naive = naive.replace(**_END_OF_DAY)
    return _local(naive, tz)


def parse_date(text: str, *, tz: ZoneInfo, now: datetime, attr: str) -> datetime:
    """An absolute or relative date (module docstring) as an aware datetime in ``tz``; anything else is a 400."""
    value = text.strip()
    parsed = _parse_absolute(value, tz)
    if parsed is not None:
        return parsed
    match = _RELATIVE.fullmatch(value)
    if match is None:
        raise ValidationError(
            f"'{text}' is not a date: use YYYY-MM-DD, a date-time, or a relative date such as -7d, -2w, mStart.",
            attr=attr,
        )
    return _parse_relative(match, tz, now)


def truncate(moment: datetime, interval: str, week_start_day: int = 0) -> datetime:
    """The start of the ``interval`` (hour/day/week/month, project calendar) that ``moment`` falls in."""
    naive = moment.replace(tzinfo=None)
    if interval == "hour":
        start = naive.replace(minute=0, second=0, microsecond=0)
    else:
        start = naive.replace(hour=0, minute=0, second=0, microsecond=0)
        if interval == "week":
            # weekday(): Monday 0 .. Sunday 6; week_start_day: 0 Sunday, 1 Monday
            start -= timedelta(days=(start.weekday() + 1 - week_start_day) % 7)
        elif interval == "month":
            start = start.replace(day=1)
    return _local(start, moment.tzinfo) if isinstance(moment.tzinfo, ZoneInfo) else start.replace(tzinfo=moment.tzinfo)


def add_intervals(start: datetime, interval: str, count: int) -> datetime:
    """``start`` moved by ``count`` intervals: hours in elapsed time, days/weeks/months on the local calendar."""
    tz = start.tzinfo
    if interval == "hour":
        moved = start.astimezone(ZoneInfo("UTC")) + timedelta(hours=count)
        return moved.astimezone(tz)
    naive = start.replace(tzinfo=None)
    if interval == "month":
        naive = add_months(naive, count)
    else:
        naive += timedelta(days=count * (7 if interval == "week" else 1))
    return _local(naive, tz) if isinstance(tz, ZoneInfo) else naive.replace(tzinfo=tz)


@dataclass(frozen=True)
class DateRange:
    """A resolved range, every instant aware in the project timezone.

    ``date_from``/``date_to`` are the bounds as the filter means them; ``lower`` is the bound events are
    compared with (``date_from``, or the start of its interval when rounding); both ends are inclusive.
    """

    date_from: datetime
    date_to: datetime
    lower: datetime
    interval: str
    week_start_day: int
    hourly: bool

    @property
    def first_bucket(self) -> datetime:
        return truncate(self.date_from, self.interval, self.week_start_day)

    @property
    def last_bucket(self) -> datetime:
        return truncate(self.date_to, self.interval, self.week_start_day)


def _spans_two_intervals(start: datetime, end: datetime, interval: str) -> bool:
    if interval == "hour":
        return end - start >= timedelta(hours=2)
    if interval == "day":
        return end - start >= timedelta(days=2)
    return True


def lower_bound(start: datetime, end: datetime, interval: str, *, explicit_date: bool, week_start_day: int) -> datetime:
    """The bound events are compared with: ``start``, or the start of its interval when rounding (module docstring)."""
    if not explicit_date and _spans_two_intervals(start, end, interval):
        return truncate(start, interval, week_start_day)
    return start


def resolve_date_range(
    *,
    date_from: str | None,
    date_to: str | None,
    interval: str,
    explicit_date: bool,
    tz: ZoneInfo,
    now: datetime,
    week_start_day: int = 0,
    earliest_event: Callable[[], datetime | None] | None = None,
) -> DateRange:
    """The range a filter asks for, with PostHog's defaults, truncations and rounding (module docstring)."""
    local_now = now.astimezone(tz)
    hourly = interval == "hour" or (date_from is not None and "h" in date_from)
    if date_to in (None, ""):
        end = local_now
        end_is_relative = True
    else:
        end = parse_date(date_to, tz=tz, now=now, attr="date_to")
        end_is_relative = _parse_absolute(date_to.strip(), tz) is None
    if not explicit_date:
        if not hourly:
            end = _local(end.replace(tzinfo=None).replace(**_END_OF_DAY), tz)
        elif end_is_relative and not (date_to or "").endswith(("Start", "End")):
            end = _local(end.replace(tzinfo=None).replace(minute=59, second=59, microsecond=999_999), tz)
    if date_from in (None, ""):
        start = local_now - timedelta(days=DEFAULT_DATE_FROM_DAYS)
        start = _local(start.replace(tzinfo=None).replace(hour=0, minute=0, second=0, microsecond=0), tz)
    elif date_from.strip() == "all":
        first = earliest_event() if earliest_event is not None else None
        start = first.astimezone(tz) if first is not None else truncate(end, "day")
    else:
        start = parse_date(date_from, tz=tz, now=now, attr="date_from")
    if not explicit_date and not hourly:
        start = truncate(start, "day")
    if start > end:
        raise ValidationError("date_from must not be after date_to.", attr="date_from")
    return DateRange(
        date_from=start,
        date_to=end,
        lower=lower_bound(start, end, interval, explicit_date=explicit_date, week_start_day=week_start_day),
        interval=interval,
        week_start_day=week_start_day,
        hourly=hourly,
    )
