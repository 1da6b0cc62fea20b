"""`plot_trend`: a trend frame as lines, cumulative lines, grouped bars, value bars, a pie or one bold number."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from .bars import date_bar_ticks, mark_bar_in_progress
from .periods import IN_PROGRESS, draw_line
from .style import (
    format_count,
    format_percent,
    integer_ticks,
    literal_text,
    new_axes,
    no_data,
    place_legend,
    readable_dates,
    request_title,
    start_at_zero,
)
from .trend_series import (
    PlottedSeries,
    are_counts,
    colors_by_base,
    label_changes,
    overlay_previous,
    ranked_totals,
    tidy_trend,
    totals,
    trend_series,
)

__all__ = ["DISPLAY_KINDS", "IN_PROGRESS", "TREND_KINDS", "plot_trend"]

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
CUMULATIVE_DISPLAY = "ActionsLineGraphCumulative"
_PIE_TEXT_MIN = 0.05
"""Wedges smaller than this share carry no percentage inside (it would not fit); the legend has it."""


def _draw_line(ax: Axes, item: PlottedSeries, values: np.ndarray, color: str) -> None:
    """The series as a line; the periods still open when the answer was computed get a dashed last segment."""
    draw_line(
        ax,
        item.dates.to_numpy(),
        values,
        label=item.label,
        color=color,
        incomplete=item.incomplete,
        faded=item.previous,
    )


def _plot_lines(ax: Axes, series: list[PlottedSeries], *, accumulate: bool, counts: bool) -> None:
    colors = colors_by_base(series)
    for item in series:
        _draw_line(ax, item, np.nancumsum(item.values) if accumulate else item.values, colors[item.base])
    ax.grid(axis="y", alpha=0.3)
    start_at_zero(ax, np.concatenate([line.get_ydata() for line in ax.get_lines()]).astype("float64"))
    if counts:
        integer_ticks(ax)
    readable_dates(ax)


def _plot_bars(ax: Axes, series: list[PlottedSeries], *, counts: bool) -> None:
    colors = colors_by_base(series)
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
        bars = ax.bar(
            xs,
            [value for _, value in known],
            width=width,
            label=item.label,
            color=colors[item.base],
            alpha=0.5 if item.previous else 1.0,
            hatch="//" if item.previous else None,
        )
        if item.incomplete and not item.previous:
            for bar in bars.patches[-item.incomplete :]:
                mark_bar_in_progress(bar, colors[item.base])
    ax.grid(axis="y", alpha=0.3)
    start_at_zero(ax, np.array([patch.get_height() for patch in ax.patches], dtype="float64"))
    if counts:
        integer_ticks(ax)
    date_bar_ticks(ax, dates)


def _plot_value_bars(ax: Axes, series: list[PlottedSeries], *, running: bool, counts: bool) -> None:
    colors = colors_by_base(series)
    ranked = ranked_totals(series, running=running)
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
    start_at_zero(ax, np.array([total for _, total in ranked], dtype="float64"), axis="x")
    ax.margins(x=0.15)
    if counts:
        integer_ticks(ax, axis="x")


def _plot_pie(ax: Axes, series: list[PlottedSeries], *, running: bool) -> None:
    """Wedges with their share inside when it fits; names, totals and shares in the legend beside it, so
    small wedges' labels never pile up."""
    colors = colors_by_base(series)
    slices = [(item, total) for item, total in ranked_totals(series, running=running) if total > 0]
    if not slices:
        no_data(ax)
        return
    grand = sum(total for _, total in slices)
    wedges, _texts, _shares = ax.pie(
        [total for _, total in slices],
        colors=[colors[item.base] for item, _ in slices],
        autopct=lambda pct: format_percent(pct / 100) if pct >= _PIE_TEXT_MIN * 100 else "",
        pctdistance=0.72,
        startangle=90,
        counterclock=False,
        wedgeprops={"linewidth": 1, "edgecolor": "white"},
        textprops={"fontsize": "small"},
    )
    for empty in _texts:  # the names go to the legend
        empty.remove()
    for wedge, (item, total) in zip(wedges, slices, strict=True):
        # a label that names its math already holds a colon ("purchase: sum of amount"): a dash reads better
        joint = " \u2014 " if ": " in item.label else ": "
        wedge.set_label(f"{item.label}{joint}{format_count(total)} ({format_percent(total / grand)})")
    ax.set_aspect("equal")
    ax.set_anchor("W")
    ax.set_xlabel(f"Total {format_count(grand)}")
    place_legend(ax, len(slices), beside=True)


