"""`plot_trend`: a trend frame as lines, cumulative lines, grouped bars, value bars, a pie or one bold number."""

from __future__ import annotations

import math
from dataclasses import dataclass

import matplotlib
import matplotlib.dates as mdates
import numpy as np
import pandas as pd
from matplotlib.axes import Axes

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
from .result_frames import complete_trend_frame

__all__ = ["DISPLAY_KINDS", "TREND_KINDS", "plot_trend"]

TREND_KINDS = ("line", "cumulative", "bar", "bar_value", "pie", "number")
"""The values `plot_trend` accepts for ``kind``."""

DISPLAY_KINDS: dict[str, str] = {
    "ActionsLineGraph": "line",
    "ActionsAreaGraph": "line",
    "ActionsLineGraphCumulative": "cumulative",
    "ActionsBar": "bar",
    "ActionsBarValue": "bar_value",
    "ActionsTable": "bar_value",
    "WorldMap": "bar_value",
    "ActionsPie": "pie",
    "BoldNumber": "number",
}
"""The plot kind for each of PostHog's trend displays (the request's ``display``)."""

_TIME_KINDS = ("line", "cumulative", "bar")
_MAX_BAR_TICKS = 12


@dataclass
class _Series:
    label: str
    base: tuple[str, str | None]
    previous: bool
    dates: pd.Series
    values: np.ndarray


def _tidy(df: pd.DataFrame) -> pd.DataFrame:
    if {"series", "value"} <= set(df.columns):
        return complete_trend_frame(df)  # a plain trend's frame has no breakdown_value nor compare_label
    if isinstance(df.index, pd.DatetimeIndex):
        long = df.rename_axis("date").reset_index().melt(id_vars="date", var_name="series", value_name="value")
        long["breakdown_value"] = pd.NA
        long["compare_label"] = pd.NA
        return long
    raise ValueError("plot_trend takes the frame of Client.trend (tidy, or wide=True with a DatetimeIndex)")


def _optional(value: object) -> str | None:
    return None if value is None or pd.isna(value) else str(value)


def _series(tidy: pd.DataFrame) -> list[_Series]:
    groups: dict[tuple[str, str | None, str | None], list[int]] = {}
    keys = zip(tidy["series"], tidy["breakdown_value"], tidy["compare_label"], strict=True)
    for position, (name, breakdown, compare) in enumerate(keys):
        groups.setdefault((str(name), _optional(breakdown), _optional(compare)), []).append(position)
    found: list[_Series] = []
    for (name, breakdown, compare), positions in groups.items():
        rows = tidy.iloc[positions]
        label = name + (f" - {breakdown}" if breakdown is not None else "")
        label += f" ({compare})" if compare is not None else ""
        found.append(
            _Series(
                label=plain(label),
                base=(name, breakdown),
                previous=compare == "previous",
                dates=local_dates(rows["date"]).reset_index(drop=True),
                values=rows["value"].to_numpy(dtype="float64"),
            )
        )
    return found


def _overlay_previous(series: list[_Series]) -> None:
    """Draw a previous period over the current one: same positions, so day 1 sits on day 1."""
    current = {item.base: item for item in series if not item.previous}
    for item in series:
        match = current.get(item.base)
        if item.previous and match is not None and len(match.dates) == len(item.dates):
            item.dates = match.dates


def _colors(series: list[_Series]) -> dict[tuple[str, str | None], str]:
    cycle = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    bases = list(dict.fromkeys(item.base for item in series))
    return {base: cycle[index % len(cycle)] for index, base in enumerate(bases)}


def _totals(series: list[_Series]) -> list[tuple[_Series, float]]:
    return [(item, float(np.nansum(item.values))) for item in series]


def _plot_lines(ax: Axes, series: list[_Series], *, cumulative: bool) -> None:
    colors = _colors(series)
    for item in series:
        values = np.nancumsum(item.values) if cumulative else item.values
        ax.plot(
            item.dates.to_numpy(),
            values,
            label=item.label,
            color=colors[item.base],
            linestyle="--" if item.previous else "-",
            alpha=0.6 if item.previous else 1.0,
            marker="o" if len(values) == 1 else None,
        )
    locator = mdates.AutoDateLocator()
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))
    ax.set_ylim(bottom=min(0.0, ax.get_ylim()[0]))
    ax.grid(axis="y", alpha=0.3)


def _date_text(dates: list[pd.Timestamp]) -> list[str]:
    spread = dates[-1] - dates[0] if len(dates) > 1 else pd.Timedelta(0)
    hourly = any(stamp.hour or stamp.minute for stamp in dates)
    fmt = "%b %d %H:%M" if hourly else ("%b %Y" if spread > pd.Timedelta(days=400) else "%b %d")
    return [stamp.strftime(fmt) for stamp in dates]


def _plot_bars(ax: Axes, series: list[_Series]) -> None:
    colors = _colors(series)
    dates = sorted({stamp for item in series if not item.previous for stamp in item.dates})
    if not dates:
        dates = sorted({stamp for item in series for stamp in item.dates})
    position = {stamp: index for index, stamp in enumerate(dates)}
    width = 0.8 / len(series)
    for offset, item in enumerate(series):
        known = [
            (position[stamp], value) for stamp, value in zip(item.dates, item.values, strict=True) if stamp in position
        ]
        xs = np.array([x for x, _ in known], dtype=float) - 0.4 + width * (offset + 0.5)
        ax.bar(
            xs,
            [value for _, value in known],
            width=width,
            label=item.label,
            color=colors[item.base],
            alpha=0.5 if item.previous else 1.0,
            hatch="//" if item.previous else None,
        )
    step = max(1, math.ceil(len(dates) / _MAX_BAR_TICKS))
    ticks = list(range(0, len(dates), step))
    ax.set_xticks(ticks, [_date_text(dates)[index] for index in ticks])
    ax.grid(axis="y", alpha=0.3)


