"""When a cached result is too old to serve as it is.

A result is fresh for a while that depends on the query's interval (an hourly trend goes stale sooner than a
monthly one). A result whose date range ended before it was computed never goes stale: later events cannot
change it, unless they arrive with old timestamps, which a forced refresh picks up.
"""

from __future__ import annotations

from datetime import datetime, timedelta

__all__ = ["STALENESS", "LAZY_STALENESS", "cache_target_age", "is_stale", "CACHE_TTL", "MIN_CLIENT_REFRESH"]

STALENESS: dict[str | None, timedelta] = {
    None: timedelta(hours=6),
    "minute": timedelta(minutes=5),
    "hour": timedelta(hours=1),
    "day": timedelta(hours=6),
    "week": timedelta(days=1),
    "month": timedelta(days=2),
}
LAZY_STALENESS: dict[str | None, timedelta] = {
    None: timedelta(hours=12),
    "minute": timedelta(minutes=15),
    "hour": timedelta(hours=2),
    "day": timedelta(hours=12),
    "week": timedelta(days=1),
    "month": timedelta(days=2),
}
# Cached results older than this are dropped: a plain read then shows nothing cached.
CACHE_TTL = timedelta(days=7)
# How soon a client may ask for a recalculation of the same result again.
MIN_CLIENT_REFRESH = timedelta(minutes=3)
_CLOCK_SLACK = timedelta(seconds=10)


def cache_target_age(interval: str | None, last_refresh: datetime, *, lazy: bool = False) -> datetime:
    table = LAZY_STALENESS if lazy else STALENESS
    return last_refresh + table.get(interval, table[None])


def is_stale(
    *, interval: str | None, last_refresh: datetime, date_to: datetime | None, now: datetime, lazy: bool = False
) -> bool:
    if date_to is not None and date_to < last_refresh - _CLOCK_SLACK:
        return False
    return now > cache_target_age(interval, last_refresh, lazy=lazy)
