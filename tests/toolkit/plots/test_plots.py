"""Plots draw the numbers of hand-built frames: line y-data, bar heights, texts and labels."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.patches import PathPatch, Rectangle

from tests.toolkit.plots.trend_responses import DAYS, series, trend
from toolkit.frames import (
    funnel_frame,
    funnel_trends_frame,
    paths_frame,
    retention_frame,
    time_to_convert_frame,
)
from toolkit.plots import (
    plot_funnel,
    plot_funnel_trends,
    plot_paths,
    plot_retention,
    plot_time_to_convert,
    plot_trend,
)

PREVIOUS = ["2025-12-29", "2025-12-30", "2025-12-31"]


def heights(ax):
    return [float(patch.get_height()) for patch in ax.patches]


def widths(ax):
    return [float(patch.get_width()) for patch in ax.patches]


def texts(ax):
    return [text.get_text() for text in ax.texts]


@pytest.fixture(autouse=True)
def never_shown(monkeypatch):
    """Plots never call plt.show(): the notebook or the script decides when to show."""

    def refuse(*args, **kwargs):
        raise AssertionError("plt.show() was called")

    monkeypatch.setattr(plt, "show", refuse)
    before = set(plt.get_fignums())
    yield
    for number in set(plt.get_fignums()) - before:
        plt.close(number)


def test_without_axes_a_pyplot_figure_is_made_so_notebooks_show_it():
    before = set(plt.get_fignums())
    ax = plot_trend(trend(series("a", [1, 2, 3])))
    assert set(plt.get_fignums()) - before == {ax.figure.number}


def test_line_per_series_with_dates_and_title_from_request():
    frame = trend(
        series("$pageview", [3, 5, 2]),
        series("signup", [1, 0, 4], order=1),
        request={"insight": "TRENDS", "events": [{"id": "$pageview", "order": 0}, {"id": "signup", "order": 1}]},
    )
    ax = plot_trend(frame)
    assert isinstance(ax, Axes)
    lines = ax.get_lines()
    assert [line.get_ydata().tolist() for line in lines] == [[3.0, 5.0, 2.0], [1.0, 0.0, 4.0]]
    assert [str(x)[:10] for x in lines[0].get_xdata()] == DAYS
    assert ax.get_title() == "$pageview, signup"
    assert [text.get_text() for text in ax.get_legend().get_texts()] == ["$pageview", "signup"]


def test_timestamps_are_drawn_at_the_projects_wall_clock():
    frame = trend(series("a", [1, 2], days=["2026-01-01T09:00:00", "2026-01-01T10:00:00"]), timezone="Europe/Paris")
    x = plot_trend(frame).get_lines()[0].get_xdata()
    assert [pd.Timestamp(value).hour for value in x] == [9, 10]


def test_cumulative_asked_of_a_per_period_answer_adds_up_each_series():
    frame = trend(series("a", [3, 5, 2]), series("b", [0, 1, 1], order=1), request={"insight": "TRENDS"})
    lines = plot_trend(frame, kind="cumulative").get_lines()
    assert [line.get_ydata().tolist() for line in lines] == [[3.0, 8.0, 10.0], [0.0, 1.0, 2.0]]


@pytest.mark.parametrize("kind", [None, "cumulative", "line"])
def test_a_cumulative_answer_is_drawn_as_the_api_gave_it(kind):
    # ActionsLineGraphCumulative: the backend already answers running totals, 3, 3+5, 3+5+2
    request = {"insight": "TRENDS", "display": "ActionsLineGraphCumulative"}
    frame = trend(series("a", [3, 8, 10]), request=request)
    assert plot_trend(frame, kind=kind).get_lines()[0].get_ydata().tolist() == [3.0, 8.0, 10.0]


def test_the_total_of_a_cumulative_answer_is_its_last_running_total():
    request = {"insight": "TRENDS", "display": "ActionsLineGraphCumulative"}
    frame = trend(series("a", [3, 8, 10]), series("b", [1, 1, 4], order=1), request=request)
    assert texts(plot_trend(frame, kind="number"))[0] == "10"
    assert widths(plot_trend(frame, kind="bar_value")) == [10.0, 4.0]


def test_compare_previous_is_dashed_over_the_current_dates_in_the_same_colour():
    frame = trend(series("a", [4, 6, 8], compare="current"), series("a", [1, 2, 3], days=PREVIOUS, compare="previous"))
    current, previous = plot_trend(frame).get_lines()
    assert previous.get_ydata().tolist() == [1.0, 2.0, 3.0]
    assert previous.get_xdata().tolist() == current.get_xdata().tolist()
    assert (current.get_linestyle(), previous.get_linestyle()) == ("-", "--")
    assert current.get_color() == previous.get_color()
    # 4 + 6 + 8 = 18 against 1 + 2 + 3 = 6: three times as many, +200%
    assert [line.get_label() for line in (current, previous)] == ["a (current, +200%)", "a (previous)"]


def test_the_compared_change_is_a_fall_too_and_is_left_out_when_the_previous_period_had_nothing():
    falling = trend(
        series("a", [1, 2, 0], compare="current"), series("a", [4, 4, 4], days=PREVIOUS, compare="previous")
    )
    # 3 against 12: a quarter of it, -75%
    assert [line.get_label() for line in plot_trend(falling).get_lines()] == ["a (current, -75%)", "a (previous)"]
    empty = trend(series("a", [1, 2, 0], compare="current"), series("a", [0, 0, 0], days=PREVIOUS, compare="previous"))
    assert [line.get_label() for line in plot_trend(empty).get_lines()] == ["a (current)", "a (previous)"]


def test_breakdown_values_are_their_own_series():
    frame = trend(series("a", [1, 1, 1], breakdown="Chrome"), series("a", [2, 2, 2], breakdown="Safari"))
    lines = plot_trend(frame).get_lines()
    assert [line.get_label() for line in lines] == ["a - Chrome", "a - Safari"]
    assert lines[0].get_color() != lines[1].get_color()


def test_many_series_put_the_legend_below_the_plot():
    frame = trend(*[series("a", [index] * 3, breakdown=f"b{index}") for index in range(6)])
    ax = plot_trend(frame)
    ax.figure.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    assert legend.y1 < min(label.get_window_extent().y0 for label in ax.get_xticklabels() if label.get_text())
    assert legend.x0 >= 0 and legend.x1 <= ax.figure.bbox.x1


def test_few_series_keep_the_legend_inside():
    frame = trend(series("a", [1, 2, 3]), series("b", [3, 2, 1], order=1))
    ax = plot_trend(frame)
    ax.figure.canvas.draw()
    assert ax.get_legend().get_window_extent().x0 < ax.get_window_extent().x1


def test_bars_are_grouped_by_date():
    frame = trend(series("a", [3, 5, 2]), series("b", [1, 0, 4], order=1))
    ax = plot_trend(frame, kind="bar")
    assert heights(ax) == [3.0, 5.0, 2.0, 1.0, 0.0, 4.0]
    assert [label.get_text() for label in ax.get_xticklabels()] == ["Jan 01", "Jan 02", "Jan 03"]
    # bar 0 of "a" sits left of bar 0 of "b", both around date position 0
    assert ax.patches[0].get_x() < ax.patches[3].get_x() < 0.4


def test_display_in_the_request_chooses_the_kind():
    frame = trend(series("a", [3, 5, 2]), request={"insight": "TRENDS", "display": "ActionsBar"})
    assert heights(plot_trend(frame)) == [3.0, 5.0, 2.0]
    frame.attrs["request"]["display"] = "ActionsLineGraphCumulative"
    # the backend answered running totals; they are not added up a second time
    assert plot_trend(frame).get_lines()[0].get_ydata().tolist() == [3.0, 5.0, 2.0]


def test_aggregated_frame_is_drawn_as_value_bars_largest_first():
    frame = trend(
        {"action": {"name": "a", "order": 0}, "aggregated_value": 5},
        {"action": {"name": "b", "order": 1}, "aggregated_value": 9},
    )
    ax = plot_trend(frame)
    assert widths(ax) == [9.0, 5.0]
    ticks = {label.get_text(): tick for label, tick in zip(ax.get_yticklabels(), ax.get_yticks(), strict=True)}
    assert ticks["b"] > ticks["a"]  # the largest bar is on top
    assert texts(ax) == ["9", "5"]


def test_pie_shares_of_positive_totals():
    frame = trend(series("a", [3, 5, 2]), series("b", [5, 0, 5], order=1), series("c", [0, 0, 0], order=2))
    ax = plot_trend(frame, kind="pie")
    wedges = ax.patches
    assert len(wedges) == 2  # c has no share
    spans = [wedge.theta2 - wedge.theta1 for wedge in wedges]
    assert spans == pytest.approx([180.0, 180.0])
    assert texts(ax) == ["50%", "50%"]
    assert [text.get_text() for text in ax.get_legend().get_texts()] == ["a: 10 (50%)", "b: 10 (50%)"]
    assert ax.get_xlabel() == "Total 20"


def test_pie_legend_of_a_series_named_with_its_math_reads_without_a_second_colon():
    frame = trend(series("purchase: sum of amount", [30, 12, 0]), series("b", [58, 0, 0], order=1))
    ax = plot_trend(frame, kind="pie")
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert labels == ["b: 58 (58%)", "purchase: sum of amount \u2014 42 (42%)"]


def test_number_shows_the_total_and_the_change_from_the_previous_period():
    frame = trend(series("a", [3, 5, 2], compare="current"), series("a", [2, 2, 4], days=PREVIOUS, compare="previous"))
    ax = plot_trend(frame, kind="number")
    assert texts(ax) == ["10", "a", "Previous period 8 (+25%)"]
    assert ax.texts[0].get_fontweight() == "bold"


def test_wide_frames_are_accepted():
    wide = trend(series("a", [1, 2, 3]), series("b", [4, 5, 6], order=1), wide=False)
    from toolkit.frames.results import wide_trend_frame

    lines = plot_trend(wide_trend_frame(wide)).get_lines()
    assert [line.get_ydata().tolist() for line in lines] == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def test_draws_on_the_given_axes():
    figure = plt.figure()
    try:
        ax = figure.add_subplot()
        assert plot_trend(trend(series("a", [1, 2, 3])), ax=ax) is ax
    finally:
        plt.close(figure)


@pytest.mark.parametrize(
    "plot, frame",
    [
        (plot_trend, lambda: trend()),
        (plot_funnel, lambda: funnel_frame({"result": []})),
        (plot_time_to_convert, lambda: time_to_convert_frame({"result": {}})),
        (plot_funnel_trends, lambda: funnel_trends_frame({"result": []})),
        (plot_funnel_trends, lambda: funnel_trends_frame({"result": [{"days": DAYS[:1], "data": [None]}]})),
        (plot_retention, lambda: retention_frame({"result": []})),
        (plot_paths, lambda: paths_frame({"result": []})),
    ],
)
def test_empty_frames_say_no_data(plot, frame):
    assert texts(plot(frame())) == ["No data"]


@pytest.mark.parametrize(
    "frame, kwargs, message",
    [
        (pd.DataFrame({"x": [1]}), {}, "plot_trend takes the frame of Client.trend"),
        (None, {"kind": "area"}, "kind must be one of"),
    ],
)
def test_bad_input_is_a_clear_error(frame, kwargs, message):
    frame = trend(series("a", [1, 2, 3])) if frame is None else frame
    with pytest.raises(ValueError, match=message):
        plot_trend(frame, **kwargs)


def steps(*counts, breakdown=None, names=("signup", "activate", "pay")):
    return [
        {"order": order, "name": names[order], "count": count, "breakdown_value": breakdown}
        for order, count in enumerate(counts)
    ]


def test_funnel_bars_show_counts_and_conversion():
    frame = funnel_frame({"result": steps(10, 4, 1)})
    frame.attrs["request"] = {"insight": "FUNNELS", "events": [{"id": n, "order": i} for i, n in enumerate("abc")]}
    ax = plot_funnel(frame)
    assert heights(ax) == [10.0, 4.0, 1.0]
    assert texts(ax) == ["10\n100%", "4\n40%", "1\n10%"]
    assert [label.get_text() for label in ax.get_xticklabels()] == ["1. signup", "2. activate", "3. pay"]
    assert ax.get_title() == "a → b → c"
    assert ax.get_legend() is None


def test_funnel_breakdown_groups_bars_per_step():
    frame = funnel_frame({"result": [steps(10, 5, 2, breakdown="Chrome"), steps(6, 3, 0, breakdown="Safari")]})
    ax = plot_funnel(frame)
    assert heights(ax) == [10.0, 5.0, 2.0, 6.0, 3.0, 0.0]
    assert texts(ax)[3:] == ["6\n100%", "3\n50%", "0\n0%"]
    assert [text.get_text() for text in ax.get_legend().get_texts()] == ["Chrome", "Safari"]
    # step 1 of Chrome is left of step 1 of Safari, and both are left of step 2
    xs = [patch.get_x() for patch in ax.patches]
    assert xs[0] < xs[3] < xs[1]


def test_horizontal_funnel_lists_steps_top_down():
    ax = plot_funnel(funnel_frame({"result": steps(8, 2, 2)}), orientation="horizontal")
    assert widths(ax) == [8.0, 2.0, 2.0]
    assert texts(ax) == ["8 (100%)", "2 (25%)", "2 (25%)"]
    assert ax.yaxis_inverted()
    with pytest.raises(ValueError, match="orientation"):
        plot_funnel(funnel_frame({"result": steps(8, 2, 2)}), orientation="diagonal")


def test_time_to_convert_bins_in_minutes_with_the_average():
    # bins of 2 minutes: 0-120 s, 120-240 s, 240-360 s; average 150 s = 2.5 min
    frame = time_to_convert_frame({"result": {"bins": [[0, 3], [120, 5], [240, 1]], "average_conversion_time": 150}})
    ax = plot_time_to_convert(frame)
    bars = [patch for patch in ax.patches if isinstance(patch, Rectangle)]
    assert [float(bar.get_height()) for bar in bars] == [3.0, 5.0, 1.0]
    assert [float(bar.get_x()) for bar in bars] == [0.0, 2.0, 4.0]
    assert [float(bar.get_width()) for bar in bars] == [2.0, 2.0, 2.0]
    assert ax.get_xlabel() == "Time to convert (minutes)"
    average = ax.get_lines()[0]
    assert list(average.get_xdata()) == [2.5, 2.5]
    assert average.get_label() == "Average 2 min 30 s"


def test_time_to_convert_picks_days_for_long_windows():
    frame = time_to_convert_frame({"result": {"bins": [[0, 1], [172800, 2]]}})
    ax = plot_time_to_convert(frame)
    assert ax.get_xlabel() == "Time to convert (days)"
    assert [float(patch.get_x()) for patch in ax.patches] == [0.0, 2.0]
    assert ax.get_lines() == []  # no average in the answer, no line


def test_funnel_trends_lines_per_breakdown_in_percent():
    frame = funnel_trends_frame(
        {
            "result": [
                {"days": DAYS, "data": [25.0, 50.0, 0.0], "breakdown_value": "Chrome"},
                {"days": DAYS, "data": [10.0, 20.0, 30.0], "breakdown_value": "Safari"},
            ]
        }
    )
    ax = plot_funnel_trends(frame)
    lines = ax.get_lines()
    assert [line.get_ydata().tolist() for line in lines] == [[0.25, 0.5, 0.0], [0.1, 0.2, 0.3]]
    assert [line.get_label() for line in lines] == ["Chrome", "Safari"]
    assert ax.yaxis.get_major_formatter()(0.5, 0) == "50%"


def test_retention_heat_map_keeps_unreached_periods_blank():
    rows = [
        {"label": "Day 0", "date": "2026-01-01T00:00:00Z", "values": [{"count": 4}, {"count": 2}, {"count": 1}]},
        {"label": "Day 1", "date": "2026-01-02T00:00:00Z", "values": [{"count": 5}, {"count": 4}]},
        {"label": "Day 2", "date": "2026-01-03T00:00:00Z", "values": [{"count": 0}]},
    ]
    frame = retention_frame({"result": rows})
    frame.attrs["request"] = {"period": "Day"}
    ax = plot_retention(frame)
    grid = ax.images[0].get_array()
    assert grid.filled(-1).tolist() == [[1.0, 0.5, 0.25], [1.0, 0.8, -1], [-1, -1, -1]]
    assert texts(ax) == ["100%", "50%", "25%", "100%", "80%"]
    assert [label.get_text() for label in ax.get_yticklabels()] == [
        "Jan 01, 2026 (4)",
        "Jan 02, 2026 (5)",
        "Jan 03, 2026 (0)",
    ]
    assert [label.get_text() for label in ax.get_xticklabels()] == ["Day 0", "Day 1", "Day 2"]


def test_retention_with_breakdown_shows_one_value_or_a_heat_map_per_value():
    rows = [
        {
            "label": "Day 0",
            "date": "2026-01-01T00:00:00Z",
            "breakdown_value": "a",
            "values": [{"count": 2}, {"count": 1}],
        },
        {
            "label": "Day 0",
            "date": "2026-01-01T00:00:00Z",
            "breakdown_value": "b",
            "values": [{"count": 4}, {"count": 3}],
        },
    ]
    frame = retention_frame({"result": rows})
    first = plot_retention(frame)
    # a heat map per value, in the API's order, titled with it: a's 1 of 2 back (50%), b's 3 of 4 (75%)
    maps = first.figure.axes
    assert maps[0] is first
    assert [ax.get_title() for ax in maps] == ["Retention by day: a", "Retention by day: b"]
    assert [ax.images[0].get_array().tolist() for ax in maps] == [[[1.0, 0.5]], [[1.0, 0.75]]]
    assert [[label.get_text() for label in ax.get_yticklabels()] for ax in maps] == [
        ["Jan 01, 2026 (2)"],
        ["Jan 01, 2026 (4)"],
    ]
    only_b = plot_retention(frame, breakdown_value="b")
    assert only_b.images[0].get_array().tolist() == [[1.0, 0.75]]
    assert len(only_b.figure.axes) == 1


def test_retention_with_breakdown_draws_on_one_given_axes_per_value():
    rows = [
        {"label": "Day 0", "date": "2026-01-01T00:00:00Z", "breakdown_value": value, "values": [{"count": 2}]}
        for value in ("a", "b")
    ]
    frame = retention_frame({"result": rows})
    figure, axes = plt.subplots(1, 2)
    assert plot_retention(frame, list(axes)) is axes[0]
    assert [ax.get_title() for ax in axes] == ["Retention by day: a", "Retention by day: b"]
    with pytest.raises(ValueError, match="2 breakdown values: give one Axes per value"):
        plot_retention(frame, axes[0])


def edges(*rows):
    return paths_frame({"result": [{"source": s, "target": t, "value": v} for s, t, v in rows]})


def nodes(ax):
    return {
        patch.get_gid(): float(patch.get_height())
        for patch in ax.patches
        if isinstance(patch, Rectangle) and (patch.get_gid() or "").startswith("node:")
    }


def test_paths_nodes_follow_their_flows_and_ribbons_their_edges():
    ax = plot_paths(edges(("1_/home", "2_/pricing", 6), ("1_/home", "2_/blog", 2), ("2_/pricing", "3_/signup", 3)))
    sizes = nodes(ax)
    # /home sends 8; /pricing receives 6 and sends 3 (its size is the larger); /blog 2; /signup receives 3
    assert set(sizes) == {"node:1:/home", "node:2:/pricing", "node:2:/blog", "node:3:/signup"}
    unit = sizes["node:1:/home"] / 8
    assert sizes["node:2:/pricing"] == pytest.approx(6 * unit)
    assert sizes["node:2:/blog"] == pytest.approx(2 * unit)
    assert sizes["node:3:/signup"] == pytest.approx(3 * unit)
    ribbons = [patch for patch in ax.patches if isinstance(patch, PathPatch)]
    assert len(ribbons) == 3
    thickness = sorted(np.ptp(ribbon.get_path().vertices[[3, 4], 1]) for ribbon in ribbons)
    assert thickness == pytest.approx([2 * unit, 3 * unit, 6 * unit])
    assert sorted(texts(ax)) == ["/blog (2)", "/home (8)", "/pricing (6)", "/signup (3)"]


def test_paths_keep_only_the_largest_edges():
    frame = edges(("1_a", "2_b", 5), ("1_a", "2_c", 1), ("2_b", "3_d", 4))
    ax = plot_paths(frame, max_edges=2)
    assert set(nodes(ax)) == {"node:1:a", "node:2:b", "node:3:d"}
    with pytest.raises(ValueError, match="max_edges"):
        plot_paths(frame, max_edges=0)


def test_empty_paths_say_no_data():
    assert texts(plot_paths(edges())) == ["No data"]


@pytest.mark.parametrize(
    "days, labels",
    [
        (["2026-01-01T09:00:00", "2026-01-01T10:00:00"], ["Jan 01 09:00", "Jan 01 10:00"]),
        (["2025-01-01", "2026-03-01"], ["Jan 2025", "Mar 2026"]),
    ],
)
def test_bar_labels_follow_the_interval(days, labels):
    ax = plot_trend(trend(series("a", [1, 2], days=days)), kind="bar")
    assert [label.get_text() for label in ax.get_xticklabels()] == labels


def test_bar_ticks_are_thinned_to_stay_readable():
    days = [f"2026-01-{day:02d}" for day in range(1, 31)]
    ax = plot_trend(trend(series("a", list(range(30)), days=days)), kind="bar")
    # 30 dates, at most 12 labels: every third date
    assert [label.get_text() for label in ax.get_xticklabels()][:3] == ["Jan 01", "Jan 04", "Jan 07"]
    assert len(ax.get_xticklabels()) == 10
    assert heights(ax) == [float(value) for value in range(30)]


def test_retention_periods_are_named_from_the_labels_without_a_request():
    rows = [{"label": "Week 0", "date": "2026-01-05T00:00:00Z", "values": [{"count": 3}, {"count": 1}]}]
    ax = plot_retention(retention_frame({"result": rows}))
    assert [label.get_text() for label in ax.get_xticklabels()] == ["Week 0", "Week 1"]
    assert ax.get_title() == "Retention by week"
