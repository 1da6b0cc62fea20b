"""readable_table: calculation frames as text tables (dates down, series across, counts whole, % and durations)."""

from __future__ import annotations

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

import toolkit
from toolkit.frames.readable_tables import format_duration, readable_table, table_html
from toolkit.frames.results import (
    funnel_frame,
    funnel_trends_frame,
    lifecycle_frame,
    retention_frame,
    stickiness_frame,
    time_to_convert_frame,
    trend_frame,
)
from toolkit.labels import breakdown_label, tex_safe_label

NULL = "$$_posthog_breakdown_null_$$"
OTHER = "$$_posthog_breakdown_other_$$"


def series(name, days, data, **extra):
    return {"action": {"name": name, "order": 0}, "label": name, "days": days, "data": data, **extra}


def table(columns, rows, corner):
    """A readable table as a reader sees it: ``corner`` (what the rows are) heads the row labels' column."""
    expected = pd.DataFrame(columns, index=pd.Index(rows))
    expected.columns.name = corner
    return expected


def test_a_broken_down_trend_reads_dates_down_and_series_across_with_none_and_other():
    tidy = trend_frame(
        {
            "timezone": "America/New_York",
            "result": [
                series("$pageview", ["2026-01-01", "2026-01-02"], [1200.0, 3.0], breakdown_value="Chrome"),
                series("$pageview", ["2026-01-01", "2026-01-02"], [0.0, 7.0], breakdown_value=NULL),
                series("$pageview", ["2026-01-01", "2026-01-02"], [2.0, 0.0], breakdown_value=OTHER),
            ],
        }
    )
    expected = table(
        {
            "$pageview - Chrome": ["1,200", "3"],
            "$pageview - None": ["0", "7"],
            "$pageview - Other": ["2", "0"],
        },
        ["2026-01-01", "2026-01-02"],
        "date",
    )
    assert_frame_equal(readable_table(tidy), expected)
    assert tidy["breakdown_value"].tolist()[2] == NULL  # the frame keeps the raw bucket


def test_fractional_values_keep_two_decimals_and_hours_show_the_time():
    tidy = trend_frame(
        {
            "timezone": "UTC",
            "result": [series("purchase", ["2026-01-01T10:00:00Z", "2026-01-01T11:00:00Z"], [2.5, 10.0])],
        }
    )
    expected = table({"purchase": ["2.50", "10.00"]}, ["2026-01-01 10:00", "2026-01-01 11:00"], "date")
    assert_frame_equal(readable_table(tidy), expected)


def test_a_compared_period_sits_beside_the_current_one_day_by_day():
    tidy = trend_frame(
        {
            "timezone": "UTC",
            "result": [
                series("signup", ["2026-01-08", "2026-01-09"], [4, 6], compare_label="current"),
                series("signup", ["2026-01-06", "2026-01-07"], [1, 2], compare_label="previous"),
            ],
        }
    )
    expected = table({"signup": ["4", "6"], "signup (previous)": ["1", "2"]}, ["2026-01-08", "2026-01-09"], "date")
    assert_frame_equal(readable_table(tidy), expected)


def test_an_aggregated_trend_is_one_row_per_series():
    tidy = trend_frame({"result": [{"action": {"name": "signup"}, "label": "signup", "aggregated_value": 4200}]})
    expected = table({"value": ["4,200"]}, ["signup"], "series")
    assert_frame_equal(readable_table(tidy), expected)


def test_funnel_steps_show_percentages_and_rounded_times():
    steps = [
        {"order": 0, "name": "signed_up", "count": 238},
        {"order": 1, "name": "purchase", "count": 144, "average_conversion_time": 11736.07},
    ]
    expected = table(
        {
            "name": ["signed_up", "purchase"],
            "count": ["238", "144"],
            "conversion": ["100.0%", "60.5%"],
            "from previous step": ["100.0%", "60.5%"],
            "dropped off": ["0", "94"],
            "average time": ["", "3 h 16 min"],
            "median time": ["", "1 min 35 s"],
        },
        [1, 2],
        "step",
    )
    steps[1]["median_conversion_time"] = 95
    assert_frame_equal(readable_table(funnel_frame({"result": steps})), expected)


def test_funnel_trends_and_time_to_convert():
    trends = funnel_trends_frame({"timezone": "UTC", "result": [{"days": ["2026-01-01"], "data": [25.0]}]})
    assert_frame_equal(readable_table(trends), table({"conversion": ["25.0%"]}, ["2026-01-01"], "date"))
    bins = time_to_convert_frame({"result": {"bins": [[60, 2], [3660, 1]]}})
    expected = table({"persons": ["2", "1"]}, ["1 min to 1 h 1 min", "1 h 1 min to 2 h 1 min"], "time to convert")
    assert_frame_equal(readable_table(bins), expected)


