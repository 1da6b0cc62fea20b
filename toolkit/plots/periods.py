"""Which plotted periods were still in progress when the backend computed the answer.

A frame's ``attrs["last_refresh"]`` says when the answer was computed. A trend's bucket, a retention cell
(a cohort's n-th period) or a conversion-over-time point whose numbers could still change at that moment is
drawn as in progress, as PostHog draws them, so that a partial period does not read as a drop:

- a trend bucket or a retention cell is in progress while its period has not ended;
- a funnel's entrance period is in progress while its people may still convert: from the first period that
  starts within the conversion window (14 days by default) before that moment, as PostHog marks it.

`draw_line` draws a line whose last points are in progress with a dashed last segment, as PostHog does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

__all__ = [
    "IN_PROGRESS",
    "IN_PROGRESS_ALPHA",
    "IN_PROGRESS_LABEL",
    "PERIOD_STEPS",
    "computed_at",
    "conversion_window",
    "draw_line",
    "open_periods",
    "still_converting",
]

IN_PROGRESS = "in progress"
"""The ``gid`` of the artists drawing periods that had not ended when the answer was computed."""
IN_PROGRESS_ALPHA = 0.35
IN_PROGRESS_LABEL = "_in progress: "
"""How the dashed segment of a line that also has ended periods is labelled: the series' label after this
prefix, which keeps it out of the legend (the solid part is there) and lets the hover name the series."""

PERIOD_STEPS: dict[str, pd.DateOffset] = {
    "hour": pd.DateOffset(hours=1),
    "day": pd.DateOffset(days=1),
    "week": pd.DateOffset(weeks=1),
    "month": pd.DateOffset(months=1),
}
"""The length of a period, by the request's ``interval`` (trends, funnels) or ``period`` (retention)."""

_WINDOW_UNITS: dict[str, str] = {
    "second": "seconds",
    "minute": "minutes",
    "hour": "hours",
    "day": "days",
    "week": "weeks",
    "month": "months",
}
_DEFAULT_WINDOW = (14, "day")


def computed_at(attrs: Mapping[str, Any]) -> pd.Timestamp | None:
    """When the backend computed the answer (``attrs["last_refresh"]``, UTC when it has no zone); None
    without it.

    Examples
    --------
    >>> computed_at({"last_refresh": "2026-01-15T12:00:00Z"})
    Timestamp('2026-01-15 12:00:00+0000', tz='UTC')
    """
    stamp = attrs.get("last_refresh")
    if not stamp:
        return None
    moment = pd.Timestamp(stamp)
    return moment.tz_localize("UTC") if moment.tzinfo is None else moment


def _aware(dates: pd.Series, attrs: Mapping[str, Any]) -> pd.Series:
    if isinstance(dates.dtype, pd.DatetimeTZDtype):
        return dates
    return dates.dt.tz_localize(attrs.get("timezone") or "UTC")


def open_periods(attrs: Mapping[str, Any], dates: pd.Series, interval: str) -> int:
    """How many of the last periods starting at ``dates`` (in order) had not ended when the answer was
    computed; 0 without that moment or with missing dates.

    Examples
    --------
    >>> days = pd.Series(pd.to_datetime(["2026-01-14", "2026-01-15"], utc=True))
    >>> open_periods({"last_refresh": "2026-01-15T12:00:00Z"}, days, "day")
    1
    """
    now = computed_at(attrs)
    if now is None or dates.empty or dates.isna().any():
        return 0
    count = 0
    for start in reversed(list(_aware(dates.reset_index(drop=True), attrs))):
        if start + PERIOD_STEPS[interval] <= now:
            break
        count += 1
    return count


def conversion_window(request: Mapping[str, Any]) -> pd.DateOffset:
    """A funnel request's conversion window (``funnel_window_interval`` and its unit, the older
    ``funnel_window_days``, else 14 days).

    Examples
    --------
    >>> conversion_window({"funnel_window_interval": 2, "funnel_window_interval_unit": "week"})
    <DateOffset: weeks=2>
    """
    amount = request.get("funnel_window_interval")
    unit = request.get("funnel_window_interval_unit") or request.get("funnel_window_interval_type")
    if amount is None and unit is None and request.get("funnel_window_days") is not None:
        amount, unit = request["funnel_window_days"], "day"
    amount = int(amount or _DEFAULT_WINDOW[0])
    unit = str(unit or _DEFAULT_WINDOW[1]).lower()
    return pd.DateOffset(**{_WINDOW_UNITS.get(unit, "days"): amount})


def still_converting(attrs: Mapping[str, Any], dates: pd.Series) -> int:
    """How many of the last entrance periods of a conversion-over-time frame (``dates`` in order) may still
    gain conversions: those from the first that starts within the conversion window before the answer was
    computed. 0 without that moment."""
    now = computed_at(attrs)
    if now is None or dates.empty or dates.isna().any():
        return 0
    request = attrs.get("request") or {}
    since = now - conversion_window(request if isinstance(request, Mapping) else {})
    starts = list(_aware(dates.reset_index(drop=True), attrs))
    first = next((position for position, start in enumerate(starts) if start >= since), len(starts))
    return len(starts) - first


def draw_line(
    ax: Axes,
    xs: np.ndarray,
    values: np.ndarray,
    *,
    label: str | None,
    color: str,
    incomplete: int = 0,
    faded: bool = False,
) -> None:
    """``values`` over ``xs`` as a line whose last ``incomplete`` points are joined by a dashed segment (the
    artist's ``gid`` is `IN_PROGRESS`); ``faded`` draws a compared previous period, dashed and lighter."""
    closed = len(values) - incomplete
    style = {"color": color, "alpha": 0.6 if faded else 1.0}
    if closed > 0:
        ax.plot(
            xs[:closed],
            values[:closed],
            label=label,
            linestyle="--" if faded else "-",
            marker="o" if len(values) == 1 else None,
            **style,
        )
    if incomplete:
        first = max(closed - 1, 0)
        ax.plot(
            xs[first:],
            values[first:],
            label=label if closed == 0 else f"{IN_PROGRESS_LABEL}{label or ''}",
            linestyle="--",
            marker="o" if len(values) - first == 1 else None,
            gid=IN_PROGRESS,
            **style,
        )