def _plot_number(ax: Axes, series: list[PlottedSeries], *, running: bool) -> None:
    current = next((item for item in series if not item.previous), series[0])
    total = totals([current], running=running)[0][1]
    ax.text(0.5, 0.58, format_count(total), ha="center", va="center", fontsize=48, fontweight="bold")
    name = current.label.removesuffix(" (current)")
    if name != ax.get_title():  # the title already names it: say it once
        ax.text(0.5, 0.3, name, ha="center", va="center", fontsize=14)
    previous = next((item for item in series if item.previous and item.base == current.base), None)
    if previous is not None:
        before = totals([previous], running=running)[0][1]
        change = "" if before == 0 else f" ({'+' if total >= before else ''}{format_percent(total / before - 1)})"
        ax.text(0.5, 0.15, f"Previous period {format_count(before)}{change}", ha="center", va="center", fontsize=11)
    ax.set_axis_off()


def plot_trend(df: pd.DataFrame, ax: Axes | None = None, *, kind: str | None = None, title: str | None = None) -> Axes:
    """Plot a trend frame from `Client.trend` (tidy, or ``wide=True``).

    One line (or bar group) per series; breakdown values get their own series and colours (``None`` and
    ``Other`` for PostHog's null and other buckets, after the values, Other last), and a compare period's
    previous series is drawn dashed (hatched for bars) in its current series' colour, over the current
    period's dates, and the current series' label says the change on the previous period in percent.
    Periods that had not ended when the backend computed the answer (``attrs["last_refresh"]``) get a
    dashed last segment, as PostHog draws them, or a light bar in a dashed outline, so a partial day does
    not read as a drop. Counts get whole-number ticks, and axes of non-negative values start at 0; date
    labels read alone (``Jan 05``), with no offset text under the axis.

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
        The backend answers ``ActionsLineGraphCumulative`` with running totals: those are drawn as they
        are (and their last value is the total); ``cumulative`` on any other frame adds the values up.
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
    tidy = tidy_trend(df)
    display = (df.attrs.get("request") or {}).get("display")
    if kind is None:
        kind = DISPLAY_KINDS.get(display or "", "line")
    if kind not in TREND_KINDS:
        raise ValueError(f"kind must be one of {', '.join(TREND_KINDS)}; got {kind!r}")
    # with the cumulative display the backend already answers running totals
    running = display == CUMULATIVE_DISPLAY
    aggregated = bool(df.attrs.get("aggregated")) or (len(tidy) > 0 and tidy["date"].isna().all())
    if aggregated and kind in _TIME_KINDS:
        kind = "bar_value"
    ax = new_axes(ax, figsize=(6.0, 4.5) if kind == "number" else (8.0, 4.5))
    heading = title if title is not None else request_title(df.attrs)
    if heading:
        ax.set_title(heading)
    series = trend_series(tidy, df.attrs)
    if not series:
        no_data(ax)
        return literal_text(ax)
    counts = are_counts(df.attrs, series)
    if kind in _TIME_KINDS:
        overlay_previous(series)
        label_changes(series, running=running or kind == "cumulative")
        if kind == "bar":
            _plot_bars(ax, series, counts=counts)
        else:
            _plot_lines(ax, series, accumulate=kind == "cumulative" and not running, counts=counts)
        place_legend(ax, len(series))
    elif kind == "bar_value":
        _plot_value_bars(ax, series, running=running, counts=counts)
    elif kind == "pie":
        _plot_pie(ax, series, running=running)
    else:
        _plot_number(ax, series, running=running)
    return literal_text(ax)