@pytest.mark.parametrize(
    "seconds, text",
    [
        (0, "0 s"),
        (45.4, "45 s"),
        (59.4, "59 s"),
        (59.6, "1 min"),  # rounded, then carried into the larger unit
        (60, "1 min"),
        (80.8, "1 min 21 s"),
        (3600 * 3 + 15 * 60 + 10, "3 h 15 min"),
        (3600 * 8 + 54 * 60 + 50.79, "8 h 55 min"),  # notebook 3's sign-up time, not "8 h 54 min"
        (3600 * 23 + 59 * 60 + 40, "1 d"),
        (86400 * 2 + 4 * 3600 + 10 * 60, "2 d 4 h"),
        (86400 * 2 + 1, "2 d"),
        (-90, "-1 min 30 s"),
    ],
)
def test_durations_read_in_two_units_rounded_to_the_smaller(seconds, text):
    assert format_duration(pd.Timedelta(seconds=seconds)) == text


def test_other_frames_are_formatted_column_by_column():
    frame = pd.DataFrame(
        {
            "cohort_date": pd.to_datetime(["2026-01-05"]).tz_localize("UTC"),
            "count": pd.array([12], dtype="Int64"),
            "retention_rate": [0.25],
            "breakdown_value": pd.array([NULL], dtype="string"),
        }
    )
    expected = pd.DataFrame(
        {"cohort_date": ["2026-01-05"], "count": ["12"], "retention_rate": ["25.0%"], "breakdown_value": ["None"]}
    )
    assert_frame_equal(readable_table(frame), expected)


def test_table_html_is_escaped_and_kept_from_mathjax():
    markup = table_html(pd.DataFrame({"event": ["$pageview", "<script>"]}), max_rows=1)
    assert 'class="dataframe tex2jax_ignore mathjax_ignore"' in markup
    assert "<script>" not in markup and "1 more row not shown" in markup


def test_labels_for_buckets_and_widget_text():
    assert [breakdown_label(value) for value in (NULL, OTHER, "9007199254740990", "Safari", pd.NA)] == [
        "None",
        "Other",
        "None",
        "Safari",
        "",
    ]
    assert tex_safe_label("$pageview") == "\\$pageview"


def test_readable_table_is_public():
    assert toolkit.readable_table is readable_table


def test_daily_buckets_read_as_plain_dates_even_where_midnight_did_not_exist():
    # Sao Paulo skipped 00:00-01:00 on 2018-11-04: that day's bucket starts at 01:00, and a reader of a
    # daily trend still wants "2018-11-04", not a time of day on every row
    response = {
        "timezone": "America/Sao_Paulo",
        "result": [series("signup", ["2018-11-03", "2018-11-04", "2018-11-05"], [1, 2, 3])],
        "request": {"interval": "day"},
    }
    expected = table({"signup": ["1", "2", "3"]}, ["2018-11-03", "2018-11-04", "2018-11-05"], "date")
    assert_frame_equal(readable_table(trend_frame(response)), expected)


def test_hourly_buckets_keep_their_time_even_at_midnight():
    response = {
        "timezone": "Europe/Paris",
        "result": [series("signup", ["2026-01-05T00:00:00"], [4])],
        "request": {"interval": "hour"},
    }
    assert readable_table(trend_frame(response)).index.tolist() == ["2026-01-05 00:00"]


def test_counts_stay_whole_beside_a_series_with_decimals():
    response = {
        "timezone": "UTC",
        "result": [
            series("purchase", ["2026-01-01", "2026-01-02"], [12, 1500]),
            {**series("purchase", ["2026-01-01", "2026-01-02"], [20.5, 31.25]), "action": {"name": "amount"}},
        ],
    }
    expected = table({"purchase": ["12", "1,500"], "amount": ["20.50", "31.25"]}, ["2026-01-01", "2026-01-02"], "date")
    assert_frame_equal(readable_table(trend_frame(response)), expected)


def test_the_header_is_one_row_with_what_the_rows_are_in_its_corner():
    tidy = trend_frame({"timezone": "UTC", "result": [series("signup", ["2026-01-01"], [3])]})
    shown = readable_table(tidy)
    assert repr(shown).splitlines()[0].split() == ["date", "signup"]
    header = table_html(shown).split("<thead>")[1].split("</thead>")[0]
    assert header.count("<tr") == 1 and "<th>date</th>" in header


