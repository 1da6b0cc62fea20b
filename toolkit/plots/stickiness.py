"""`plot_stickiness`: bars by number of intervals active, one bar of each group per series or breakdown value."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from ..labels import breakdown_label, bucket_rank
from .bars import bar_ticks
from .style import (
    integer_ticks,
    literal_text,
    new_axes,
    no_data,
    overlapping,
    place_legend,
    request_title,
    series_colors,
    start_at_zero,
)

__all__ = ["MAX_LABELLED_BARS", "plot_stickiness"]

MAX_LABELLED_BARS = 40
"""More bars than this and none carries its count (the axis reads them)."""
_INTERVAL_WORDS = {"hour": "Hours", "day": "Days", "week": "Weeks", "month": "Months"}


def _tidy(df: pd.DataFrame) -> pd.DataFrame:
    """`Client.stickiness`'s frame in its tidy form, whichever form it came in."""
    if {"intervals", "series", "value"} <= set(df.columns):
        return df
    if df.index.name == "intervals":
        long = df.reset_index().melt(id_vars="intervals", var_name="series", value_name="value")
        return long.assign(interval_label=pd.NA)
    raise ValueError("plot_stickiness takes the frame of Client.stickiness (tidy, or wide=True)")


def _optional(row: Mapping[str, Any], name: str) -> str | None:
    value = row.get(name)
    return None if value is None or pd.isna(value) else str(value)


def _actors_word(request: Mapping[str, Any]) -> str:
    """What the bars count: groups when the request counts groups, else persons."""
    entities = [*request.get("events", []), *request.get("actions", [])]
    by_group = any(isinstance(entity, Mapping) and entity.get("math") == "unique_group" for entity in entities)
    return "Groups" if by_group or request.get("aggregation_group_type_index") is not None else "Persons"


def _axis_label(request: Mapping[str, Any]) -> str:
    words = _INTERVAL_WORDS.get(str(request.get("interval") or "day"), "Intervals")
    return f"{words} active" + (" (or more)" if request.get("computed_as") == "cumulative" else "")


def _label_bars(ax: Axes, containers: list[Any], counts: bool) -> None:
    """Each bar's count above it, unless there are too many bars or two labels would touch."""
    bars = sum(len(container.patches) for container in containers)
    if not bars or bars > MAX_LABELLED_BARS:
        return
    texts = []
    for container in containers:
        heights = [patch.get_height() for patch in container.patches]
        # an empty bar says nothing its missing bar does not: no "0" piled along the axis
        shown = ["" if height == 0 else f"{int(height):,}" if counts else f"{height:,.2f}" for height in heights]
        texts += ax.bar_label(container, labels=shown, padding=2, fontsize="small")
    tallest = max(patch.get_height() for container in containers for patch in container.patches)
    if tallest > 0:  # room above the tallest bar for its count
        ax.set_ylim(top=max(ax.get_ylim()[1], tallest * 1.12))
    if overlapping([text.get_window_extent() for text in texts if text.get_text()]):
        for text in texts:
            text.remove()


def plot_stickiness(df: pd.DataFrame, ax: Axes | None = None, *, title: str | None = None) -> Axes:
    """Plot a stickiness frame from `Client.stickiness` as grouped bars.

    One group of bars per number of intervals (``1 day``, ``2 days``, ...: the API's labels, thinned to stay
    readable), one bar in each group per series, breakdown value (``None`` and ``Other`` for PostHog's
    buckets, last) and compare period (the previous period hatched and faded in its current series' colour).
    Each bar is the number of actors active in exactly that many intervals (that many or more when the
    request was cumulative) and carries its count while the labels fit (an empty bar none).

    Parameters
    ----------
    df : pandas.DataFrame
        A stickiness frame (tidy ``intervals, interval_label, series, [breakdown_value], [compare_label],
        value``, or its ``wide=True`` form).
    ax : matplotlib.axes.Axes, optional
        Where to draw; by default a new figure's Axes.
    title : str, optional
        By default ``Stickiness of`` the request's series (and breakdown).

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.containers`` holds one bar container per plotted series, labelled as the legend reads.

    Examples
    --------
    >>> frame = pd.DataFrame({"intervals": [1, 2, 3], "interval_label": ["1 day", "2 days", "3 days"],
    ...     "series": "signup", "value": [5, 2, 1]})
    >>> [float(bar.get_height()) for bar in plot_stickiness(frame).patches]
    [5.0, 2.0, 1.0]
    """
    tidy = _tidy(df)
    ax = new_axes(ax, figsize=(8.0, 4.5))
    request = df.attrs.get("request") or {}
    if title is None:
        named = request_title(df.attrs)
        title = f"Stickiness of {named}" if named else "Stickiness"
    ax.set_title(title)
    if tidy.empty:
        return literal_text(no_data(ax))
    names = df.attrs.get("breakdown_labels")
    groups: dict[tuple[str, str | None, str | None], pd.DataFrame] = {}
    keys = [
        (str(row["series"]), _optional(row, "breakdown_value"), _optional(row, "compare_label"))
        for row in tidy.to_dict("records")
    ]
    for key in dict.fromkeys(keys):
        groups[key] = tidy[[found == key for found in keys]]
    first: dict[str, int] = {}
    for number, key in enumerate(groups):
        first.setdefault(key[0], number)
    # each series' values in the API's order (by count), then its None and Other buckets
    order = sorted(groups, key=lambda key: (first[key[0]], bucket_rank(key[1])))
    bases = list(dict.fromkeys((name, breakdown) for name, breakdown, _ in order))
    colors = dict(zip(bases, series_colors(len(bases)), strict=True))
    intervals = sorted({int(value) for value in tidy["intervals"].dropna()})
    position = {value: number for number, value in enumerate(intervals)}
    width = 0.8 / len(order)
    containers = []
    for offset, (name, breakdown, compare) in enumerate(order):
        rows = groups[(name, breakdown, compare)]
        label = name + (f" - {breakdown_label(breakdown, names)}" if breakdown is not None else "")
        label += f" ({compare})" if compare is not None else ""
        previous = compare == "previous"
        xs = np.array([position[int(value)] for value in rows["intervals"]], dtype=float) - 0.4 + width * (offset + 0.5)
        containers.append(
            ax.bar(
                xs,
                rows["value"].to_numpy(dtype="float64"),
                width=width,
                label=label,
                color=colors[(name, breakdown)],
                alpha=0.5 if previous else 1.0,
                hatch="//" if previous else None,
            )
        )
    heights = np.array([patch.get_height() for patch in ax.patches], dtype="float64")
    counts = bool(np.all(heights == np.round(heights)))
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    start_at_zero(ax, heights)
    if counts:
        integer_ticks(ax)
    ax.set_xlabel(_axis_label(request))
    ax.set_ylabel(_actors_word(request))
    labels = _interval_labels(tidy, intervals)
    bar_ticks(ax, labels)
    place_legend(ax, len(order), below=True)
    _label_bars(ax, containers, counts)
    return literal_text(ax)


def _interval_labels(tidy: pd.DataFrame, intervals: list[int]) -> list[str]:
    """The API's label of each number of intervals (``2 days``), else the number itself."""
    known: dict[int, str] = {}
    if "interval_label" in tidy.columns:
        for value, label in zip(tidy["intervals"], tidy["interval_label"], strict=True):
            if not pd.isna(value) and not pd.isna(label):
                known.setdefault(int(value), str(label))
    return [known.get(value, str(value)) for value in intervals]
