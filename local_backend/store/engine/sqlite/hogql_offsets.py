"""HogQL's calendar in a zone written as SQLite arithmetic on a time's UTC offset, with :mod:`.hogql_times` behind.

A DateTime is UTC microseconds; its day, hour or week in a zone follow from the zone's offset at that moment.
Over a window of years around the query's clock a zone's offset is piecewise constant (:func:`offset_pieces`,
read from the zone database once per zone and window), so the offset of a time ``t`` is a binary search
written as nested ``CASE WHEN t < <start> ...`` over the pieces' starts: a few integer comparisons a row where
a Python call would cost a conversion. A zone without transitions in the window (UTC, Asia/Tokyo) is one piece.

The arithmetic answers NULL where it cannot answer exactly, and each expression falls back to the Python
function there (``coalesce(<arithmetic>, il_sql_date(t, zone))``): a value that is not an integer
(a date text), a time outside the window, and, for an answer that is itself a time (the start of the hour or
day), a time within :data:`MARGIN` after a transition (or the window's start), whose start may lie in the
previous offset. Dates (the day, week, month, year of a time) need only the offset of the time itself, so they
hold up to a transition.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import cache
from zoneinfo import ZoneInfo

__all__ = ["MARGIN", "offset_pieces", "offset_sql", "window_of"]

_SECOND = 1_000_000
_STEP = 86_400  # seconds between the probes that find a transition (no zone changes twice within a day)
MARGIN = 2 * 86_400 * _SECOND
"""After a transition, times whose start of day (at most 25 hours back) could lie before it are left to Python."""
_YEARS_BACK, _YEARS_ON = 30, 10
_MARK = "\x00t\x00"
_FIXED = frozenset({"UTC", "Etc/UTC", "Etc/GMT", "GMT"})


def window_of(now_us: int) -> tuple[int, int]:
    """The years (first, last + 1) whose times are written as arithmetic for a query run at ``now_us``."""
    year = (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=now_us)).year
    return max(1971, year - _YEARS_BACK), min(9000, year + _YEARS_ON)


def _offset(zone: ZoneInfo, second: int) -> timedelta:
    return datetime.fromtimestamp(second, tz=zone).utcoffset() or timedelta(0)


@cache
def offset_pieces(tz: str, first_year: int, last_year: int) -> tuple[tuple[int, int], ...]:
    """``(start, offset)`` in UTC microseconds for each stretch of constant offset of zone ``tz`` from the start
    of ``first_year`` (UTC) to that of ``last_year``; the first stretch starts at the window's start."""
    zone = ZoneInfo(tz)
    low = int(datetime(first_year, 1, 1, tzinfo=UTC).timestamp())
    high = int(datetime(last_year, 1, 1, tzinfo=UTC).timestamp())
    offset = _offset(zone, low)
    changes = [(low, offset)]
    for second in range(low, high, _STEP) if tz not in _FIXED else ():
        probe = min(second + _STEP, high)
        if _offset(zone, probe) != offset:
            before, after = second, probe  # the offset changes in (before, after]: find the second it does
            while after - before > 1:
                middle = (before + after) // 2
                before, after = (middle, after) if _offset(zone, middle) == offset else (before, middle)
            offset = _offset(zone, after)
            changes.append((after, offset))
    return tuple((second * _SECOND, round(offset.total_seconds() * _SECOND)) for second, offset in changes)


def _search(pieces: list[tuple[int, int | None]]) -> str:
    if len(pieces) == 1:
        offset = pieces[0][1]
        return "NULL" if offset is None else str(offset)
    middle = len(pieces) // 2
    before, after = _search(pieces[:middle]), _search(pieces[middle:])
    return f"CASE WHEN {_MARK} < {pieces[middle][0]} THEN {before} ELSE {after} END"


@cache
def _template(tz: str, first_year: int, last_year: int, margin: bool) -> str:
    pieces = offset_pieces(tz, first_year, last_year)
    high = int(datetime(last_year, 1, 1, tzinfo=UTC).timestamp()) * _SECOND
    searched: list[tuple[int, int | None]] = []
    for index, (start, offset) in enumerate(pieces):
        end = pieces[index + 1][0] if index + 1 < len(pieces) else high
        # the window's start too: a transition may lie just before it, and no time is read before it
        if margin:
            searched.append((start, None))
            start = min(start + MARGIN, end)
            if start == end:
                continue
        searched.append((start, offset))
    return (
        f"(CASE WHEN typeof({_MARK}) <> 'integer' OR {_MARK} < {pieces[0][0]} OR {_MARK} >= {high} THEN NULL"
        f" ELSE {_search(searched)} END)"
    )


def offset_sql(time_sql: str, tz: str, now_us: int, *, margin: bool) -> str:
    """SQL giving the UTC offset (microseconds) of zone ``tz`` at the integer time ``time_sql`` (a column: it is
    written once per comparison), NULL outside the window of ``now_us`` or for a value that is no integer; with
    ``margin``, NULL too within :data:`MARGIN` after a transition."""
    first, last = window_of(now_us)
    return _template(tz, first, last, margin).replace(_MARK, time_sql)


_DATE_MODIFIERS = {
    "day": "",
    "week": ", '-6 days', 'weekday 0'",
    "month": ", 'start of month'",
    "year": ", 'start of year'",
}
"""``date()`` modifiers from a local day to the first day of its unit (weeks start on Sunday, as PostHog's)."""
_SIZES = {"second": _SECOND, "minute": 60 * _SECOND, "hour": 3600 * _SECOND, "day": 86_400 * _SECOND}


def date_sql(time_sql: str, zone_sql: str, tz: str, now_us: int, unit: str) -> str | None:
    """The first day (``YYYY-MM-DD``) of the ``unit`` holding time ``time_sql`` in zone ``tz``: ``toDate`` for a
    day, ``toStartOfWeek``/``toStartOfMonth`` and ``dateTrunc`` to a date unit; None for a unit written only in
    Python (a quarter). ``zone_sql`` names the zone for the Python functions where the arithmetic answers NULL."""
    if unit not in _DATE_MODIFIERS:
        return None
    offset = offset_sql(time_sql, tz, now_us, margin=False)
    local = f"date(({time_sql} + {offset}) / {_SECOND}, 'unixepoch'{_DATE_MODIFIERS[unit]})"
    if unit == "day":
        fallback = f"il_sql_date({time_sql}, {zone_sql})"
    else:
        fallback = f"il_sql_start_date('{unit}', {time_sql}, {zone_sql})"
    return f"coalesce({local}, {fallback})"


def start_sql(time_sql: str, zone_sql: str, tz: str, now_us: int, unit: str) -> str | None:
    """The start (UTC microseconds) of the second, minute, hour or day holding time ``time_sql`` in zone ``tz``;
    None for another unit."""
    size = _SIZES.get(unit)
    if size is None:
        return None
    offset = offset_sql(time_sql, tz, now_us, margin=True)
    return f"coalesce({time_sql} - (({time_sql} + {offset}) % {size}), il_sql_start('{unit}', {time_sql}, {zone_sql}))"
