"""The previous period of a ``compare`` trend.

Without ``compare_to`` (PostHog's ``get_compare_period_dates``): the period has the current one's length and
ends where that length, counted back from the current start, lands, but it starts on that day at the same
time of day as the current period (its end at the same time of day as the current end). So hourly buckets
line up with the same hours of an earlier day (``dStart`` at 20:17 compares 00:00-20:59 today with
00:00-20:59 yesterday; ``-24h`` at 12:00 compares 12:00 yesterday.. with 12:00 the day before..) and day,
week and month ranges are moved back by their length in days, not by a count of weeks or months. A range
too short to reach back past midnight compares with the same hours the day before. The lower bound is then
rounded to its interval as a current range's is (:func:`.dates.lower_bound`), so a week or month interval
counts the whole first week or month of the previous period. PostHog's one exception is kept: a day-interval
range given as ``-Nd`` with N a multiple of 7 and no ``date_to`` is compared with the period one day later,
which shares its first day (``-7d`` on 2026-01-14 compares 2025-12-31..2026-01-07 with 2026-01-07..2026-01-14).
With ``compare_to`` (``-1w``, ``-1m``, ``-1y``, ...): the current range moved back by that much.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timedelta

from ...errors import ValidationError
from ..dates import DateRange, _local, add_months, lower_bound
from .filter import TrendsFilter

__all__ = ["previous_range"]

_WEEKS_OF_DAYS = re.compile(r"-?(\d+)d")
_COMPARE_TO = re.compile(r"-?(\d{1,5})([hdwmqy])")


def _shift_by(moment: datetime, number: int, unit: str) -> datetime:
    naive = moment.replace(tzinfo=None)
    if unit in ("m", "y"):
        naive = add_months(naive, -number * (12 if unit == "y" else 1))
    elif unit == "h":
        return moment - timedelta(hours=number)
    else:
        naive -= timedelta(days=number * {"d": 1, "w": 7, "q": 91}[unit])
    return _local(naive, moment.tzinfo)  # type: ignore[arg-type]


def previous_range(filter: TrendsFilter, current: DateRange) -> DateRange:
    """The range the previous period of ``current`` covers (module docstring)."""
    if filter.compare_to:
        match = _COMPARE_TO.fullmatch(filter.compare_to.strip())
        if match is None:
            raise ValidationError(
                f"'{filter.compare_to}' is not a relative period: use e.g. -1w, -1m, -1y.", attr="compare_to"
            )
        number, unit = int(match.group(1)), match.group(2)
        return replace(
            current,
            date_from=_shift_by(current.date_from, number, unit),
            date_to=_shift_by(current.date_to, number, unit),
            lower=_shift_by(current.lower, number, unit),
        )
    tz = current.date_from.tzinfo
    # PostHog moves the naive wall-clock times of the project timezone, so a DST change keeps the clock hours
    start = current.date_from.replace(tzinfo=None)
    end = current.date_to.replace(tzinfo=None)
    length = end - start
    previous_start = datetime.combine((start - length).date(), start.time())
    if previous_start >= start:
        previous_start -= timedelta(days=1)
    weeks = _WEEKS_OF_DAYS.fullmatch(filter.date_from or "-7d")
    if filter.interval == "day" and filter.date_to is None and weeks and int(weeks.group(1)) % 7 == 0:
        previous_start += timedelta(days=1)
    date_from = _local(previous_start, tz)  # type: ignore[arg-type]
    date_to = _local(previous_start + length, tz)  # type: ignore[arg-type]
    lower = lower_bound(
        date_from,
        date_to,
        current.interval,
        explicit_date=filter.explicit_date,
        week_start_day=current.week_start_day,
    )
    return replace(current, date_from=date_from, date_to=date_to, lower=lower)
