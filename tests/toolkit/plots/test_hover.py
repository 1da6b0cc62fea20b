"""Values on hover: the nearest point (pure), the label text (pure), and a motion event over a real trend plot."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.backend_bases import MouseEvent
from matplotlib.figure import Figure

from toolkit.plots.hover import add_hover, nearest_point, point_text
from toolkit.plots.trends import plot_trend


@pytest.mark.parametrize(
    "points, x, y, expected",
    [
        ([[0, 0], [10, 0], [20, 0]], 12, 3, 1),  # 3.6 px from the second point
        ([[0, 0], [10, 0], [20, 0]], 5, 0, 0),  # halfway: the first one wins the tie
        ([[0, 0], [10, 0]], 0, 16, None),  # 16 px away: beyond the 15 px radius
        ([[0, 0], [10, 0]], 0, 15, 0),  # exactly on the radius
        ([[np.nan, np.nan], [30, 30]], 0, 0, None),  # a missing value is never under the mouse
        ([], 0, 0, None),
    ],
)
def test_nearest_point(points, x, y, expected):
    assert nearest_point(points, x, y) == expected


def test_point_text():
    assert point_text("signup", np.datetime64("2026-01-02T00:00"), 1234.0) == "signup\n2026-01-02: 1,234"
    assert point_text("signup", pd.Timestamp("2026-01-02 13:00"), 0.25) == "signup\n2026-01-02 13:00: 0.25"
    assert point_text("_child0", "Step 2", 7.0) == "Step 2: 7"  # matplotlib's unnamed artists have no label shown
    assert point_text(None, "", 3.0) == "3"
    assert point_text("\\$pageview - \\$$_posthog_breakdown_null_\\$$", "Jan 02", 1.0).startswith("$pageview - $$")


def move(figure: Figure, ax, x_data, y_data, offset=(4, -3)):
    """Send a mouse move to the screen position of a data point (plus an offset in pixels)."""
    figure.canvas.draw()
    x, y = ax.transData.transform([(x_data, y_data)])[0]
    event = MouseEvent("motion_notify_event", figure.canvas, x + offset[0], y + offset[1])
    figure.canvas.callbacks.process("motion_notify_event", event)


def test_hovering_a_trend_line_shows_the_date_and_value_of_the_nearest_day():
    frame = pd.DataFrame(
        {
            "date": pd.to_datetime(["2026-01-01", "2026-01-02", "2026-01-03"]).tz_localize("UTC"),
            "series": pd.array(["$pageview"] * 3, dtype="string"),
            "value": [3.0, 1250.0, 4.0],
        }
    )
    ax = plot_trend(frame, ax=Figure(layout="constrained").add_subplot())
    label = add_hover(ax.figure).annotation(ax)  # the figure alone keeps the hover working
    line = ax.get_lines()[0]
    x_day2 = line.get_xydata()[1][0]
    move(ax.figure, ax, x_day2, 1250.0)
    assert label.get_visible()
    assert label.get_text() == "$pageview\n2026-01-02: 1,250" and not label.get_parse_math()  # drawn as written
    assert tuple(label.xy) == (x_day2, 1250.0)
    # the highest point: the label hangs below it, inside the plot rather than over the title
    assert label.get_position()[1] < 0 and label.get_verticalalignment() == "top"
    move(ax.figure, ax, x_day2, 1250.0, offset=(0, -200))  # far from every point: the label goes
    assert not label.get_visible()


def test_hovering_a_bar_shows_its_category_and_height():
    ax = Figure().add_subplot()
    ax.bar([0, 1], [8, 2], label="signup")
    ax.set_xticks([0, 1], ["Step 1", "Step 2"])
    hover = add_hover(ax.figure)
    move(ax.figure, ax, 1, 2)
    assert hover.annotation(ax).get_text() == "signup\nStep 2: 2"


def test_hovering_the_day_still_in_progress_names_the_series_and_says_so():
    frame = pd.DataFrame(
        {
            "date": pd.to_datetime(["2026-01-01", "2026-01-02", "2026-01-03"]).tz_localize("UTC"),
            "series": pd.array(["signup"] * 3, dtype="string"),
            "value": pd.array([3, 5, 2], dtype="Int64"),
        }
    )
    frame.attrs = {"timezone": "UTC", "last_refresh": "2026-01-03T12:00:00Z"}
    ax = plot_trend(frame, ax=Figure(layout="constrained").add_subplot())
    label = add_hover(ax.figure).annotation(ax)
    dashed = next(line for line in ax.get_lines() if line.get_gid() == "in progress")
    x_day3, y_day3 = dashed.get_xydata()[-1]
    move(ax.figure, ax, x_day3, y_day3)
    assert label.get_visible()
    assert label.get_text() == "signup (in progress)\n2026-01-03: 2"
    assert ax.get_legend_handles_labels()[1] == ["signup"]  # the dashed end stays out of the legend


def test_hovering_conversion_over_time_reads_in_percent_as_its_axis():
    from toolkit.frames import funnel_trends_frame
    from toolkit.plots import plot_funnel_trends

    response = {"timezone": "UTC", "result": [{"days": ["2026-01-01", "2026-01-02"], "data": [42.5, 30.0], "count": 2}]}
    ax = plot_funnel_trends(funnel_trends_frame(response), ax=Figure(layout="constrained").add_subplot())
    label = add_hover(ax.figure).annotation(ax)
    x_day1, y_day1 = ax.get_lines()[0].get_xydata()[0]
    move(ax.figure, ax, x_day1, y_day1)
    assert label.get_visible() and label.get_text() == "2026-01-01: 42.5%"
