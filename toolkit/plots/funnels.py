"""Funnel plots: step bars with counts and conversion, time-to-convert histograms, conversion over time.

Bar labels take the first form that fits without running into each other or into other bars (two lines,
then turned along narrow bars, then the conversion alone, else none)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.patches import Rectangle
from matplotlib.ticker import PercentFormatter
from matplotlib.transforms import Bbox

from ..frames.readable_values import format_duration as readable_duration
from ..labels import breakdown_label, bucket_rank
from .periods import draw_line, still_converting
from .style import (
    format_count,
    format_percent,
    integer_ticks,
    literal_text,
    local_dates,
    new_axes,
    no_data,
    overlapping,
    place_legend,
    readable_dates,
    request_title,
    series_colors,
    start_at_zero,
)

__all__ = ["format_duration", "plot_funnel", "plot_funnel_trends", "plot_time_to_convert"]

_LABEL_SIZE = "small"
_LABEL_PAD = 2.0
"""Points between a bar's end and its label."""
_UNITS = (("seconds", 1.0), ("minutes", 60.0), ("hours", 3600.0), ("days", 86400.0))


def format_duration(value: pd.Timedelta) -> str:
    """A duration as the readable tables show it (two units, rounded); ``-`` when NaT.

    Examples
    --------
    >>> format_duration(pd.Timedelta(seconds=90)), format_duration(pd.Timedelta(hours=50))
    ('1 min 30 s', '2 d 2 h')
    """
    return readable_duration(value) or "-"


def _groups(df: pd.DataFrame) -> list[tuple[str | None, pd.DataFrame]]:
    """Rows per breakdown value, labelled as PostHog shows them (``None``, ``Other`` for its buckets, a
    cohort by its name)."""
    if "breakdown_value" not in df.columns or df["breakdown_value"].isna().all():
        return [(None, df)]
    values = df["breakdown_value"].astype(object).where(df["breakdown_value"].notna(), None)
    groups = [(value, rows) for value, rows in df.groupby(values, sort=False, dropna=False)]
    # the API's order (by count), then the None and Other buckets: Other is always last
    groups.sort(key=lambda group: bucket_rank(group[0]) if group[0] is not None else 1)
    names = df.attrs.get("breakdown_labels")
    return [(breakdown_label(value, names) or "None", rows) for value, rows in groups]


def _vertical_forms() -> list[tuple[float, Callable[[float, float], str]]]:
    return [
        (0.0, lambda count, rate: f"{format_count(count)}\n{format_percent(rate)}"),
        (90.0, lambda count, rate: f"{format_count(count)} ({format_percent(rate)})"),
        (90.0, lambda count, rate: format_percent(rate)),
    ]


def _horizontal_forms() -> list[tuple[float, Callable[[float, float], str]]]:
    return [
        (0.0, lambda count, rate: f"{format_count(count)} ({format_percent(rate)})"),
        (0.0, lambda count, rate: format_percent(rate)),
    ]


def _text_sizes(ax: Axes, contents: list[str], rotation: float) -> dict[str, tuple[float, float]]:
    """The drawn width and height of each distinct label text, in display units."""
    sizes: dict[str, tuple[float, float]] = {}
    for content in dict.fromkeys(contents):
        probe = ax.text(0, 0, content, fontsize=_LABEL_SIZE, rotation=rotation)
        box = probe.get_window_extent()
        probe.remove()
        sizes[content] = (box.width, box.height)
    return sizes


def _make_room(ax: Axes, ends: list[float], extents: list[float], *, vertical: bool, pad: float) -> bool:
    """Stretch the count axis so each label (``extents`` long, past its bar's end ``ends`` in data units)
    stays inside the plot; False when no stretch can do it."""
    span = ax.bbox.height if vertical else ax.bbox.width
    low, high = ax.get_ylim() if vertical else ax.get_xlim()
    needed = high
    for end, extent in zip(ends, extents, strict=True):
        room = span - pad - extent - 2.0
        if room <= 0:
            return False
        needed = max(needed, low + (end - low) * span / room)
    if needed > high:
        (ax.set_ylim if vertical else ax.set_xlim)(low, needed)
    return True


def _label_boxes(bars: list[Rectangle], sizes: list[tuple[float, float]], *, vertical: bool, pad: float) -> list[Bbox]:
    boxes = []
    for bar, (width, height) in zip(bars, sizes, strict=True):
        box = bar.get_window_extent()
        if vertical:
            middle = (box.x0 + box.x1) / 2
            boxes.append(Bbox([[middle - width / 2, box.y1 + pad], [middle + width / 2, box.y1 + pad + height]]))
        else:
            middle = (box.y0 + box.y1) / 2
            boxes.append(Bbox([[box.x1 + pad, middle - height / 2], [box.x1 + pad + width, middle + height / 2]]))
    return boxes


def _fits(ax: Axes, bars: list[Rectangle], boxes: list[Bbox]) -> bool:
    """No label runs into another label, into a bar other than its own, or out of the plot."""
    if overlapping(boxes):
        return False
    extents = [bar.get_window_extent() for bar in bars]
    inside = ax.bbox.expanded(1.0, 1.0)
    for number, box in enumerate(boxes):
        if not (inside.x0 <= box.x0 and box.x1 <= inside.x1 and inside.y0 <= box.y0 and box.y1 <= inside.y1):
            return False
        if any(other != number and box.overlaps(extent) for other, extent in enumerate(extents)):
            return False
    return True


