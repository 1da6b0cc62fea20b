"""Tick locators and date labels that remember their last answer.

Matplotlib asks an axis for its ticks every time it measures or draws it: a builder's trend asks about forty
times before its PNG is written (the date labels' fit, the legend's place, the layout, the draw), always over
the same view limits, and each time the date locator builds a new recurrence rule and the formatter formats
every date again. These subclasses keep their last answer with what it was computed from (the view limits,
and the axis length for a locator that fits its ticks to it) and compute again when that changes, as a pan or
zoom under ipympl does: the ticks and labels are the ones their matplotlib parents give.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib import dates as mdates
from matplotlib.ticker import MaxNLocator

__all__ = ["RememberedDateFormatter", "RememberedDateLocator", "RememberedMaxNLocator"]


class RememberedDateLocator(mdates.AutoDateLocator):
    """`matplotlib.dates.AutoDateLocator` that answers again from memory while the view limits stay the same.

    Examples
    --------
    >>> from datetime import datetime
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().add_subplot()
    >>> _ = ax.plot([datetime(2026, 1, 1), datetime(2026, 1, 31)], [0, 1])
    >>> locator = RememberedDateLocator()
    >>> ax.xaxis.set_major_locator(locator)
    >>> first = locator()
    >>> locator() is not first and bool((locator() == first).all())  # a copy of the same ticks
    True
    """

    _last: tuple[tuple[float, float], np.ndarray] | None = None

    def __call__(self) -> Any:
        key = tuple(map(float, self.axis.get_view_interval()))
        if self._last is None or self._last[0] != key:
            self._last = (key, np.asarray(super().__call__()))
        return self._last[1].copy()


class RememberedMaxNLocator(MaxNLocator):
    """`matplotlib.ticker.MaxNLocator` that answers again from memory while the view limits (and, with
    ``nbins="auto"``, the room for ticks) stay the same."""

    _last: tuple[tuple[float, ...], np.ndarray] | None = None

    def __call__(self) -> Any:
        room = (float(self.axis.get_tick_space()),) if self._nbins == "auto" else ()
        key = (*map(float, self.axis.get_view_interval()), *room)
        if self._last is None or self._last[0] != key:
            self._last = (key, np.asarray(super().__call__()))
        return self._last[1].copy()


class RememberedDateFormatter(mdates.ConciseDateFormatter):
    """`matplotlib.dates.ConciseDateFormatter` that labels the same tick values as its last call again from
    memory (its offset text, which only formatting sets, is still the one of those values)."""

    _last: tuple[tuple[float, ...], list[str]] | None = None

    def format_ticks(self, values: Sequence[float]) -> list[str]:
        key = tuple(map(float, values))
        if self._last is None or self._last[0] != key:
            self._last = (key, list(super().format_ticks(values)))
        return list(self._last[1])
