"""What every plot shares: titles read from the request in ``df.attrs``, percentage text, the legend's
place, distinct colours for many series, axes that start at 0 with whole-number ticks for counts, text
drawn as written (no ``$...$`` maths), local dates for the x axis and a fresh Axes when none is given (a
pyplot figure, so a notebook shows it; the builders pass Axes of figures pyplot does not track, so theirs
are not shown twice)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import matplotlib
import matplotlib.dates as mdates
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.text import Text
from matplotlib.transforms import Bbox, ScaledTranslation

from ..labels import series_name
from .layout import FixedLayout, measuring_canvas, quiet_corner
from .ticks import RememberedDateFormatter, RememberedDateLocator, RememberedMaxNLocator

__all__ = [
    "LEGEND_INSIDE_MAX",
    "LEGEND_INSIDE_WIDTH",
    "date_formatter",
    "entity_label",
    "format_count",
    "format_percent",
    "integer_ticks",
    "is_count",
    "literal_text",
    "local_dates",
    "new_axes",
    "no_data",
    "overlapping",
    "place_legend",
    "readable_dates",
    "request_title",
    "series_colors",
    "start_at_zero",
    "untracked_axes",
    "visible_tick_boxes",
]

LEGEND_INSIDE_MAX = 4
"""More series than this and the legend moves below the plot."""
LEGEND_INSIDE_WIDTH = 0.4
"""A legend wider than this share of the plot moves below it, whatever its length."""
LEGEND_BESIDE_WIDTH = 0.5
"""A legend beside the plot (a pie's) wider than this share of the figure goes below instead."""
LEGEND_MAX_COLUMNS = 6

DEFAULT_FIGSIZE = (8.0, 4.5)


def new_axes(ax: Axes | None, *, figsize: tuple[float, float] = DEFAULT_FIGSIZE) -> Axes:
    """``ax`` itself, or the Axes of a new pyplot figure (which a notebook shows at the end of the cell),
    laid out once from its labels' sizes (`FixedLayout`)."""
    if ax is not None:
        return ax
    figure, axes = plt.subplots(figsize=figsize, layout=FixedLayout())
    measuring_canvas(figure)
    return axes


def untracked_axes(figsize: tuple[float, float] = DEFAULT_FIGSIZE) -> Axes:
    """The Axes of a new Figure that pyplot does not track: shown only where it is displayed, freed with
    its owner; laid out once from its labels' sizes (`FixedLayout`), on a canvas that measures text."""
    return measuring_canvas(Figure(figsize=figsize, layout=FixedLayout())).add_subplot()


def no_data(ax: Axes) -> Axes:
    """Say "No data" in the middle of an empty plot (an empty frame draws no misleading axes)."""
    ax.text(0.5, 0.5, "No data", ha="center", va="center", transform=ax.transAxes, color="grey")
    ax.set_xticks([])
    ax.set_yticks([])
    return ax


def format_percent(fraction: float) -> str:
    """A fraction as a percentage with at most one decimal: 0.4 -> ``40%``, 1/3 -> ``33.3%``, NaN -> ``-``."""
    if pd.isna(fraction):
        return "-"
    text = f"{fraction * 100:.1f}".removesuffix(".0")
    return f"{text}%"


def format_count(value: float) -> str:
    """A count or amount with thousands separators, decimals only where the value has them."""
    if pd.isna(value):
        return "-"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}"


def entity_label(entity: Any) -> str:
    """A legacy series or step (dict, name or action id) as text: its custom name, else its name or id with
    its math as the frames name it (``purchase: sum of amount``).

    Examples
    --------
    >>> entity_label({"id": "signed_up", "math": "dau"}), entity_label({"id": "a", "custom_name": "Views"})
    ('signed_up: unique users', 'Views')
    """
    if not isinstance(entity, Mapping):
        return str(entity)
    if entity.get("custom_name"):
        return str(entity["custom_name"])
    base = entity.get("name") or entity.get("id")
    return series_name("All events" if base is None else str(base), entity.get("math"), entity.get("math_property"))


