"""Trends: events, users or a property aggregated per hour, day, week or month.

The entry point is :func:`compute_trends` (typed filter in, series out); :func:`trends_payload` does the same
for a saved insight's filter dict. Modules: :mod:`.filter` (the typed filter), :mod:`.compute` (the reading
order), :mod:`.math` (which aggregate), :mod:`.sql` (the one grouped query), :mod:`.series` (shaping),
:mod:`.formula`, :mod:`.compare` (the previous period), :mod:`.actors` (the people behind each point:
:func:`trend_actors`).
"""

from __future__ import annotations

from .actors import (
    TrendActors,
    TrendPoint,
    parse_breakdown_offset,
    parse_series_range,
    point_on_day,
    trend_actors,
)
from .compute import TrendsResult, compute_trends, trends_payload
from .filter import TrendsFilter

__all__ = [
    "TrendActors",
    "TrendPoint",
    "TrendsFilter",
    "TrendsResult",
    "compute_trends",
    "parse_breakdown_offset",
    "parse_series_range",
    "point_on_day",
    "trend_actors",
    "trends_payload",
]