def _label_bars(ax: Axes, bars: list[tuple[Rectangle, float, float]], *, vertical: bool) -> None:
    """Each bar's count and conversion, in the first form that fits: beside the bar, then turned along a
    narrow bar, then the conversion alone, else none (the legend and the frame still have the numbers).

    Label boxes are worked out from the bars' places and the texts' sizes, so only the chosen form is drawn.
    """
    figure = ax.get_figure(root=True)
    pad = _LABEL_PAD * figure.dpi / 72
    patches = [bar for bar, _, _ in bars]
    limits = ax.get_ylim() if vertical else ax.get_xlim()
    for rotation, text_of in _vertical_forms() if vertical else _horizontal_forms():
        contents = [text_of(count, rate) for _, count, rate in bars]
        measured = _text_sizes(ax, contents, rotation)
        sizes = [measured[content] for content in contents]
        ends = [float(bar.get_y() + bar.get_height()) if vertical else float(bar.get_width()) for bar in patches]
        extents = [height if vertical else width for width, height in sizes]
        if _make_room(ax, ends, extents, vertical=vertical, pad=pad) and _fits(
            ax, patches, _label_boxes(patches, sizes, vertical=vertical, pad=pad)
        ):
            for (bar, _, _), content in zip(bars, contents, strict=True):
                if vertical:
                    anchor = (bar.get_x() + bar.get_width() / 2, bar.get_y() + bar.get_height())
                    place = {"ha": "center", "va": "bottom", "xytext": (0, _LABEL_PAD)}
                else:
                    anchor = (bar.get_x() + bar.get_width(), bar.get_y() + bar.get_height() / 2)
                    place = {"ha": "left", "va": "center", "xytext": (_LABEL_PAD, 0)}
                ax.annotate(
                    content, anchor, textcoords="offset points", fontsize=_LABEL_SIZE, rotation=rotation, **place
                )
            return
        (ax.set_ylim if vertical else ax.set_xlim)(*limits)


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
        ax.set_title(heading)
    if df.empty:
        return literal_text(no_data(ax))
    groups = _groups(df)
    steps = df.drop_duplicates("step").sort_values("step")
    positions = {int(step): index for index, step in enumerate(steps["step"])}
    names = [f"{int(step)}. {name}" for step, name in zip(steps["step"], steps["name"], strict=True)]
    width = 0.8 / max(1, len(groups))
    colors = series_colors(len(groups))
    vertical = orientation == "vertical"
    labelled: list[tuple[Rectangle, float, float]] = []
    for offset, (label, rows) in enumerate(groups):
        rows = rows.sort_values("step")
        xs = np.array([positions[int(step)] for step in rows["step"]], dtype=float) - 0.4 + width * (offset + 0.5)
        counts = rows["count"].astype("float64").fillna(0).to_numpy()
        rates = rows["conversion_rate"].to_numpy(dtype="float64")
        if vertical:
            bars = ax.bar(xs, counts, width=width, label=label, color=colors[offset])
        else:
            bars = ax.barh(xs, counts, height=width, label=label, color=colors[offset])
        labelled += list(zip(bars.patches, counts, rates, strict=True))
    axis = "y" if vertical else "x"
    start_at_zero(ax, np.array([count for _, count, _ in labelled], dtype="float64"), axis=axis)
    integer_ticks(ax, axis=axis)
    if vertical:
        ax.set_xticks(range(len(names)), names)
        ax.set_ylabel("Persons")
        ax.grid(axis="y", alpha=0.3)
    else:
        ax.set_yticks(range(len(names)), names)
        ax.invert_yaxis()
        ax.set_xlabel("Persons")
        ax.grid(axis="x", alpha=0.3)
    if groups[0][0] is not None:
        place_legend(ax, len(groups))
    _label_bars(ax, labelled, vertical=vertical)
    return literal_text(ax)


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
    ax.set_title(f"Time to convert: {heading}" if heading else "Time to convert")
    if df.empty:
        return literal_text(no_data(ax))
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
    start_at_zero(ax, df["count"].astype("float64").fillna(0).to_numpy())
    integer_ticks(ax)
    return literal_text(ax)


def plot_funnel_trends(df: pd.DataFrame, ax: Axes | None = None, *, title: str | None = None) -> Axes:
    """Plot conversion over time (`Client.funnel` with ``funnel_viz_type="trends"``): a line per breakdown.

    Entrance periods whose people could still convert when the backend computed the answer (those starting
    within the conversion window before ``attrs["last_refresh"]``, as PostHog marks them) are joined by a
    dashed segment: their rates may still rise.

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
    ax.set_title(f"Conversion: {heading}" if heading else "Conversion over time")
    rates = df["conversion_rate"].to_numpy(dtype="float64")
    if np.isnan(rates).all():
        return literal_text(no_data(ax))
    groups = _groups(df)
    colors = series_colors(len(groups))
    for (label, rows), color in zip(groups, colors, strict=True):
        draw_line(
            ax,
            local_dates(rows["date"]).to_numpy(),
            rows["conversion_rate"].to_numpy(dtype="float64"),
            label=label,
            color=color,
            incomplete=still_converting(df.attrs, rows["date"]),
        )
    ax.yaxis.set_major_formatter(PercentFormatter(xmax=1.0))
    top = float(np.nanmax(rates))
    ax.set_ylim(0, max(1.0, top) * 1.05 if top > 0.5 else max(top * 1.2, 0.05))
    ax.set_ylabel("Conversion rate")
    ax.grid(axis="y", alpha=0.3)
    readable_dates(ax)
    if groups[0][0] is not None:
        place_legend(ax, len(groups))
    return literal_text(ax)
