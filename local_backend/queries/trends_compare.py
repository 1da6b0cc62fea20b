"""The previous period of a ``compare`` trend.

Without ``compare_to``: the same number of buckets immediately before the current ones, at the same offsets
within their buckets. PostHog's one exception is kept: a day-interval range given as ``-Nd`` with N a
multiple of 7 and no ``date_to`` is compared with the period one day later, which shares its first day
(``-7d`` on 2026-01-14 compares 2025-12-31..2026-01-07 with 2026-01-07..2026-01-14).
With ``compare_to`` (``-1w``, ``-1m``, ``-1y``, ...): the current range moved back by that much.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timedelta

from ..errors import ValidationError
from ..models.trends import TrendsFilter
from .buckets import Buckets
from .dates import DateRange, _local, add_intervals, add_months

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


def previous_range(filter: TrendsFilter, current: DateRange, buckets: Buckets, now: datetime) -> DateRange:
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
    steps = len(buckets)
    weeks = _WEEKS_OF_DAYS.fullmatch(filter.date_from or "-7d")
    if filter.interval == "day" and filter.date_to is None and weeks and int(weeks.group(1)) % 7 == 0:
        steps -= 1

    def back(moment: datetime) -> datetime:
        return add_intervals(moment, filter.interval, -steps)

    return replace(current, date_from=back(current.date_from), date_to=back(current.date_to), lower=back(current.lower))
