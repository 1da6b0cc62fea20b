"""Funnel plots: step bars with counts and conversion, time-to-convert histograms, conversion over time."""

from __future__ import annotations

import matplotlib
import matplotlib.dates as mdates
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.ticker import PercentFormatter

from .plot_style import (
    format_count,
    format_percent,
    local_dates,
    new_axes,
    no_data,
    place_legend,
    plain,
    request_title,
)

__all__ = ["format_duration", "plot_funnel", "plot_funnel_trends", "plot_time_to_convert"]

_UNITS = (("seconds", 1.0), ("minutes", 60.0), ("hours", 3600.0), ("days", 86400.0))


def format_duration(value: pd.Timedelta) -> str:
    """A duration in its two largest units: ``1m 30s``, ``2h 5m``, ``3d 4h``; ``-`` when NaT.

    Examples
    --------
    >>> format_duration(pd.Timedelta(seconds=90)), format_duration(pd.Timedelta(hours=50))
    ('1m 30s', '2d 2h')
    """
    if pd.isna(value):
        return "-"
    seconds = int(round(value.total_seconds()))
    parts: list[tuple[int, str]] = []
    for name, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        amount, seconds = divmod(seconds, size)
        if amount or parts:
            parts.append((amount, name))
        if len(parts) == 2:
            break
    return " ".join(f"{amount}{name}" for amount, name in parts if amount) or "0s"


def _groups(df: pd.DataFrame) -> list[tuple[str | None, pd.DataFrame]]:
    if "breakdown_value" not in df.columns or df["breakdown_value"].isna().all():
        return [(None, df)]
    labels = df["breakdown_value"].astype(object).where(df["breakdown_value"].notna(), "(none)")
    return [(plain(str(label)), rows) for label, rows in df.groupby(labels, sort=False)]


def plot_funnel(
    df: pd.DataFrame, ax: Axes | None = None, *, orientation: str = "vertical", title: str | None = None
) -> Axes:
    """Plot funnel steps from `Client.funnel`: a bar per step with its count and conversion percentage.

    With a breakdown, each step has one bar per breakdown value, side by side, and a legend.

    Parameters
    ----------
    df : pandas.DataFrame
        A funnel steps frame (``breakdown_value, step, name, count, conversion_rate, ...``).
    ax : matplotlib.axes.Axes, optional
    orientation : str
        ``vertical`` (steps left to right) or ``horizontal`` (steps top to bottom).
    title : str, optional
        By default the steps joined with arrows, from the request in ``df.attrs``.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> steps = pd.DataFrame({"breakdown_value": [pd.NA, pd.NA], "step": [1, 2], "name": ["signup", "pay"],
    ...                       "count": [10, 4], "conversion_rate": [1.0, 0.4]})
    >>> [float(patch.get_height()) for patch in plot_funnel(steps).patches]
    [10.0, 4.0]
    """
    if orientation not in ("vertical", "horizontal"):
        raise ValueError(f"orientation must be vertical or horizontal; got {orientation!r}")
    ax = new_axes(ax)
    heading = title if title is not None else request_title(df.attrs)
    if heading:
        ax.set_title(plain(heading))
    if df.empty:
        return no_data(ax)
    groups = _groups(df)
    steps = df.drop_duplicates("step").sort_values("step")
    positions = {int(step): index for index, step in enumerate(steps["step"])}
    names = [plain(f"{int(step)}. {name}") for step, name in zip(steps["step"], steps["name"], strict=True)]
    width = 0.8 / max(1, len(groups))
    cycle = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    for offset, (label, rows) in enumerate(groups):
        rows = rows.sort_values("step")
        xs = np.array([positions[int(step)] for step in rows["step"]], dtype=float) - 0.4 + width * (offset + 0.5)
        counts = rows["count"].astype("float64").fillna(0).to_numpy()
        rates = rows["conversion_rate"].to_numpy(dtype="float64")
        color = cycle[offset % len(cycle)]
        if orientation == "vertical":
            bars = ax.bar(xs, counts, width=width, label=label, color=color)
            texts = [
                f"{format_count(count)}\n{format_percent(rate)}" for count, rate in zip(counts, rates, strict=True)
            ]
        else:
            bars = ax.barh(xs, counts, height=width, label=label, color=color)
            texts = [
                f"{format_count(count)} ({format_percent(rate)})" for count, rate in zip(counts, rates, strict=True)
            ]
        ax.bar_label(bars, labels=texts, padding=2, fontsize="small")
    if orientation == "vertical":
        ax.set_xticks(range(len(names)), names)
        ax.set_ylabel("Persons")
        ax.margins(y=0.2)
        ax.grid(axis="y", alpha=0.3)
    else:
        ax.set_yticks(range(len(names)), names)
        ax.invert_yaxis()
        ax.set_xlabel("Persons")
        ax.margins(x=0.25)
        ax.grid(axis="x", alpha=0.3)
    if groups[0][0] is not None:
        place_legend(ax, len(groups))
    return ax