def request_title(attrs: Mapping[str, Any]) -> str | None:
    """A title from the request body in ``attrs["request"]``: its series joined, and the breakdown.

    Examples
    --------
    >>> request_title({"request": {"insight": "FUNNELS", "events": [{"id": "a", "order": 0},
    ...                {"id": "b", "order": 1}], "breakdown": "$browser"}})
    'a → b by $browser'
    >>> request_title({"request": {"events": [{"id": "a"}], "breakdown": [7], "breakdown_type": "cohort"},
    ...                "breakdown_labels": {"7": "Power users"}})
    'a by cohort: Power users'
    >>> request_title({"request": {"insight": "PATHS", "include_event_types": ["$pageview"], "start_point": "/"}})
    'paths of $pageview from /'
    """
    request = attrs.get("request")
    if not isinstance(request, Mapping):
        return None
    entities = sorted(
        [*request.get("events", []), *request.get("actions", [])],
        key=lambda entity: entity.get("order") or 0 if isinstance(entity, Mapping) else 0,
    )
    if request.get("insight") == "PATHS":
        kinds = ", ".join(request.get("include_event_types") or []) or "every event"
        ends = [
            f"{word} {request[key]}" for word, key in (("from", "start_point"), ("to", "end_point")) if request.get(key)
        ]
        return " ".join([f"paths of {kinds}", *ends])
    if not entities and isinstance(request.get("target_entity"), Mapping):  # retention: its cohort event
        entities = [request["target_entity"]]
    if not entities:
        return None
    joiner = " → " if request.get("insight") == "FUNNELS" else ", "
    title = joiner.join(entity_label(entity) for entity in entities)
    if request.get("formula"):
        title = f"{request['formula']} of {title}"
    breakdown = request.get("breakdown")
    if breakdown not in (None, "", []):
        keys = breakdown if isinstance(breakdown, list) else [breakdown]
        if request.get("breakdown_type") == "cohort":  # ids mean nothing to a reader: the cohorts' names
            names = attrs.get("breakdown_labels") or {}
            title += f" by cohort: {', '.join(names.get(str(key), str(key)) for key in keys)}"
        else:
            title += f" by {', '.join(map(str, keys))}"
    return title


def place_legend(ax: Axes, count: int, *, beside: bool = False, below: bool = False) -> Legend | None:
    """A legend inside the plot for a few short labels; below the plot, in as many columns as fit its width,
    for more series or longer labels (a legend beside a line plot would squeeze it); none for one series.
    With ``below`` it goes below the plot whatever its size (bars that fill the plot leave no room inside).

    With ``beside`` (a pie, which has no room inside and is round) the legend stands right of the plot,
    even for one entry, unless it would take more than half the figure's width; then it goes below.
    """
    if count < (1 if beside else 2):
        return None
    figure = ax.get_figure(root=True)
    legend: Legend | None = None
    if beside:
        legend = ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False, fontsize="small")
        if legend.get_window_extent().width <= LEGEND_BESIDE_WIDTH * figure.bbox.width:
            return legend
    elif count <= LEGEND_INSIDE_MAX and not below:  # a longer legend goes below without being tried inside
        legend = ax.legend(loc="upper right", frameon=False)
        if legend.get_window_extent().width <= LEGEND_INSIDE_WIDTH * ax.bbox.width:
            quiet_corner(ax, legend)  # not "best", which draws the figure to find its place
            return legend
    # under the tick labels and the axis label, in points so it stays there when the layout shrinks the axes
    drop = ax.bbox.y0 - ax.xaxis.get_tightbbox().y0 + 4.0
    offset = ScaledTranslation(0.0, -drop / figure.dpi, figure.dpi_scale_trans)
    for columns in range(min(count, LEGEND_MAX_COLUMNS), 0, -1):
        if legend is not None:  # the last one tried did not fit
            legend.remove()
        legend = ax.legend(
            loc="upper center",
            bbox_to_anchor=(0.5, 0.0),
            bbox_transform=ax.transAxes + offset,
            ncols=columns,
            frameon=False,
            fontsize="small",
        )
        if legend.get_window_extent().width <= figure.bbox.width * 0.98:
            break
    return legend


def start_at_zero(ax: Axes, values: np.ndarray, *, axis: str = "y") -> None:
    """Non-negative values read from 0 (an all-zero series gets 0..1, not a band around 0)."""
    finite = values[np.isfinite(values)]
    if finite.size and finite.min() < 0:
        return
    top = float(finite.max()) if finite.size else 0.0
    set_limits = ax.set_ylim if axis == "y" else ax.set_xlim
    set_limits(0.0, None if top > 0 else 1.0)


