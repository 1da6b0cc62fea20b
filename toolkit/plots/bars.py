"""What bar plots share: tick labels thinned until they fit, bucket dates as bar labels, and the look of a bar
whose period had not ended when the answer was computed."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.colors import to_rgba
from matplotlib.patches import Rectangle

from .periods import IN_PROGRESS, IN_PROGRESS_ALPHA

__all__ = ["MAX_BAR_TICKS", "bar_ticks", "date_bar_ticks", "date_texts", "mark_bar_in_progress"]

MAX_BAR_TICKS = 12
"""At most this many labels under a row of bars."""


def date_texts(dates: Sequence[pd.Timestamp]) -> list[str]:
    """Bucket starts as short labels: ``Jan 05``, with the time for hours, ``Jan 2026`` over long ranges.

    Examples
    --------
    >>> date_texts([pd.Timestamp("2026-01-05"), pd.Timestamp("2026-01-06")])
    ['Jan 05', 'Jan 06']
    """
    spread = dates[-1] - dates[0] if len(dates) > 1 else pd.Timedelta(0)
    hourly = any(stamp.hour or stamp.minute for stamp in dates)
    fmt = "%b %d %H:%M" if hourly else ("%b %Y" if spread > pd.Timedelta(days=400) else "%b %d")
    return [stamp.strftime(fmt) for stamp in dates]


def bar_ticks(ax: Axes, names: Sequence[str]) -> None:
    """Label bar positions 0..n-1 with ``names``: at most `MAX_BAR_TICKS`, fewer when the widest label would
    not leave room for the others (every k-th label from the first)."""
    names = list(names)
    step = max(1, math.ceil(len(names) / MAX_BAR_TICKS))
    ax.set_xticks(range(0, len(names), step), names[::step])
    widest = max(label.get_window_extent().width for label in ax.get_xticklabels())
    room = max(1, int(ax.bbox.width // (widest * 1.3)))
    step = max(step, math.ceil(len(names) / room))
    ax.set_xticks(range(0, len(names), step), names[::step])


def date_bar_ticks(ax: Axes, dates: Sequence[pd.Timestamp]) -> None:
    """`bar_ticks` with the bucket dates as labels."""
    bar_ticks(ax, date_texts(dates))


def mark_bar_in_progress(bar: Rectangle, color: str) -> None:
    """A bar of a period that had not ended: a light fill in a dashed outline of its colour, the bar's
    counterpart of the line's dashed last segment (a partial day is not a drop)."""
    bar.set_alpha(None)  # the bar's own alpha would override the fill's
    bar.set_facecolor(to_rgba(color, IN_PROGRESS_ALPHA))
    bar.set_edgecolor(to_rgba(color, 1.0))
    bar.set_linestyle("--")
    bar.set_linewidth(1.2)
    bar.set_gid(IN_PROGRESS)
