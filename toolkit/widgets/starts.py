"""What a builder opens on when it is given nothing, and the interval a date range reads best in.

- A trend opens on ``$pageview``, total, over the last 7 days, as PostHog's new trend does (the project's
  first event when it has no pageviews).
- A funnel opens on the project's most common first and second step: the busiest first edge of its paths
  of custom events over the last 30 days (`common_first_steps`), else its first two events.
- Conversion over time picks its interval from the date range (`interval_for_range`): a daily rate over
  months is mostly days with a handful of people, which read as 0% and 100% spikes.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any

from ..errors import ToolkitError
from .catalog import Catalog

__all__ = [
    "DAILY_MAX_DAYS",
    "HOURLY_MAX_DAYS",
    "START_EVENT",
    "WEEKLY_MAX_DAYS",
    "common_first_steps",
    "interval_for_range",
    "range_days",
    "start_event",
]

START_EVENT = "$pageview"
HOURLY_MAX_DAYS = 2
"""Ranges up to this many days are shown by hour."""
DAILY_MAX_DAYS = 90
"""Ranges up to this many days are shown by day; longer ones by week."""
WEEKLY_MAX_DAYS = 730
"""Ranges up to this many days are shown by week; longer ones (and all time) by month."""
PATHS_RANGE = "-30d"
"""The period whose paths choose a new funnel's steps."""

_UNIT_DAYS = {"h": 1 / 24, "d": 1, "w": 7, "m": 30, "q": 91, "y": 365, "M": 1 / 1440}
_RELATIVE = re.compile(r"^-(\d*)([hdwmqyM])(Start|End)?$")
_PERIOD_STARTS = {"dStart": 1, "wStart": 7, "mStart": 31, "qStart": 92, "yStart": 366}


def start_event(catalog: Catalog) -> str | None:
    """``$pageview`` when the project has seen it, else its first event; None when it has none."""
    events = catalog.events
    if START_EVENT in events:
        return START_EVENT
    return events[0] if events else None


def common_first_steps(client: Any, catalog: Catalog) -> list[str]:
    """The two events most people do one after the other first: the busiest step-1 edge of the project's
    paths of custom events over the last 30 days; else the project's first two events (fewer when it has
    fewer).

    Examples
    --------
    >>> common_first_steps(client, Catalog(client))  # doctest: +SKIP
    ['signed_up', 'onboarding_completed']
    """
    try:
        edges = client.paths(include_event_types=["custom_event"], date_from=PATHS_RANGE, step_limit=2)
    except ToolkitError:
        edges = None
    if edges is not None and len(edges):
        first = edges[edges["step"] == 1].sort_values("value", ascending=False, kind="stable")
        if len(first):
            row = first.iloc[0]
            return [str(row["source_name"]), str(row["target_name"])]
    return list(catalog.events[:2])


def _relative_days(match: re.Match[str]) -> float:
    return int(match.group(1) or 1) * _UNIT_DAYS[match.group(2)]


def _as_day(text: str) -> date | None:
    for parse in (date.fromisoformat, lambda value: datetime.fromisoformat(value).date()):
        try:
            return parse(text)
        except ValueError:
            continue
    return None


def range_days(date_from: str | None, date_to: str | None, today: date | None = None) -> float | None:
    """How many days ``date_from``..``date_to`` spans (relative dates as PostHog reads them); None for all
    time or what cannot be read.

    Examples
    --------
    >>> range_days("-90d", None), range_days("-3m", None), range_days("2026-01-01", "2026-01-15")
    (90, 90, 14)
    >>> range_days("-1mStart", "-1mEnd"), range_days("-14d", "-7d")
    (30, 7)
    """
    today = today or date.today()
    if date_from in (None, ""):
        return 7  # PostHog's default range
    if date_from == "all":
        return None
    relative = _RELATIVE.match(date_from)
    if relative:
        span = _relative_days(relative)
        ended = _RELATIVE.match(date_to or "")
        if not date_to:
            return span
        if ended and ended.groups() == (relative.group(1), relative.group(2), "End") and relative.group(3) == "Start":
            return _UNIT_DAYS[relative.group(2)]  # one whole period: -1mStart to -1mEnd is last month
        if ended:
            return max(span - _relative_days(ended), 1)
        end = _as_day(date_to)
        return None if end is None else max(span - (today - end).days, 1)
    if date_from in _PERIOD_STARTS:
        return _PERIOD_STARTS[date_from]
    start = _as_day(date_from)
    if start is None:
        return None
    end = _as_day(date_to) if date_to else today
    return (end - start).days if end is not None else None


def interval_for_range(date_from: str | None, date_to: str | None, today: date | None = None) -> str:
    """The interval a date range reads best in: hour up to 2 days, day up to 90, week up to two years,
    month beyond (and for all time).

    Examples
    --------
    >>> [interval_for_range(span, None) for span in ("-1d", "-30d", "-90d", "-180d", "all")]
    ['hour', 'day', 'day', 'week', 'month']
    """
    days = range_days(date_from, date_to, today)
    if days is None or days > WEEKLY_MAX_DAYS:
        return "month"
    if days <= HOURLY_MAX_DAYS:
        return "hour"
    return "day" if days <= DAILY_MAX_DAYS else "week"
