"""The period still in progress is marked beyond trends, and labels say what was counted.

Retention: a cell whose period had not ended when the answer was computed (``last_refresh``) is hatched, so
the last diagonal does not read as a cliff. Conversion over time: entrance periods whose people may still
convert (within the conversion window before ``last_refresh``, as PostHog marks them) are a dashed segment.
Legends and titles keep the series' math and name a cohort breakdown by the cohort.

Each test reads the drawn artists (image data, hatched patches, line data, legend texts) against the
answer the API gave."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from toolkit.frames import funnel_frame, funnel_trends_frame, retention_frame, trend_frame
from toolkit.plots import plot_funnel, plot_funnel_trends, plot_retention, plot_trend


@pytest.fixture(autouse=True)
def closed_figures():
    before = set(plt.get_fignums())
    yield
    for number in set(plt.get_fignums()) - before:
        plt.close(number)


# --- retention -----------------------------------------------------------------------------------------

# weekly cohorts from Monday 5 January 2026; each row's counts per week since the cohort's week
WEEKLY = [[500, 240, 213, 180, 90], [480, 230, 200, 98], [510, 217, 104], [470, 96], [200]]


def weekly_retention(last_refresh=None, period="Week", counts=WEEKLY, start="2026-01-05"):
    step = {"Week": pd.Timedelta(weeks=1), "Day": pd.Timedelta(days=1)}[period]
    rows = [
        {
            "label": f"{period} {number}",
            "date": (pd.Timestamp(start, tz="UTC") + step * number).isoformat(),
            "values": [{"count": count} for count in values],
        }
        for number, values in enumerate(counts)
    ]
    response = {"result": rows, "timezone": "UTC"}
    if last_refresh is not None:
        response["last_refresh"] = last_refresh
    frame = retention_frame(response)
    frame.attrs["request"] = {"insight": "RETENTION", "period": period}
    return frame


def hatched_cells(ax):
    """(cohort row, period) of every hatched cell."""
    return sorted(
        (round(patch.get_y() + 0.5), round(patch.get_x() + 0.5))
        for patch in ax.patches
        if patch.get_gid() == "in progress"
    )


def test_the_weeks_still_in_progress_are_hatched_on_the_last_diagonal():
    # computed on Thursday 5 February: the week of 2 February has run three days of seven, so each cohort's
    # last share (18%, 20.4%, 20.4%, 20.4%) is still growing and must not read as a drop
    ax = plot_retention(weekly_retention("2026-02-05T15:00:00Z"))
    assert hatched_cells(ax) == [(0, 4), (1, 3), (2, 2), (3, 1), (4, 0)]
    # the hatched cells still show the API's numbers: 98 / 480 = 20.4% for the cohort of 12 January
    rates = np.ma.filled(ax.images[0].get_array(), np.nan)
    assert rates[1, 3] == pytest.approx(98 / 480) and rates[1, 2] == pytest.approx(200 / 480)
    assert any(text.get_text().startswith("Hatched: period still in progress") for text in ax.texts)
    shares = {text.get_text() for text in ax.texts}
    assert {"20.4%", "18%", "41.7%"} <= shares


def test_weeks_that_ended_before_the_answer_are_not_hatched():
    # computed on Monday 9 February 00:00: the week of 2 February has just ended, every share is final
    ax = plot_retention(weekly_retention("2026-02-09T00:00:00Z"))
    assert hatched_cells(ax) == []
    assert not any(text.get_text().startswith("Hatched") for text in ax.texts)


def test_without_the_time_of_the_answer_nothing_is_hatched():
    assert hatched_cells(plot_retention(weekly_retention())) == []


def test_a_daily_retention_hatches_only_the_day_in_progress():
    # daily cohorts 1-3 January, computed on 3 January at noon: only cells of 3 January are open
    frame = weekly_retention("2026-01-03T12:00:00Z", period="Day", counts=[[10, 5, 4], [8, 3], [6]], start="2026-01-01")
    assert hatched_cells(plot_retention(frame)) == [(0, 2), (1, 1), (2, 0)]


def test_the_note_does_not_run_into_the_cohort_labels():
    ax = plot_retention(weekly_retention("2026-02-05T15:00:00Z"))
    ax.figure.draw_without_rendering()
    note = next(text for text in ax.texts if text.get_text().startswith("Hatched"))
    box = note.get_window_extent()
    assert not any(box.overlaps(label.get_window_extent()) for label in ax.get_yticklabels())
    assert box.y1 <= ax.images[0].get_window_extent().y0 + 1


# --- conversion over time ------------------------------------------------------------------------------

DAYS = [day.strftime("%Y-%m-%d") for day in pd.date_range("2026-01-01", "2026-01-20")]
RATES = [40.0 + (number % 3) for number in range(len(DAYS))]


def conversion(last_refresh=None, request=None, breakdowns=(None,)):
    result = []
    for offset, value in enumerate(breakdowns):
        item = {"days": DAYS, "data": [rate - 10 * offset for rate in RATES], "count": len(DAYS)}
        if value is not None:
            item["breakdown_value"] = value
        result.append(item)
    response = {"result": result, "timezone": "UTC"}
    if last_refresh is not None:
        response["last_refresh"] = last_refresh
    frame = funnel_trends_frame(response)
    frame.attrs["request"] = {"insight": "FUNNELS", "funnel_viz_type": "trends", **(request or {})}
    return frame


def day_texts(line):
    return [pd.Timestamp(x).strftime("%m-%d") for x in line.get_xdata()]


def test_entrance_days_within_the_conversion_window_are_a_dashed_segment():
    # computed on 20 January at 18:00 with PostHog's 14-day window: from 6 January 18:00 people may still
    # convert, so 7-20 January are in progress, joined to 6 January by the dashed segment
    ax = plot_funnel_trends(conversion("2026-01-20T18:00:00Z"))
    solid, dashed = ax.get_lines()
    assert solid.get_gid() is None and dashed.get_gid() == "in progress" and dashed.get_linestyle() == "--"
    assert day_texts(solid) == [day[5:] for day in DAYS[:6]]
    assert day_texts(dashed) == [day[5:] for day in DAYS[5:]]
    drawn = solid.get_ydata().tolist() + dashed.get_ydata().tolist()[1:]
    assert drawn == pytest.approx([rate / 100 for rate in RATES])


def test_the_requests_conversion_window_sets_how_many_days_are_open():
    ax = plot_funnel_trends(
        conversion("2026-01-20T18:00:00Z", {"funnel_window_interval": 3, "funnel_window_interval_unit": "day"})
    )
    solid, dashed = ax.get_lines()
    # from 17 January 18:00: 18-20 January are open
    assert day_texts(dashed) == ["01-17", "01-18", "01-19", "01-20"]
    assert len(solid.get_xdata()) == 17


def test_an_old_answer_has_no_open_days_and_every_breakdown_is_marked():
    finished = plot_funnel_trends(conversion("2026-03-01T00:00:00Z"))
    assert [line.get_gid() for line in finished.get_lines()] == [None]
    broken_down = plot_funnel_trends(conversion("2026-01-20T18:00:00Z", breakdowns=("Chrome", "Safari")))
    assert [line.get_gid() for line in broken_down.get_lines()] == [None, "in progress", None, "in progress"]
    assert [text.get_text() for text in broken_down.get_legend().get_texts()] == ["Chrome", "Safari"]


# --- labels keep the math and the cohort's name ----------------------------------------------------------


def trend_series(name, data, *, math=None, math_property=None, **extra):
    action = {"id": name, "name": name, "order": 0, "math": math, "math_property": math_property}
    return {"action": action, "label": name, "days": DAYS[:2], "data": data, **extra}


def test_legends_and_titles_keep_the_math():
    response = {
        "timezone": "UTC",
        "result": [
            trend_series("purchase", [30.0, 12.5], math="sum", math_property="amount"),
            {**trend_series("doc_created", [250.0, 90.5], math="avg", math_property="doc_words")},
        ],
    }
    response["result"][1]["action"]["order"] = 1
    frame = trend_frame(response)
    frame.attrs["request"] = {
        "insight": "TRENDS",
        "events": [
            {"id": "purchase", "order": 0, "math": "sum", "math_property": "amount"},
            {"id": "doc_created", "order": 1, "math": "avg", "math_property": "doc_words"},
        ],
    }
    ax = plot_trend(frame)
    assert [text.get_text() for text in ax.get_legend().get_texts()] == [
        "purchase: sum of amount",
        "doc_created: average of doc_words",
    ]
    assert ax.get_title() == "purchase: sum of amount, doc_created: average of doc_words"
    assert [line.get_ydata().tolist() for line in ax.get_lines()] == [[30.0, 12.5], [250.0, 90.5]]


def test_a_unique_users_title():
    frame = trend_frame({"result": [trend_series("signed_up", [4, 6], math="dau")], "timezone": "UTC"})
    frame.attrs["request"] = {"insight": "TRENDS", "events": [{"id": "signed_up", "math": "dau"}]}
    assert plot_trend(frame).get_title() == "signed_up: unique users"


def test_a_cohort_breakdown_is_labelled_by_the_cohort_name():
    cohort = {"breakdown_type": "cohort", "breakdown": [7, 9]}
    response = {
        "timezone": "UTC",
        "result": [
            {**trend_series("signed_up", [3, 4]), "label": "Power users", "breakdown_value": 7, "filter": cohort},
            {**trend_series("signed_up", [1, 2]), "label": "Churned", "breakdown_value": 9, "filter": cohort},
        ],
    }
    frame = trend_frame(response)
    frame.attrs["request"] = {"insight": "TRENDS", "events": [{"id": "signed_up"}], **cohort}
    ax = plot_trend(frame)
    assert [text.get_text() for text in ax.get_legend().get_texts()] == [
        "signed_up - Power users",
        "signed_up - Churned",
    ]
    assert ax.get_title() == "signed_up by cohort: Power users, Churned"

    def steps(value, name, counts):
        return [
            {"order": order, "name": step, "count": count, "breakdown": name, "breakdown_value": value}
            for order, (step, count) in enumerate(zip(["signup", "pay"], counts, strict=True))
        ]

    bars = plot_funnel(funnel_frame({"result": [steps(7, "Power users", [10, 4]), steps(9, "Churned", [6, 1])]}))
    assert [text.get_text() for text in bars.get_legend().get_texts()] == ["Power users", "Churned"]
    assert [float(patch.get_height()) for patch in bars.patches] == [10.0, 4.0, 6.0, 1.0]
