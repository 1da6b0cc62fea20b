"""A trend frame read as the series `plot_trend` draws: labels, colours, totals and the periods still open.

`tidy_trend` takes either form of `Client.trend`'s frame; `trend_series` groups it into one `PlottedSeries` per
series, breakdown value and compare period, in the API's order; the rest answer what each kind of plot
asks of those series (their totals, their colours, whether the values are counts).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..frames.results import complete_trend_frame
from ..labels import breakdown_label, bucket_rank
from .periods import PERIOD_STEPS, open_periods
from .style import format_percent, is_count, local_dates, series_colors

__all__ = [
    "PlottedSeries",
    "are_counts",
    "colors_by_base",
    "label_changes",
    "overlay_previous",
    "ranked_totals",
    "tidy_trend",
    "totals",
    "trend_series",
]

_COUNT_MATHS = {None, "total", "dau", "weekly_active", "monthly_active", "unique_group", "unique_session", "sum"}


@dataclass
class PlottedSeries:
    """One line, bar group, wedge or number of a trend plot: a series, breakdown value and compare period."""

    label: str
    base: tuple[str, str | None]
    previous: bool
    dates: pd.Series
    values: np.ndarray
    incomplete: int = 0
    """How many of the last points are periods that had not ended when the answer was computed."""


def tidy_trend(df: pd.DataFrame) -> pd.DataFrame:
    """`Client.trend`'s frame in its tidy form (``date, series, breakdown_value, compare_label, value``)."""
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


def _interval(attrs: dict, dates: pd.Series) -> str:
    """The request's interval, else the one the dates are spaced by (PostHog's default: day)."""
    interval = (attrs.get("request") or {}).get("interval")
    if interval in PERIOD_STEPS:
        return interval
    gaps = dates.sort_values().diff().dropna()
    gap = gaps[gaps > pd.Timedelta(0)].min() if len(gaps) else pd.NaT
    if pd.isna(gap):
        return "day"
    if gap <= pd.Timedelta(hours=1):
        return "hour"
    if gap < pd.Timedelta(days=7):
        return "day"
    return "week" if gap < pd.Timedelta(days=28) else "month"


def trend_series(tidy: pd.DataFrame, attrs: dict) -> list[PlottedSeries]:
    """The plotted series of a tidy trend frame (``attrs`` its request and when it was computed), in the API's
    order."""
    groups: dict[tuple[str, str | None, str | None], list[int]] = {}
    keys = zip(tidy["series"], tidy["breakdown_value"], tidy["compare_label"], strict=True)
    for position, (name, breakdown, compare) in enumerate(keys):
        groups.setdefault((str(name), _optional(breakdown), _optional(compare)), []).append(position)
    interval = _interval(attrs, tidy["date"].dropna()) if len(tidy) else "day"
    names = attrs.get("breakdown_labels")
    # the columns taken apart once, each series' rows taken from them (taking rows of the frame would copy
    # its attrs for every series and every column read)
    dates = tidy["date"].reset_index(drop=True)
    shown = local_dates(dates)
    values = tidy["value"].to_numpy(dtype="float64")
    found: list[PlottedSeries] = []
    for (name, breakdown, compare), positions in groups.items():
        label = name + (f" - {breakdown_label(breakdown, names)}" if breakdown is not None else "")
        label += f" ({compare})" if compare is not None else ""
        found.append(
            PlottedSeries(
                label=label,
                base=(name, breakdown),
                previous=compare == "previous",
                dates=shown.iloc[positions].reset_index(drop=True),
                values=values[positions],
                incomplete=open_periods(attrs, dates.iloc[positions].reset_index(drop=True), interval),
            )
        )
    # each series' breakdown values in the API's order (by count), then its None and Other buckets
    first = {name: position for position, name in reversed(list(enumerate(item.base[0] for item in found)))}
    return sorted(found, key=lambda item: (first[item.base[0]], bucket_rank(item.base[1])))


def ranked_totals(series: list[PlottedSeries], *, running: bool) -> list[tuple[PlottedSeries, float]]:
    """Series by total, largest first, then the None and Other buckets (Other last), as PostHog's value
    bars and pies order them."""
    return sorted(totals(series, running=running), key=lambda pair: (bucket_rank(pair[0].base[1]), -pair[1]))


def overlay_previous(series: list[PlottedSeries]) -> None:
    """Draw a previous period over the current one: same positions, so day 1 sits on day 1."""
    current = {item.base: item for item in series if not item.previous}
    for item in series:
        match = current.get(item.base)
        if item.previous and match is not None and len(match.dates) == len(item.dates):
            item.dates = match.dates


def label_changes(series: list[PlottedSeries], *, running: bool) -> None:
    """Name the change on the previous period in each current series' label, as PostHog's compared trend
    does: ``$pageview (current, +12.5%)``; none when the previous period had nothing to compare with."""
    previous = {item.base: item for item in series if item.previous}
    for item in series:
        before = previous.get(item.base)
        if item.previous or before is None:
            continue
        now, then = totals([item], running=running)[0][1], totals([before], running=running)[0][1]
        if then == 0:
            continue
        change = now / then - 1
        text = f"{'+' if change >= 0 else ''}{format_percent(change)}"
        if item.label.endswith(" (current)"):
            item.label = f"{item.label.removesuffix(' (current)')} (current, {text})"
        else:
            item.label = f"{item.label} ({text})"


def colors_by_base(series: list[PlottedSeries]) -> dict[tuple[str, str | None], str]:
    """One colour per series and breakdown value, shared by its current and previous periods."""
    bases = list(dict.fromkeys(item.base for item in series))
    return dict(zip(bases, series_colors(len(bases)), strict=True))


def totals(series: list[PlottedSeries], *, running: bool) -> list[tuple[PlottedSeries, float]]:
    """Each series' total: the sum of its values, or the last one when the values are running totals."""
    if running:
        return [(item, float(item.values[np.isfinite(item.values)][-1:].sum())) for item in series]
    return [(item, float(np.nansum(item.values))) for item in series]


def are_counts(attrs: dict, series: list[PlottedSeries]) -> bool:
    """Whether the plotted values are counts (whole-number ticks): no formula, a counting math, whole values."""
    request = attrs.get("request") or {}
    entities = [*request.get("events", []), *request.get("actions", [])]
    maths = {entity.get("math") for entity in entities if isinstance(entity, dict)}
    if request.get("formula") or not maths <= _COUNT_MATHS:
        return False
    return all(is_count(item.values) for item in series)