def test_other_comes_last_and_none_just_before_it_whatever_the_api_order():
    # the API orders buckets by count, so Other (the sum of the rest) can come first
    response = {
        "timezone": "UTC",
        "result": [
            series("$pageview", ["2026-01-01"], [488], breakdown_value=OTHER),
            series("$pageview", ["2026-01-01"], [3151], breakdown_value=NULL),
            series("$pageview", ["2026-01-01"], [475], breakdown_value="google"),
            series("$pageview", ["2026-01-01"], [123], breakdown_value="newsletter"),
        ],
    }
    shown = readable_table(trend_frame(response))
    assert shown.columns.tolist() == [
        "$pageview - google",
        "$pageview - newsletter",
        "$pageview - None",
        "$pageview - Other",
    ]
    aggregated = {**response, "result": [{**item, "aggregated_value": item["data"][0]} for item in response["result"]]}
    assert readable_table(trend_frame(aggregated)).index.tolist() == shown.columns.tolist()


def test_funnel_breakdown_rows_put_other_last():
    def steps(value, first, second):
        return [
            {"order": 0, "name": "signed_up", "count": first, "breakdown_value": value},
            {"order": 1, "name": "purchase", "count": second, "breakdown_value": value},
        ]

    frame = funnel_frame({"result": [steps("Other", 58, 57), steps("", 180, 0), steps("pro", 10, 4)]})
    shown = readable_table(frame)
    assert shown["breakdown"].tolist() == ["pro", "pro", "None", "None", "Other", "Other"]
    assert shown.index.tolist() == [1, 2, 1, 2, 1, 2]
    assert shown["count"].tolist() == ["10", "4", "180", "0", "58", "57"]


def test_funnel_trends_columns_put_other_last():
    response = {
        "timezone": "UTC",
        "result": [
            {"days": ["2026-01-01"], "data": [50.0], "breakdown_value": OTHER},
            {"days": ["2026-01-01"], "data": [25.0], "breakdown_value": "Chrome"},
        ],
    }
    assert readable_table(funnel_trends_frame(response)).columns.tolist() == ["Chrome", "Other"]


def test_funnel_and_retention_without_breakdown_show_no_breakdown_column():
    steps = [{"order": 0, "name": "signed_up", "count": 4}, {"order": 1, "name": "purchase", "count": 1}]
    funnel = funnel_frame({"result": steps})
    cohorts = retention_frame({"result": [{"label": "Day 0", "date": "2026-01-01", "values": [{"count": 4}]}]})
    trends = funnel_trends_frame({"timezone": "UTC", "result": [{"days": ["2026-01-01"], "data": [25.0]}]})
    for frame in (funnel, cohorts, trends, readable_table(funnel), readable_table(cohorts)):
        assert "breakdown_value" not in frame.columns and "breakdown" not in frame.columns
        assert "<NA>" not in repr(frame)


def test_a_missing_duration_is_an_empty_cell_not_nat():
    steps = [{"order": 0, "name": "a", "count": 4}, {"order": 1, "name": "b", "count": 0}]
    shown = readable_table(funnel_frame({"result": steps}))
    assert shown["average time"].tolist() == ["", ""] and "NaT" not in repr(shown)


def test_a_wide_trend_reads_like_the_tidy_one():
    response = {
        "timezone": "Europe/Paris",
        "result": [
            series("signup", ["2026-01-05", "2026-01-12"], [24, 1200]),
            {**series("signup", ["2026-01-05", "2026-01-12"], [2.5, 3]), "action": {"name": "amount"}},
        ],
        "request": {"interval": "week"},
    }
    expected = table({"signup": ["24", "1,200"], "amount": ["2.50", "3.00"]}, ["2026-01-05", "2026-01-12"], "date")
    assert_frame_equal(readable_table(trend_frame(response, wide=True)), expected)
    assert_frame_equal(readable_table(trend_frame(response)), expected)


def test_stickiness_reads_intervals_down_and_series_across_with_other_last():
    labels = ["1 week", "2 weeks"]
    tidy = stickiness_frame(
        {
            "result": [
                {**series("view", [1, 2], [1300, 4], breakdown_value=OTHER), "labels": labels},
                {**series("view", [1, 2], [5, 0], breakdown_value="pro"), "labels": labels},
            ]
        }
    )
    expected = table({"view - pro": ["5", "0"], "view - Other": ["1,300", "4"]}, labels, "intervals")
    assert_frame_equal(readable_table(tidy), expected)


def test_lifecycle_reads_dates_down_and_statuses_across():
    days = ["2026-01-05", "2026-01-06"]
    tidy = lifecycle_frame(
        {
            "timezone": "Europe/Berlin",
            "result": [
                {**series("view", days, [2.0, 1.0]), "status": "new"},
                {**series("view", days, [0.0, 1.0]), "status": "returning"},
                {**series("view", days, [0.0, 0.0]), "status": "resurrecting"},
                {**series("view", days, [0.0, -2.0]), "status": "dormant"},
            ],
        }
    )
    expected = table(
        {"new": ["2", "1"], "returning": ["0", "1"], "resurrecting": ["0", "0"], "dormant": ["0", "-2"]}, days, "date"
    )
    assert_frame_equal(readable_table(tidy), expected)