def _plot_value_bars(ax: Axes, series: list[_Series]) -> None:
    colors = _colors(series)
    ranked = sorted(_totals(series), key=lambda pair: -pair[1])
    positions = np.arange(len(ranked))[::-1]
    bars = ax.barh(
        positions,
        [total for _, total in ranked],
        color=[colors[item.base] for item, _ in ranked],
        alpha=0.9,
    )
    ax.set_yticks(positions, [item.label for item, _ in ranked])
    ax.bar_label(bars, labels=[format_count(total) for _, total in ranked], padding=3)
    ax.grid(axis="x", alpha=0.3)
    ax.margins(x=0.15)


def _plot_pie(ax: Axes, series: list[_Series]) -> None:
    colors = _colors(series)
    slices = [(item, total) for item, total in _totals(series) if total > 0]
    if not slices:
        no_data(ax)
        return
    grand = sum(total for _, total in slices)
    ax.pie(
        [total for _, total in slices],
        labels=[f"{item.label} ({format_count(total)})" for item, total in slices],
        colors=[colors[item.base] for item, _ in slices],
        autopct=lambda pct: format_percent(pct / 100) if pct >= 3 else "",
        startangle=90,
        counterclock=False,
        wedgeprops={"linewidth": 1, "edgecolor": "white"},
    )
    ax.set_aspect("equal")
    ax.set_xlabel(f"Total {format_count(grand)}")


def _plot_number(ax: Axes, series: list[_Series]) -> None:
    current = next((item for item in series if not item.previous), series[0])
    total = float(np.nansum(current.values))
    ax.text(0.5, 0.58, format_count(total), ha="center", va="center", fontsize=48, fontweight="bold")
    ax.text(0.5, 0.3, current.label.removesuffix(" (current)"), ha="center", va="center", fontsize=14)
    previous = next((item for item in series if item.previous and item.base == current.base), None)
    if previous is not None:
        before = float(np.nansum(previous.values))
        change = "" if before == 0 else f" ({'+' if total >= before else ''}{format_percent(total / before - 1)})"
        ax.text(0.5, 0.15, f"Previous period {format_count(before)}{change}", ha="center", va="center", fontsize=11)
    ax.set_axis_off()


def plot_trend(df: pd.DataFrame, ax: Axes | None = None, *, kind: str | None = None, title: str | None = None) -> Axes:
    """Plot a trend frame from `Client.trend` (tidy, or ``wide=True``).

    One line (or bar group) per series; breakdown values get their own series and colours, and a compare
    period's previous series is drawn dashed (hatched for bars) in its current series' colour, over the
    current period's dates.

    Parameters
    ----------
    df : pandas.DataFrame
        A trend frame (columns ``date, series, breakdown_value, compare_label, value``) or its wide form.
    ax : matplotlib.axes.Axes, optional
        Where to draw; by default a new figure's Axes.
    kind : str, optional
        ``line``, ``cumulative``, ``bar`` (grouped by date), ``bar_value`` (one horizontal bar per series),
        ``pie`` or ``number`` (the first series' total in bold). By default from the request's ``display``
        in ``df.attrs["request"]``, else ``line``; an aggregated frame (one value per series) is drawn as
        ``bar_value`` when a time kind is asked for. Aggregated kinds on a time series sum its values.
    title : str, optional
        By default built from the request (series and breakdown).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> frame = pd.DataFrame({"date": pd.to_datetime(["2026-01-01", "2026-01-02"], utc=True),
    ...     "series": "signup", "breakdown_value": pd.NA, "compare_label": pd.NA, "value": [3.0, 5.0]})
    >>> plot_trend(frame, kind="cumulative").get_lines()[0].get_ydata().tolist()
    [3.0, 8.0]
    """
    tidy = _tidy(df)
    if kind is None:
        display = (df.attrs.get("request") or {}).get("display")
        kind = DISPLAY_KINDS.get(display or "", "line")
    if kind not in TREND_KINDS:
        raise ValueError(f"kind must be one of {', '.join(TREND_KINDS)}; got {kind!r}")
    aggregated = bool(df.attrs.get("aggregated")) or (len(tidy) > 0 and tidy["date"].isna().all())
    if aggregated and kind in _TIME_KINDS:
        kind = "bar_value"
    ax = new_axes(ax, figsize=(6.0, 4.5) if kind in ("pie", "number") else (8.0, 4.5))
    heading = title if title is not None else request_title(df.attrs)
    if heading:
        ax.set_title(plain(heading))
    series = _series(tidy)
    if not series:
        no_data(ax)
        return ax
    if kind in _TIME_KINDS:
        _overlay_previous(series)
        if kind == "bar":
            _plot_bars(ax, series)
        else:
            _plot_lines(ax, series, cumulative=kind == "cumulative")
        place_legend(ax, len(series))
    elif kind == "bar_value":
        _plot_value_bars(ax, series)
    elif kind == "pie":
        _plot_pie(ax, series)
    else:
        _plot_number(ax, series)
    return ax
