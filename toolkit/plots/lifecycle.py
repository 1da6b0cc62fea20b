"""`plot_lifecycle`: stacked bars per interval, new, returning and resurrecting actors above zero and the dormant
ones below it, in the colours PostHog gives the four statuses."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from ..frames.lifecycle import LIFECYCLE_STATUSES
from .bars import date_bar_ticks, mark_bar_in_progress
from .periods import PERIOD_STEPS, open_periods
from .style import integer_ticks, literal_text, local_dates, new_axes, no_data, place_legend

__all__ = ["LIFECYCLE_COLORS", "plot_lifecycle"]

# PostHog's frontend draws the statuses in its primary blue (new), its success green (returning), its lilac
# data colour (resurrecting) and its danger red (dormant); these are those colours' values.
LIFECYCLE_COLORS: dict[str, str] = {
    "new": "#1d4aff",
    "returning": "#388600",
    "resurrecting": "#a56eff",
    "dormant": "#db3707",
}
"""The colour of each lifecycle status, as PostHog draws it."""


def _tidy(df: pd.DataFrame) -> pd.DataFrame:
    """`Client.lifecycle`'s frame in its tidy form (``date, status, value``), whichever form it came in."""
    if {"date", "status", "value"} <= set(df.columns):
        return df
    if isinstance(df.index, pd.DatetimeIndex):
        return df.rename_axis("date").reset_index().melt(id_vars="date", var_name="status", value_name="value")
    raise ValueError("plot_lifecycle takes the frame of Client.lifecycle (tidy, or wide=True)")


def plot_lifecycle(df: pd.DataFrame, ax: Axes | None = None, *, title: str | None = None) -> Axes:
    """Plot a lifecycle frame from `Client.lifecycle` as stacked bars per interval.

    Above zero, from the axis up: the new, returning and resurrecting actors of each interval; below zero the
    dormant ones (negative, as the API answers them), so a bar's height above the axis is the interval's
    active actors. The statuses keep PostHog's colours (`LIFECYCLE_COLORS`) and order in the legend. An
    interval that had not ended when the backend computed the answer (``attrs["last_refresh"]``) is drawn
    light in a dashed outline: its actors are still arriving, and its dormant ones are not all dormant yet.

    Parameters
    ----------
    df : pandas.DataFrame
        A lifecycle frame (tidy ``date, status, value``, or its ``wide=True`` form).
    ax : matplotlib.axes.Axes, optional
        Where to draw; by default a new figure's Axes.
    title : str, optional
        By default ``Lifecycle of <event>``.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.containers`` holds one bar container per status, labelled with it, in `LIFECYCLE_STATUSES` order.

    Examples
    --------
    >>> frame = pd.DataFrame({"date": pd.to_datetime(["2026-01-05"] * 4, utc=True),
    ...     "status": ["new", "returning", "resurrecting", "dormant"], "value": [3, 2, 1, -2]})
    >>> [(float(bar.get_y()), float(bar.get_height())) for bar in plot_lifecycle(frame).patches]
    [(0.0, 3.0), (3.0, 2.0), (5.0, 1.0), (0.0, -2.0)]
    """
    tidy = _tidy(df)
    ax = new_axes(ax, figsize=(8.0, 4.5))
    if title is None:
        series = df.attrs.get("series")
        title = f"Lifecycle of {series}" if series else "Lifecycle"
    ax.set_title(title)
    if tidy.empty:
        return literal_text(no_data(ax))
    dates = sorted(set(tidy["date"].dropna()))
    position = {stamp: number for number, stamp in enumerate(dates)}
    request = df.attrs.get("request") or {}
    interval = request.get("interval") if request.get("interval") in PERIOD_STEPS else "day"
    open_count = open_periods(df.attrs, pd.Series(dates), interval)
    statuses = [status for status in LIFECYCLE_STATUSES if status in set(tidy["status"])]
    above = np.zeros(len(dates))
    below = np.zeros(len(dates))
    for status in statuses:
        rows = tidy[tidy["status"] == status]
        values = np.zeros(len(dates))
        for stamp, value in zip(rows["date"], rows["value"], strict=True):
            values[position[stamp]] = 0.0 if pd.isna(value) else float(value)
        dormant = status == "dormant"
        bottom = np.zeros(len(dates)) if dormant else above.copy()
        color = LIFECYCLE_COLORS[status]
        bars = ax.bar(np.arange(len(dates)), values, width=0.8, bottom=bottom, label=status, color=color)
        for bar in bars.patches[len(dates) - open_count :] if open_count else []:
            mark_bar_in_progress(bar, color)
        if dormant:
            below += values
        else:
            above += values
    # limits from the stacks: an empty segment on top of a stack would otherwise pin the axis to its top
    top, bottom = float(above.max(initial=0.0)), float(below.min(initial=0.0))
    ax.set_ylim(bottom * 1.08, top * 1.08 if top > 0 or bottom < 0 else 1.0)
    ax.axhline(0.0, color="0.3", linewidth=0.8)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    integer_ticks(ax)
    ax.set_ylabel("Groups" if request.get("aggregation_group_type_index") is not None else "Persons")
    date_bar_ticks(ax, list(local_dates(pd.Series(dates))))
    place_legend(ax, len(statuses), below=True)
    return literal_text(ax)
