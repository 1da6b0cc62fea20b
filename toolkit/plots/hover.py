"""Values on hover: `add_hover` labels the point or bar under the mouse with its date (or category) and value.

Reading order: `nearest_point` (pure: which of some screen points is closest to the mouse, if close enough),
`point_text` (pure: what the label says), then `add_hover`, which connects matplotlib's
``motion_notify_event`` to both. It works with any backend, but only an interactive canvas sends mouse
events: in a notebook that is ipympl (``%matplotlib widget``), whose toolbar also pans and zooms. With the
inline backend the figure is a picture and nothing happens.

Lines are looked up by their points (dates on the x axis, as `plot_trend` draws them) and bars by the middle
of their top (or right) edge; pies and the bold number have their values written on them already.

Examples
--------
>>> from matplotlib.figure import Figure
>>> ax = Figure().add_subplot()
>>> _ = ax.plot([0, 1, 2], [3, 5, 4], label="signup")
>>> hover = add_hover(ax.figure)
>>> hover.annotation(ax).get_visible()
False
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backend_bases import Event, MouseEvent
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.text import Annotation
from matplotlib.ticker import PercentFormatter

from .periods import IN_PROGRESS_LABEL

__all__ = ["HOVER_RADIUS", "Hover", "add_hover", "nearest_point", "point_text"]

HOVER_RADIUS = 15.0
"""How near (in screen pixels) the mouse must come to a point for its label to show."""


def nearest_point(points: Any, x: float, y: float, *, radius: float = HOVER_RADIUS) -> int | None:
    """The index of the point of ``points`` (an (n, 2) array of screen positions) nearest to ``(x, y)``,
    or None when none is within ``radius`` pixels (NaN points are never nearest; ties go to the first).

    Examples
    --------
    >>> nearest_point([[0, 0], [10, 0], [20, 0]], 12, 3)
    1
    >>> nearest_point([[0, 0], [10, 0]], 100, 100) is None
    True
    """
    array = np.asarray(points, dtype=float).reshape(-1, 2)
    if not len(array):
        return None
    distances = np.hypot(array[:, 0] - x, array[:, 1] - y)
    distances[np.isnan(distances)] = np.inf
    index = int(np.argmin(distances))
    return index if distances[index] <= radius else None


def _number(value: float, percent_of: float | None = None) -> str:
    if percent_of is not None:
        return f"{value / percent_of * 100:.1f}".removesuffix(".0") + "%"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def point_text(label: str | None, where: Any, value: float, *, percent_of: float | None = None) -> str:
    """The hover label: the series, then ``<date or category>: <value>`` (dates without a midnight time,
    whole numbers with thousands separators, others with two decimals; a share of ``percent_of`` in
    percent, as the axis reads it).

    Examples
    --------
    >>> print(point_text("signup", np.datetime64("2026-01-02"), 1234.0))
    signup
    2026-01-02: 1,234
    >>> print(point_text(None, pd.Timestamp("2026-01-02 13:00"), 2.5))
    2026-01-02 13:00: 2.50
    >>> print(point_text("Chrome", "Jan 02", 0.425, percent_of=1.0))
    Chrome
    Jan 02: 42.5%
    """
    if isinstance(where, (np.datetime64, pd.Timestamp)) or hasattr(where, "strftime"):
        stamp = pd.Timestamp(where)
        where = stamp.strftime("%Y-%m-%d" if stamp == stamp.normalize() else "%Y-%m-%d %H:%M")
    number = _number(value, percent_of)
    line = f"{where}: {number}" if where not in (None, "") else number
    # the label is drawn as written (no maths): a dollar escaped for a legend (``\\$pageview``) is unescaped
    shown = (label or "").replace("\\$", "$")
    return f"{shown}\n{line}" if shown and not shown.startswith("_") else line


@dataclass
class _Target:
    """One thing that can be hovered: a screen position, where to point in data coordinates, and its text."""

    screen: tuple[float, float]
    data: tuple[float, float]
    text: str


def _tick_text(ax: Axes, x: float) -> str:
    """The x tick label at position ``x`` (the category or date of a bar), if a tick sits there."""
    for tick, text in zip(ax.get_xticks(), ax.get_xticklabels(), strict=False):
        if abs(tick - x) <= 0.5 and text.get_text():
            return text.get_text()
    return ""


def _line_targets(ax: Axes) -> list[_Target]:
    targets: list[_Target] = []
    formatter = ax.yaxis.get_major_formatter()
    percent_of = float(formatter.xmax) if isinstance(formatter, PercentFormatter) else None
    for line in ax.get_lines():
        label = line.get_label()
        if label.startswith(IN_PROGRESS_LABEL):  # the dashed end of a series: its periods still in progress
            label = f"{label.removeprefix(IN_PROGRESS_LABEL)} (in progress)"
        if not line.get_visible():  # an unnamed line (``_child0``: a funnel without breakdown) is a value alone
            continue
        converted = np.asarray(line.get_xydata(), dtype=float).reshape(-1, 2)
        original = np.asarray(line.get_xdata(orig=True))
        screen = ax.transData.transform(converted)
        for index, (position, point) in enumerate(zip(screen, converted, strict=True)):
            if np.isnan(point).any():
                continue
            where = original[index] if len(original) == len(converted) else point[0]
            text = point_text(label, where, point[1], percent_of=percent_of)
            targets.append(_Target((position[0], position[1]), (point[0], point[1]), text))
    return targets


def _bar_targets(ax: Axes) -> list[_Target]:
    targets: list[_Target] = []
    for container in ax.containers:
        if not isinstance(container, BarContainer):
            continue
        label = container.get_label()
        horizontal = container.orientation == "horizontal"
        for patch in container.patches:
            x, y, width, height = patch.get_x(), patch.get_y(), patch.get_width(), patch.get_height()
            if horizontal:
                data = (x + width, y + height / 2)
                ticks = {round(t, 6): s.get_text() for t, s in zip(ax.get_yticks(), ax.get_yticklabels(), strict=False)}
                text = point_text(label, ticks.get(round(y + height / 2, 6), ""), width)
            else:
                data = (x + width / 2, y + height)
                text = point_text(label, _tick_text(ax, x + width / 2), height)
            screen = ax.transData.transform([data])[0]
            targets.append(_Target((screen[0], screen[1]), data, text))
    return targets


def _place(label: Annotation, ax: Axes, screen: tuple[float, float]) -> None:
    """Put the label on the side of the point facing the middle of the axes, so it stays inside the plot
    (above a high point it would cover the title, right of a late one it would leave the figure)."""
    fx, fy = ax.transAxes.inverted().transform([screen])[0]
    right, up = fx < 0.65, fy < 0.6
    label.set_position((12 if right else -12, 12 if up else -12))
    label.set_horizontalalignment("left" if right else "right")
    label.set_verticalalignment("bottom" if up else "top")


@dataclass
class Hover:
    """The hover labels of one figure (`add_hover` makes it); ``cid`` is the connection to disconnect."""

    figure: Figure
    cid: int = 0
    _annotations: dict[int, Annotation] = field(default_factory=dict)

    def annotation(self, ax: Axes) -> Annotation:
        """The (hidden until hovered) label of ``ax``."""
        if id(ax) not in self._annotations:
            label = ax.annotate(
                "",
                xy=(0, 0),
                xytext=(12, 12),
                textcoords="offset points",
                bbox={"boxstyle": "round", "facecolor": "white", "alpha": 0.9, "edgecolor": "#999"},
                fontsize=9,
                annotation_clip=False,
                parse_math=False,  # "$pageview ... $browser" is not a formula
            )
            label.set_visible(False)
            label.set_in_layout(False)
            self._annotations[id(ax)] = label
        return self._annotations[id(ax)]

    def targets(self, ax: Axes) -> Sequence[_Target]:
        """What can be hovered in ``ax``, at its current zoom."""
        return [*_line_targets(ax), *_bar_targets(ax)]

    def moved(self, event: Event) -> None:
        """Show the label of the point under the mouse (hide the others); redraw only when that changed."""
        if not isinstance(event, MouseEvent):
            return
        changed = False
        for ax in self.figure.axes:
            label = self.annotation(ax)
            found = None
            if event.inaxes is ax:
                targets = self.targets(ax)
                index = nearest_point([target.screen for target in targets], event.x, event.y)
                found = targets[index] if index is not None else None
            if found is not None:
                if not label.get_visible() or label.get_text() != found.text or tuple(label.xy) != found.data:
                    label.xy = found.data
                    label.set_text(found.text)
                    _place(label, ax, found.screen)
                    label.set_visible(True)
                    changed = True
            elif label.get_visible():
                label.set_visible(False)
                changed = True
        if changed:
            self.figure.canvas.draw_idle()


def add_hover(figure: Figure) -> Hover:
    """Label the point or bar under the mouse with its value in ``figure`` (interactive backends only).

    Examples
    --------
    >>> import matplotlib.pyplot as plt  # doctest: +SKIP
    >>> %matplotlib widget  # doctest: +SKIP
    >>> add_hover(toolkit.plot_trend(client.trend(events=["$pageview"])).figure)  # doctest: +SKIP
    """
    hover = Hover(figure)
    for ax in figure.axes:
        hover.annotation(ax)
    # a function, not the bound method: matplotlib holds bound methods weakly, and nothing else keeps `hover`
    hover.cid = figure.canvas.mpl_connect("motion_notify_event", lambda event: hover.moved(event))
    return hover
