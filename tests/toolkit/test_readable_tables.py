"""readable_table: calculation frames as text tables (dates down, series across, counts whole, % and durations)."""

from __future__ import annotations

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

import toolkit
from toolkit.labels import breakdown_label, tex_safe_label
from toolkit.readable_tables import format_duration, readable_table, table_html
from toolkit.result_frames import funnel_frame, funnel_trends_frame, time_to_convert_frame, trend_frame

NULL = "$$_posthog_breakdown_null_$$"
OTHER = "$$_posthog_breakdown_other_$$"


def series(name, days, data, **extra):
    return {"action": {"name": name, "order": 0}, "label": name, "days": days, "data": data, **extra}


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
    expected = pd.DataFrame(
        {
            "$pageview - Chrome": ["1,200", "3"],
            "$pageview - None": ["0", "7"],
            "$pageview - Other": ["2", "0"],
        },
        index=pd.Index(["2026-01-01", "2026-01-02"], name="date"),
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
    expected = pd.DataFrame(
        {"purchase": ["2.50", "10.00"]}, index=pd.Index(["2026-01-01 10:00", "2026-01-01 11:00"], name="date")
    )
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
    expected = pd.DataFrame(
        {"signup": ["4", "6"], "signup (previous)": ["1", "2"]},
        index=pd.Index(["2026-01-08", "2026-01-09"], name="date"),
    )
    assert_frame_equal(readable_table(tidy), expected)


def test_an_aggregated_trend_is_one_row_per_series():
    tidy = trend_frame({"result": [{"action": {"name": "signup"}, "label": "signup", "aggregated_value": 4200}]})
    expected = pd.DataFrame({"value": ["4,200"]}, index=pd.Index(["signup"], name="series"))
    assert_frame_equal(readable_table(tidy), expected)


def test_funnel_steps_show_percentages_and_rounded_times():
    steps = [
        {"order": 0, "name": "signed_up", "count": 238},
        {"order": 1, "name": "purchase", "count": 144, "average_conversion_time": 11736.07},
    ]
    expected = pd.DataFrame(
        {
            "name": ["signed_up", "purchase"],
            "count": ["238", "144"],
            "conversion": ["100.0%", "60.5%"],
            "from previous step": ["100.0%", "60.5%"],
            "dropped off": ["0", "94"],
            "average time": ["", "3 h 15 min"],
            "median time": ["", "1 min 35 s"],
        },
        index=pd.Index([1, 2], name="step"),
    )
    steps[1]["median_conversion_time"] = 95
    assert_frame_equal(readable_table(funnel_frame({"result": steps})), expected)


def test_funnel_trends_and_time_to_convert():
    trends = funnel_trends_frame({"timezone": "UTC", "result": [{"days": ["2026-01-01"], "data": [25.0]}]})
    assert_frame_equal(
        readable_table(trends), pd.DataFrame({"conversion": ["25.0%"]}, index=pd.Index(["2026-01-01"], name="date"))
    )
    bins = time_to_convert_frame({"result": {"bins": [[60, 2], [3660, 1]]}})
    expected = pd.DataFrame(
        {"persons": ["2", "1"]},
        index=pd.Index(["1 min to 1 h 1 min", "1 h 1 min to 2 h 1 min"], name="time to convert"),
    )
    assert_frame_equal(readable_table(bins), expected)


@pytest.mark.parametrize(
    "seconds, text",
    [(0, "0 s"), (59.9, "59 s"), (60, "1 min"), (3600 * 3 + 15 * 60 + 36.07, "3 h 15 min"), (86400 * 2 + 1, "2 d")],
)
def test_durations_read_in_two_units(seconds, text):
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