def is_count(values: np.ndarray) -> bool:
    """Whether these values are whole numbers (counts), which get whole-number ticks."""
    finite = values[np.isfinite(values)]
    return bool(np.all(finite == np.round(finite)))


def integer_ticks(ax: Axes, *, axis: str = "y") -> None:
    """Ticks at whole numbers only: a count has no half persons."""
    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_locator(RememberedMaxNLocator(integer=True))


def series_colors(count: int) -> list[str]:
    """``count`` colours, all different up to 60: the style's cycle (tab10 by default), then the light tab20
    shades and the tab20b and tab20c palettes."""
    cycle = list(matplotlib.rcParams["axes.prop_cycle"].by_key().get("color", []))
    extra = [to_hex(color) for color in plt.get_cmap("tab20").colors[1::2]]
    for name in ("tab20b", "tab20c"):
        palette = plt.get_cmap(name).colors
        # darkest shade of each hue first, so neighbours differ in hue before they differ in lightness
        extra += [to_hex(palette[hue * 4 + shade]) for shade in range(4) for hue in range(5)]
    colors = list(dict.fromkeys([*(to_hex(color) for color in cycle), *extra]))
    return [colors[index % len(colors)] for index in range(count)]


def literal_text(ax: Axes) -> Axes:
    """Draw every text of ``ax`` as written: ``$pageview`` must not switch matplotlib to math mode.

    Titles, axis labels, tick labels, texts (bar and wedge labels, annotations) and the legend's texts.
    """
    texts: list[Text] = [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts]
    texts += [*ax.get_xticklabels(which="both"), *ax.get_yticklabels(which="both")]
    legend = ax.get_legend()
    if legend is not None:
        texts += [legend.get_title(), *legend.get_texts()]
    for text in texts:
        text.set_parse_math(False)
    return ax


def overlapping(boxes: list[Bbox]) -> bool:
    """Whether any two of these display boxes overlap."""
    return any(first.overlaps(second) for number, first in enumerate(boxes) for second in boxes[number + 1 :])


# ConciseDateFormatter's levels: years, months, days, hours, minutes, seconds. Every label says which
# day (or month) it is on its own ("Jan 05", not "05" with "2026-Jan" under the axis); the year shows on
# January's month label, midnight's hourly label is the day.
DATE_TICK_FORMATS = ["%Y", "%b", "%b %d", "%H:%M", "%H:%M", "%H:%M:%S"]
DATE_TICK_ZERO_FORMATS = ["", "%b %Y", "%b %d", "%b %d", "%H:%M", "%H:%M"]


def date_formatter(locator: mdates.DateLocator) -> mdates.ConciseDateFormatter:
    """Short date labels that each read alone, without the offset text ConciseDateFormatter puts under the
    axis (a stray ``2026-Jan`` below the dates)."""
    return RememberedDateFormatter(
        locator, formats=DATE_TICK_FORMATS, zero_formats=DATE_TICK_ZERO_FORMATS, show_offset=False
    )


def readable_dates(ax: Axes) -> None:
    """Dates on the x axis that never run into each other: fewer ticks until the labels fit."""
    for most in (10, 7, 5, 3):
        locator = RememberedDateLocator(minticks=2, maxticks=most)
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(date_formatter(locator))
        if not overlapping(visible_tick_boxes(ax)):
            return


def visible_tick_boxes(ax: Axes) -> list[Bbox]:
    """The display boxes of the x tick labels drawn inside the axis limits, a little wider than the text."""
    left, right = sorted(ax.get_xlim())
    return [
        label.get_window_extent().expanded(1.1, 1.0)
        for tick, label in zip(ax.get_xticks(), ax.get_xticklabels(), strict=False)
        if left <= tick <= right and label.get_text()
    ]


def local_dates(dates: pd.Series) -> pd.Series:
    """Timezone-aware dates as naive wall-clock times, so the x axis reads in the project's timezone."""
    if isinstance(dates.dtype, pd.DatetimeTZDtype):
        return dates.dt.tz_localize(None)
    return pd.to_datetime(dates)