def _unit(longest: float) -> tuple[str, float]:
    for name, size in reversed(_UNITS):
        if longest >= 2 * size:
            return name, size
    return _UNITS[0]


def plot_time_to_convert(df: pd.DataFrame, ax: Axes | None = None, *, title: str | None = None) -> Axes:
    """Plot a time-to-convert histogram (`Client.funnel` with ``funnel_viz_type="time_to_convert"``).

    Bars span each bin (in seconds, minutes, hours or days, whichever reads best), and a dashed line marks
    the average from ``df.attrs["average_conversion_time"]``.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> bins = pd.DataFrame({"bin_start": pd.to_timedelta([0, 60], unit="s"),
    ...                      "bin_end": pd.to_timedelta([60, 120], unit="s"), "count": [2, 1]})
    >>> [float(patch.get_height()) for patch in plot_time_to_convert(bins).patches]
    [2.0, 1.0]
    """
    ax = new_axes(ax)
    heading = title if title is not None else request_title(df.attrs)
    ax.set_title(plain(f"Time to convert: {heading}") if heading else "Time to convert")
    if df.empty:
        return no_data(ax)
    starts = df["bin_start"].dt.total_seconds().to_numpy(dtype="float64")
    ends = df["bin_end"].dt.total_seconds().to_numpy(dtype="float64")
    longest = float(np.nanmax(np.concatenate([starts, ends]))) if len(starts) else 0.0
    name, size = _unit(longest)
    widths = np.where(np.isnan(ends), np.maximum(starts * 0.1, size), ends - starts)
    ax.bar(
        starts / size,
        df["count"].astype("float64").fillna(0).to_numpy(),
        width=widths / size,
        align="edge",
        edgecolor="white",
    )
    average = df.attrs.get("average_conversion_time")
    if average is not None and not pd.isna(average):
        ax.axvline(
            average.total_seconds() / size,
            color="black",
            linestyle="--",
            label=f"Average {format_duration(average)}",
        )
        ax.legend(frameon=False)
    ax.set_xlabel(f"Time to convert ({name})")
    ax.set_ylabel("Persons")
    ax.grid(axis="y", alpha=0.3)
    return ax


def plot_funnel_trends(df: pd.DataFrame, ax: Axes | None = None, *, title: str | None = None) -> Axes:
    """Plot conversion over time (`Client.funnel` with ``funnel_viz_type="trends"``): a line per breakdown.

    Returns
    -------
    matplotlib.axes.Axes
        The y axis reads in percent (0-100%).

    Examples
    --------
    >>> rates = pd.DataFrame({"date": pd.to_datetime(["2026-01-01", "2026-01-02"], utc=True),
    ...                       "breakdown_value": pd.NA, "conversion_rate": [0.25, 0.5]})
    >>> plot_funnel_trends(rates).get_lines()[0].get_ydata().tolist()
    [0.25, 0.5]
    """
    ax = new_axes(ax)
    heading = title if title is not None else request_title(df.attrs)
    ax.set_title(plain(f"Conversion: {heading}") if heading else "Conversion over time")
    rates = df["conversion_rate"].to_numpy(dtype="float64")
    if np.isnan(rates).all():
        return no_data(ax)
    groups = _groups(df)
    for label, rows in groups:
        ax.plot(
            local_dates(rows["date"]).to_numpy(),
            rows["conversion_rate"].to_numpy(dtype="float64"),
            label=label,
            marker="o" if len(rows) == 1 else None,
        )
    locator = mdates.AutoDateLocator()
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))
    ax.yaxis.set_major_formatter(PercentFormatter(xmax=1.0))
    top = float(np.nanmax(rates))
    ax.set_ylim(0, max(1.0, top) * 1.05 if top > 0.5 else max(top * 1.2, 0.05))
    ax.set_ylabel("Conversion rate")
    ax.grid(axis="y", alpha=0.3)
    if groups[0][0] is not None:
        place_legend(ax, len(groups))
    return ax
