"""Matplotlib plots of the toolkit's frames: each takes the frame a `Client` method returned, draws on ``ax``
(or a new figure's Axes) and returns the Axes. None calls ``plt.show()``: a notebook shows the figure
of a cell's last expression, and a script decides itself when to show or save.

Every plot draws its text as written (``$pageview`` is not maths), names PostHog's breakdown buckets
``None`` and ``Other`` (the frame keeps the raw values), keeps labels and date ticks from overlapping, and
starts count axes at 0 with whole-number ticks; see `toolkit.plots.style`.

One module per calculation (`trends`, `funnels`, `retention`, `paths`, `stickiness`, `lifecycle`), all
re-exported here; `style` holds what they share, `bars` what the bar plots share, and `hover` labels the
point under the mouse on an interactive canvas.

==========================  ======================================================
`plot_trend`                `Client.trend` (line, cumulative, bar, bar_value, pie, number)
`plot_funnel`               `Client.funnel` steps (bars with counts and conversion)
`plot_time_to_convert`      `Client.funnel` with ``funnel_viz_type="time_to_convert"``
`plot_funnel_trends`        `Client.funnel` with ``funnel_viz_type="trends"``
`plot_retention`            `Client.retention` (heat-map table, one per breakdown value)
`plot_paths`                `Client.paths` (flow drawing)
`plot_stickiness`           `Client.stickiness` (bars by number of intervals active)
`plot_lifecycle`            `Client.lifecycle` (stacked bars per interval, dormant below 0)
==========================  ======================================================

Examples
--------
>>> ax = plot_trend(client.trend(events=["$pageview"], date_from="-30d"))  # doctest: +SKIP
>>> ax.figure.savefig("pageviews.png")  # doctest: +SKIP
"""

from __future__ import annotations

from .funnels import plot_funnel, plot_funnel_trends, plot_time_to_convert
from .lifecycle import LIFECYCLE_COLORS, plot_lifecycle
from .paths import plot_paths
from .retention import plot_retention
from .stickiness import plot_stickiness
from .trends import DISPLAY_KINDS, TREND_KINDS, plot_trend

__all__ = [
    "DISPLAY_KINDS",
    "LIFECYCLE_COLORS",
    "TREND_KINDS",
    "plot_funnel",
    "plot_funnel_trends",
    "plot_lifecycle",
    "plot_paths",
    "plot_retention",
    "plot_stickiness",
    "plot_time_to_convert",
    "plot_trend",
]
