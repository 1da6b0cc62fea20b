"""One value as a person reads it: durations in two units, numbers with separators, percentages, dates.

These are the cells of `toolkit.readable_table`; each gives the empty string for a missing value, so a
table shows an empty cell rather than ``NaT`` or ``nan``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

__all__ = ["DATE_FORMATS", "date_texts", "format_duration", "format_number", "format_percent", "is_whole"]

_UNITS = (("d", 86_400), ("h", 3_600), ("min", 60), ("s", 1))

DATE_FORMATS = {"hour": "%Y-%m-%d %H:%M", "day": "%Y-%m-%d", "week": "%Y-%m-%d", "month": "%Y-%m-%d"}
"""How a bucket start reads for each interval: a plain date, with the time of day only for hours."""


def _half_up(value: float) -> int:
    return math.floor(value + 0.5)


def format_duration(value: Any) -> str:
    """A duration in its two largest units, rounded to the smaller one; empty for a missing one.

    Examples
    --------
    >>> format_duration(pd.Timedelta("0 days 08:54:50.79")), format_duration(pd.Timedelta(seconds=45.4))
    ('8 h 55 min', '45 s')
    >>> format_duration(pd.Timedelta(days=2, hours=4, minutes=10)), format_duration(pd.NaT)
    ('2 d 4 h', '')
    """
    if value is None or pd.isna(value):
        return ""
    seconds = pd.Timedelta(value).total_seconds()
    sign = "-" if seconds < 0 else ""
    seconds = abs(seconds)
    for (name, size), (smaller_name, smaller) in zip(_UNITS, _UNITS[1:], strict=False):
        total = _half_up(seconds / smaller)  # in the smaller unit: 59.6 s is 60 s, so "1 min"
        if total >= size // smaller:
            whole, rest = divmod(total, size // smaller)
            return f"{sign}{whole} {name}" + (f" {rest} {smaller_name}" if rest else "")
    return f"{sign}{_half_up(seconds)} s"


def format_number(value: Any, *, whole: bool) -> str:
    """A number with thousands separators: whole, or with two decimals; empty for a missing one.

    Examples
    --------
    >>> format_number(1234.0, whole=True), format_number(2.5, whole=False), format_number(float("nan"), whole=True)
    ('1,234', '2.50', '')
    """
    if value is None or pd.isna(value):
        return ""
    return f"{value:,.0f}" if whole else f"{value:,.2f}"


def format_percent(value: Any) -> str:
    """A fraction (0..1) as a percentage with one decimal; empty for a missing one.

    Examples
    --------
    >>> format_percent(0.6049), format_percent(1.0), format_percent(None)
    ('60.5%', '100.0%', '')
    """
    if value is None or pd.isna(value):
        return ""
    return f"{value * 100:.1f}%"


def is_whole(values: Sequence[Any] | pd.Series) -> bool:
    """Whether every present value is a whole number (a count, shown without decimals).

    Examples
    --------
    >>> is_whole([3.0, None, 12.0]), is_whole([2.5, 1.0]), is_whole([3, "n/a", float("nan")]), is_whole([float("inf")])
    (True, False, True, False)
    """
    for value in values:
        if value is None or value is pd.NA:
            continue
        try:
            number = float(value)
        except (TypeError, ValueError):  # not a number: not counted, as a missing value
            continue
        if math.isnan(number):
            continue
        if math.isinf(number) or abs(number - round(number)) >= 1e-9:
            return False
    return True


def date_texts(values: pd.Series, interval: str | None = None) -> list[str]:
    """Bucket starts as text in their own timezone (the project's): plain dates for ``day``, ``week`` and
    ``month``, with the time for ``hour``. Without an interval, the time shows when some date has one.

    Examples
    --------
    >>> stamps = pd.Series(pd.to_datetime(["2026-01-05 00:00", "2026-01-05 01:00"]).tz_localize("Europe/Paris"))
    >>> date_texts(stamps, "hour"), date_texts(stamps[:1], "hour"), date_texts(stamps[:1], "week")
    (['2026-01-05 00:00', '2026-01-05 01:00'], ['2026-01-05 00:00'], ['2026-01-05'])
    """
    stamps = pd.to_datetime(values)
    pattern = DATE_FORMATS.get(interval or "")
    if pattern is None:
        present = stamps.dropna()
        has_time = bool((present != present.dt.normalize()).any()) if len(present) else False
        pattern = DATE_FORMATS["hour"] if has_time else DATE_FORMATS["day"]
    return pd.Series(stamps).dt.strftime(pattern).fillna("").tolist()
