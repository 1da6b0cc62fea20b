"""Plots a person can read: text as written, PostHog's bucket names, labels that do not collide, distinct
colours, axes from 0 with whole-number ticks for counts, readable dates and the period still in progress.

Each test checks the drawn artists (line data, bar heights, texts and their boxes) against the frame."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex

from tests.toolkit.plots.trend_responses import DAYS, series, trend
from toolkit.frames import funnel_frame, funnel_trends_frame, paths_frame, retention_frame
from toolkit.labels import BREAKDOWN_NULL, BREAKDOWN_OTHER
from toolkit.plots import plot_funnel, plot_funnel_trends, plot_paths, plot_retention, plot_trend


def steps(*counts, breakdown=None, names=("signup", "activate", "pay")):
    return [
        {"order": order, "name": names[order], "count": count, "breakdown_value": breakdown}
        for order, count in enumerate(counts)
    ]


def legend_texts(ax):
    return [text.get_text() for text in ax.get_legend().get_texts()]


def shown_texts(ax):
    return [text for text in ax.texts if text.get_text()]


def boxes_overlap(boxes):
    return any(a.overlaps(b) for index, a in enumerate(boxes) for b in boxes[index + 1 :])


def visible_xtick_labels(ax):
    left, right = sorted(ax.get_xlim())
    return [
        label
        for tick, label in zip(ax.get_xticks(), ax.get_xticklabels(), strict=False)
        if left <= tick <= right and label.get_text()
    ]


@pytest.fixture(autouse=True)
def closed_figures():
    before = set(plt.get_fignums())
    yield
    for number in set(plt.get_fignums()) - before:
        plt.close(number)


# --- "$" is drawn as written ----------------------------------------------------------------------------


def test_dollar_names_are_drawn_as_written_not_as_maths():
    request = {"insight": "TRENDS", "events": [{"id": "$pageview", "order": 0}], "breakdown": "$browser"}
    frame = trend(series("$pageview", [1, 2, 3], breakdown="$Chrome"), series("$pageview", [2, 2, 2], breakdown="x"))
    frame.attrs["request"] = request
    ax = plot_trend(frame)
    ax.figure.canvas.draw()
    assert ax.get_title() == "$pageview by $browser"
    assert legend_texts(ax) == ["$pageview - $Chrome", "$pageview - x"]
    drawn = [ax.title, *ax.get_legend().get_texts()]
    assert [text.get_parse_math() for text in drawn] == [False, False, False]


def test_dollar_tick_labels_bar_texts_and_pie_legend_are_drawn_as_written():
    bars = plot_trend(
        trend(series("$pageview", [1, 2, 3]), series("$autocapture", [1, 0, 0], order=1)), kind="bar_value"
    )
    labels = bars.get_yticklabels()
    assert [label.get_text() for label in labels] == ["$pageview", "$autocapture"]
    assert not any(label.get_parse_math() for label in labels)
    pie = plot_trend(trend(series("$a", [1, 1, 1]), series("$b", [1, 0, 0], order=1)), kind="pie")
    assert legend_texts(pie) == ["$a: 3 (75%)", "$b: 1 (25%)"]
    assert not any(text.get_parse_math() for text in pie.get_legend().get_texts())
    funnel = plot_funnel(funnel_frame({"result": steps(4, 2, names=("$pageview", "$identify"))}))
    assert [label.get_text() for label in funnel.get_xticklabels()] == ["1. $pageview", "2. $identify"]
    assert not any(label.get_parse_math() for label in funnel.get_xticklabels())
    paths = plot_paths(paths_frame({"result": [{"source": "1_$pageview", "target": "2_$leave", "value": 3}]}))
    assert sorted(text.get_text() for text in paths.texts) == ["$leave (3)", "$pageview (3)"]
    assert not any(text.get_parse_math() for text in paths.texts)


# --- PostHog's null and other buckets ----------------------------------------------------------------------


def test_null_and_other_buckets_read_none_and_other_in_trend_legends_and_pies():
    frame = trend(
        series("a", [5, 5, 5], breakdown="Chrome"),
        series("a", [1, 1, 1], breakdown=BREAKDOWN_NULL),
        series("a", [2, 2, 2], breakdown=BREAKDOWN_OTHER),
    )
    assert legend_texts(plot_trend(frame)) == ["a - Chrome", "a - None", "a - Other"]
    assert legend_texts(plot_trend(frame, kind="pie")) == [
        "a - Chrome: 15 (62.5%)",
        "a - None: 3 (12.5%)",
        "a - Other: 6 (25%)",
    ]
    bars = plot_trend(frame, kind="bar_value")
    # by total, then the buckets: Other last although its total is larger than None's
    assert [label.get_text() for label in bars.get_yticklabels()] == ["a - Chrome", "a - None", "a - Other"]
    # the frame keeps the raw bucket names (a filter on them still works)
    assert set(frame["breakdown_value"]) == {"Chrome", BREAKDOWN_NULL, BREAKDOWN_OTHER}


def test_null_and_other_buckets_in_funnel_and_retention_plots():
    frame = funnel_frame({"result": [steps(6, 3, breakdown=BREAKDOWN_NULL), steps(4, 1, breakdown=BREAKDOWN_OTHER)]})
    assert legend_texts(plot_funnel(frame)) == ["None", "Other"]
    rates = funnel_trends_frame(
        {
            "result": [
                {"days": DAYS, "data": [10.0, 20.0, 30.0], "breakdown_value": BREAKDOWN_NULL},
                {"days": DAYS, "data": [5.0, 5.0, 5.0], "breakdown_value": "Safari"},
            ]
        }
    )
    assert legend_texts(plot_funnel_trends(rates)) == ["Safari", "None"]  # the buckets after the values
    rows = [
        {"label": "Day 0", "date": "2026-01-01T00:00:00Z", "breakdown_value": value, "values": [{"count": 2}]}
        for value in (BREAKDOWN_NULL, "pro")
    ]
    maps = plot_retention(retention_frame({"result": rows})).figure.axes
    # a heat map per value, the null bucket after the values
    assert [ax.get_title() for ax in maps] == ["Retention by day: pro", "Retention by day: None"]


# --- labels that do not collide ----------------------------------------------------------------------------


def test_small_pie_wedges_keep_their_share_in_the_legend_and_no_texts_collide():
    totals = [400, 300, 200, 30, 20, 10, 5, 5, 3, 2, 1, 1]
    frame = trend(*[series("a", [total, 0, 0], breakdown=f"value {index}") for index, total in enumerate(totals)])
    ax = plot_trend(frame, kind="pie")
    ax.figure.canvas.draw()
    wedges = ax.patches
    assert [wedge.theta2 - wedge.theta1 for wedge in wedges] == pytest.approx([t / 977 * 360 for t in totals])
    # shares of at least 5% inside their wedge (400, 300, 200 of 977); the rest only in the legend
    assert [text.get_text() for text in shown_texts(ax)] == ["40.9%", "30.7%", "20.5%"]
    assert not boxes_overlap([text.get_window_extent() for text in shown_texts(ax)])
    assert legend_texts(ax)[-1] == "a - value 11: 1 (0.1%)"
    legend = ax.get_legend().get_window_extent()
    assert not any(legend.overlaps(wedge.get_window_extent()) for wedge in wedges)


@pytest.mark.parametrize("orientation", ["vertical", "horizontal"])
@pytest.mark.parametrize("values", [2, 8, 25])
def test_funnel_bar_labels_never_run_into_each_other_or_other_bars(orientation, values):
    rows = [steps(1000 + 37 * index, 400 + index, 9, breakdown=f"plan {index}") for index in range(values)]
    ax = plot_funnel(funnel_frame({"result": rows}), orientation=orientation)
    ax.figure.canvas.draw()
    assert [float(p.get_height() if orientation == "vertical" else p.get_width()) for p in ax.patches][:3] == [
        1000.0,
        400.0,
        9.0,
    ]
    labels = shown_texts(ax)
    # every bar keeps a label while they fit (turned along vertical bars); none when the bars are too thin
    fits = values == 2 or (values == 8 and orientation == "vertical")
    assert len(labels) == (len(ax.patches) if fits else 0)
    boxes = [text.get_window_extent() for text in labels]
    assert not boxes_overlap(boxes)
    # labels come in the bars' order; none touches a bar but its own, all stay inside the plot
    for own, box in zip(ax.patches, boxes, strict=False):
        assert not any(box.overlaps(bar.get_window_extent()) for bar in ax.patches if bar is not own)
        assert ax.bbox.contains(box.x0, box.y0) and ax.bbox.contains(box.x1, box.y1)


def test_a_funnel_with_few_values_keeps_counts_and_conversion_on_every_bar():
    rows = [steps(10, 5, 2, breakdown="Chrome"), steps(6, 3, 0, breakdown="Safari")]
    ax = plot_funnel(funnel_frame({"result": rows}))
    assert [text.get_text() for text in ax.texts] == ["10\n100%", "5\n50%", "2\n20%", "6\n100%", "3\n50%", "0\n0%"]


# --- colours and legend -------------------------------------------------------------------------------------


def test_twenty_five_breakdown_values_get_twenty_five_colours():
    frame = trend(*[series("a", [index, 1, 2], breakdown=f"v{index}") for index in range(25)])
    lines = plot_trend(frame).get_lines()
    assert len({to_hex(line.get_color()) for line in lines}) == 25
    bars = plot_trend(frame, kind="bar").patches
    assert len({to_hex(bar.get_facecolor()) for bar in bars}) == 25
    funnel = plot_funnel(funnel_frame({"result": [steps(5, 2, breakdown=f"v{i}") for i in range(25)]}))
    assert len({to_hex(bar.get_facecolor()) for bar in funnel.patches}) == 25


def test_a_legend_wider_than_the_plot_goes_below_it_and_fits_the_figure():
    long = "a very long breakdown value that would squeeze the plot if it stood beside it"
    frame = trend(series("signup", [1, 2, 3], breakdown=long), series("signup", [3, 2, 1], breakdown=long + " too"))
    ax = plot_trend(frame)
    ax.figure.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    assert legend.y1 < min(label.get_window_extent().y0 for label in visible_xtick_labels(ax))
    assert 0 <= legend.x0 and legend.x1 <= ax.figure.bbox.x1
    assert ax.get_window_extent().width > 0.8 * ax.figure.bbox.width


# --- axes ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["line", "bar"])
def test_an_all_zero_series_has_no_negative_axis(kind):
    ax = plot_trend(trend(series("a", [0, 0, 0])), kind=kind)
    bottom, top = ax.get_ylim()
    assert bottom == 0 and top > 0


def test_an_all_zero_funnel_has_no_negative_axis():
    ax = plot_funnel(funnel_frame({"result": steps(0, 0)}))
    assert ax.get_ylim()[0] == 0 and ax.get_ylim()[1] > 0


def tick_values(axis):
    low, high = axis.get_view_interval()
    return [value for value in axis.get_majorticklocs() if low <= value <= high]


@pytest.mark.parametrize("kind", ["line", "bar"])
def test_counts_get_whole_number_ticks(kind):
    ax = plot_trend(trend(series("a", [0, 1, 2])), kind=kind)
    assert tick_values(ax.yaxis) == [0.0, 1.0, 2.0]
    funnel = plot_funnel(funnel_frame({"result": steps(3, 1)}))
    assert all(float(value).is_integer() for value in tick_values(funnel.yaxis))


def test_averages_keep_fractional_ticks():
    request = {"insight": "TRENDS", "events": [{"id": "a", "order": 0, "math": "avg", "math_property": "x"}]}
    ax = plot_trend(trend(series("a", [0, 1, 2], math="avg"), request=request))
    assert not all(float(value).is_integer() for value in tick_values(ax.yaxis))


def test_the_number_display_names_its_series_once():
    request = {"insight": "TRENDS", "events": [{"id": "signup", "order": 0}], "display": "BoldNumber"}
    frame = trend({"action": {"id": "signup", "name": "signup", "order": 0}, "aggregated_value": 42}, request=request)
    ax = plot_trend(frame)
    assert ax.get_title() == "signup"
    assert [text.get_text() for text in ax.texts] == ["42"]


# --- dates ---------------------------------------------------------------------------------------------------


def days(count, *, start="2026-01-01", freq="D"):
    stamps = pd.date_range(start, periods=count, freq=freq)
    return [stamp.strftime("%Y-%m-%dT%H:%M:%S" if freq == "h" else "%Y-%m-%d") for stamp in stamps]


@pytest.mark.parametrize("kind", ["line", "bar"])
@pytest.mark.parametrize("count, freq", [(90, "D"), (24 * 7, "h"), (400, "D")])
def test_many_dates_give_a_few_labels_that_do_not_overlap(kind, count, freq):
    frame = trend(series("a", list(range(count)), days=days(count, freq=freq)))
    ax = plot_trend(frame, kind=kind)
    ax.figure.canvas.draw()
    labels = visible_xtick_labels(ax)
    assert 2 <= len(labels) <= 12
    assert not boxes_overlap([label.get_window_extent() for label in labels])
    plotted = ax.get_lines()[0].get_ydata() if kind == "line" else [bar.get_height() for bar in ax.patches]
    assert list(map(float, plotted)) == [float(value) for value in range(count)]


def test_the_funnel_trend_dates_stay_readable():
    frame = funnel_trends_frame({"result": [{"days": days(90), "data": [50.0] * 90}]})
    ax = plot_funnel_trends(frame)
    ax.figure.canvas.draw()
    labels = visible_xtick_labels(ax)
    assert 2 <= len(labels) <= 12
    assert not boxes_overlap([label.get_window_extent() for label in labels])


# --- the period still in progress ---------------------------------------------------------------------------


def line_parts(ax):
    return [
        (line.get_linestyle(), [str(x)[:16] for x in line.get_xdata()], line.get_ydata().tolist())
        for line in ax.get_lines()
    ]


def test_the_day_still_in_progress_is_a_dashed_last_segment():
    # computed at noon on 3 January (UTC project): the 3 January bucket has not ended
    frame = trend(series("a", [3, 5, 2]), last_refresh="2026-01-03T12:00:00.000000Z", timezone="UTC")
    solid, dashed = line_parts(plot_trend(frame))
    assert solid == ("-", ["2026-01-01T00:00", "2026-01-02T00:00"], [3.0, 5.0])
    assert dashed == ("--", ["2026-01-02T00:00", "2026-01-03T00:00"], [5.0, 2.0])


def test_a_finished_range_has_no_dashed_segment():
    frame = trend(series("a", [3, 5, 2]), last_refresh="2026-01-04T00:00:00.000000Z", timezone="UTC")
    assert [style for style, _, _ in line_parts(plot_trend(frame))] == ["-"]


def test_the_last_day_ends_at_midnight_in_the_projects_timezone():
    # 3 January in Paris ends at 2026-01-03T23:00Z; at 23:30Z it is over, at 22:30Z it is not
    over = trend(series("a", [3, 5, 2]), last_refresh="2026-01-03T23:30:00Z", timezone="Europe/Paris")
    assert [style for style, _, _ in line_parts(plot_trend(over))] == ["-"]
    running = trend(series("a", [3, 5, 2]), last_refresh="2026-01-03T22:30:00Z", timezone="Europe/Paris")
    assert [style for style, _, _ in line_parts(plot_trend(running))] == ["-", "--"]


@pytest.mark.parametrize(
    "interval, stamps, computed, dashed_from",
    [
        ("hour", ["2026-01-03T09:00:00", "2026-01-03T10:00:00", "2026-01-03T11:00:00"], "2026-01-03T11:59:00Z", 1),
        ("week", ["2025-12-22", "2025-12-29", "2026-01-05"], "2026-01-07T08:00:00Z", 1),
        ("month", ["2025-11-01", "2025-12-01", "2026-01-01"], "2026-01-31T23:00:00Z", 1),
        # the range runs past now: the future buckets are in progress too, dashed from the last ended one
        ("day", ["2026-01-01", "2026-01-02", "2026-01-03"], "2026-01-01T10:00:00Z", 0),
    ],
)
def test_the_open_bucket_follows_the_interval(interval, stamps, computed, dashed_from):
    request = {"insight": "TRENDS", "interval": interval}
    frame = trend(series("a", [4, 6, 1], days=stamps), request=request, last_refresh=computed, timezone="UTC")
    parts = line_parts(plot_trend(frame))
    assert parts[-1][0] == "--"
    assert parts[-1][2] == [4.0, 6.0, 1.0][dashed_from:]
    if dashed_from:
        assert parts[0] == ("-", parts[0][1], [4.0, 6.0][: dashed_from + 1])


def test_the_previous_period_is_never_in_progress_and_the_legend_names_each_series_once():
    frame = trend(
        series("a", [3, 5, 2], compare="current"),
        series("a", [1, 1, 1], days=["2025-12-29", "2025-12-30", "2025-12-31"], compare="previous"),
        series("b", [1, 2, 3], order=1, compare="current"),
        last_refresh="2026-01-03T12:00:00Z",
    )
    ax = plot_trend(frame)
    assert [line.get_ydata().tolist() for line in ax.get_lines() if line.get_gid() == "in progress"] == [
        [5.0, 2.0],
        [2.0, 3.0],
    ]
    # a: 3 + 5 + 2 = 10 against 1 + 1 + 1 = 3, +233.3%; b has no previous period to compare with
    assert legend_texts(ax) == ["a (current, +233.3%)", "a (previous)", "b (current)"]


def test_a_cumulative_answer_in_progress_keeps_its_running_totals():
    request = {"insight": "TRENDS", "display": "ActionsLineGraphCumulative"}
    frame = trend(series("a", [3, 8, 10]), request=request, last_refresh="2026-01-03T12:00:00Z")
    solid, dashed = line_parts(plot_trend(frame))
    assert (solid[2], dashed[2]) == ([3.0, 8.0], [8.0, 10.0])


def test_without_the_time_of_the_answer_nothing_is_marked():
    assert np.array_equal(plot_trend(trend(series("a", [3, 5, 2]))).get_lines()[0].get_ydata(), [3.0, 5.0, 2.0])
    assert len(plot_trend(trend(series("a", [3, 5, 2]))).get_lines()) == 1


# --- bars of the period still in progress, dates without an offset, buckets last -----------------------------


def in_progress_bars(ax):
    return [
        (round(float(bar.get_height())), bar.get_linestyle()) for bar in ax.patches if bar.get_gid() == "in progress"
    ]


def test_the_bar_of_the_day_still_in_progress_is_light_and_dashed():
    # computed at noon on 3 January (UTC project): the 3 January bar is a partial day
    frame = trend(series("a", [3, 5, 2]), last_refresh="2026-01-03T12:00:00Z", timezone="UTC")
    ax = plot_trend(frame, kind="bar")
    assert in_progress_bars(ax) == [(2, "--")]
    last, full = ax.patches[-1], ax.patches[0]
    assert last.get_facecolor()[3] < 0.5 and full.get_facecolor()[3] == 1.0
    assert to_hex(last.get_edgecolor()) == to_hex(full.get_facecolor())  # the series' colour, outlined


def test_bars_of_a_finished_range_or_of_an_unknown_time_are_not_marked():
    finished = trend(series("a", [3, 5, 2]), last_refresh="2026-01-04T00:00:00Z", timezone="UTC")
    assert in_progress_bars(plot_trend(finished, kind="bar")) == []
    assert in_progress_bars(plot_trend(trend(series("a", [3, 5, 2])), kind="bar")) == []


def test_the_marked_bars_follow_the_time_of_the_answer_per_series_and_never_the_previous_period():
    # hourly, computed at 10:30: the 10:00 and 11:00 buckets of each current series are open
    hours = ["2026-01-03T09:00:00", "2026-01-03T10:00:00", "2026-01-03T11:00:00"]
    frame = trend(
        series("a", [4, 6, 1], days=hours, compare="current"),
        series(
            "a",
            [7, 7, 7],
            days=["2026-01-02T09:00:00", "2026-01-02T10:00:00", "2026-01-02T11:00:00"],
            compare="previous",
        ),
        series("b", [2, 3, 5], days=hours, order=1, compare="current"),
        request={"insight": "TRENDS", "interval": "hour", "events": [{"id": "a", "order": 0}, {"id": "b", "order": 1}]},
        last_refresh="2026-01-03T10:30:00Z",
        timezone="UTC",
    )
    assert in_progress_bars(plot_trend(frame, kind="bar")) == [(6, "--"), (1, "--"), (3, "--"), (5, "--")]


@pytest.mark.parametrize("kind", ["line", "bar"])
def test_dates_under_the_axis_read_alone_with_no_offset_text(kind):
    frame = trend(series("a", list(range(14)), days=days(14, start="2026-01-01")))
    ax = plot_trend(frame, kind=kind)
    ax.figure.canvas.draw()
    assert ax.xaxis.get_major_formatter().get_offset() in ("", None)
    assert ax.xaxis.get_offset_text().get_text() == ""  # no stray "2026-Jan" under the dates
    texts = [label.get_text() for label in visible_xtick_labels(ax)]
    assert texts and all(text.startswith("Jan ") for text in texts)


def test_funnel_trend_dates_have_no_offset_text():
    frame = funnel_trends_frame({"result": [{"days": days(14), "data": [50.0] * 14}]})
    ax = plot_funnel_trends(frame)
    ax.figure.canvas.draw()
    assert ax.xaxis.get_offset_text().get_text() == ""
    assert all(label.get_text().startswith("Jan ") for label in visible_xtick_labels(ax))


def test_other_is_the_last_series_in_legends_whatever_the_api_order():
    # the API orders buckets by count: Other (the rest added up) often comes first
    frame = trend(
        series("a", [9, 9, 9], breakdown=BREAKDOWN_OTHER),
        series("a", [8, 8, 8], breakdown=BREAKDOWN_NULL),
        series("a", [5, 5, 5], breakdown="Chrome"),
        series("a", [1, 1, 1], breakdown="Safari"),
    )
    expected = ["a - Chrome", "a - Safari", "a - None", "a - Other"]
    assert legend_texts(plot_trend(frame)) == expected
    assert legend_texts(plot_trend(frame, kind="bar")) == expected
    assert [text.split(":")[0] for text in legend_texts(plot_trend(frame, kind="pie"))] == expected
    funnel = funnel_frame(
        {"result": [steps(9, 3, breakdown=BREAKDOWN_OTHER), steps(6, 3, breakdown="pro"), steps(4, 1, breakdown="")]}
    )
    assert legend_texts(plot_funnel(funnel)) == ["pro", "None", "Other"]
