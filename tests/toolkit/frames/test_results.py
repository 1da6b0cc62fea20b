"""Calculation frames against hand-built frames: trend (tidy, wide, aggregated, compare, breakdown,
formula), funnel steps, funnel trends, time to convert, retention and paths."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from toolkit.frames import (
    complete_trend_frame,
    funnel_frame,
    funnel_trends_frame,
    paths_frame,
    retention_frame,
    time_to_convert_frame,
    trend_frame,
)

from ..fakes import load


def s(*values):
    return pd.array(list(values), dtype="string")


def i(*values):
    return pd.array(list(values), dtype="Int64")


def dates(tz, *values):
    return pd.array(
        [pd.NaT if v is None else pd.Timestamp(v, tz=tz) for v in values], dtype=pd.DatetimeTZDtype("ns", tz)
    )


def td(*seconds):
    return pd.to_timedelta([np.nan if v is None else v for v in seconds], unit="s").astype("timedelta64[ns]").to_numpy()


def series(name, days, data, order=0, math=None, **extra):
    return {
        "action": {"id": name, "type": "events", "order": order, "name": name, "custom_name": None, "math": math},
        "label": name,
        "days": days,
        "data": data,
        "count": float(sum(data)),
        **extra,
    }


def test_trend_tidy_with_breakdown_and_compare_in_project_timezone():
    response = load("legacy_trend_breakdown_compare.json")
    expected = pd.DataFrame(
        {
            # bucket starts are local days of the project (Europe/Paris), across the March DST change
            "date": dates("Europe/Paris", "2026-03-28", "2026-03-29", "2026-03-26", "2026-03-27"),
            "series": s("$pageview", "$pageview", "$pageview", "$pageview"),
            "breakdown_value": s("Chrome", "Chrome", "Chrome", "Chrome"),
            "compare_label": s("current", "current", "previous", "previous"),
            "value": i(3, 4, 1, 0),
        }
    )
    frame = trend_frame(response)
    assert_frame_equal(frame, expected)
    assert frame.attrs["timezone"] == "Europe/Paris"
    assert frame.attrs["is_cached"] is False and frame.attrs["aggregated"] is False
    assert "result" not in frame.attrs


def test_trend_wide_has_one_column_per_series_and_a_date_index():
    response = {
        "timezone": "UTC",
        "result": [
            series("$pageview", ["2026-01-01", "2026-01-02"], [5, 6]),
            series("signup", ["2026-01-01", "2026-01-02"], [1, 0], order=1),
        ],
    }
    expected = pd.DataFrame(
        {"$pageview": i(5, 6), "signup": i(1, 0)},
        index=pd.DatetimeIndex(["2026-01-01", "2026-01-02"], tz="UTC", name="date").as_unit("ns"),
    )
    assert_frame_equal(trend_frame(response, wide=True), expected)


def test_trend_wide_names_breakdown_and_compare_columns():
    wide = trend_frame(load("legacy_trend_breakdown_compare.json"), wide=True)
    assert wide.columns.tolist() == ["$pageview - Chrome (current)", "$pageview - Chrome (previous)"]
    # the previous period lives on its own dates
    assert wide["$pageview - Chrome (previous)"].notna().sum() == 2 and len(wide) == 4


def test_same_event_twice_is_told_apart_by_math():
    frame = trend_frame(load("query_trends_response.json"))
    assert frame["series"].unique().tolist() == ["$pageview", "$pageview: unique users"]
    assert frame["value"].tolist() == [2, 3, 4, 1, 2, 2] and frame["value"].dtype == "Int64"
    assert frame.attrs["hogql"].startswith("SELECT")


def test_custom_name_names_the_series():
    item = series("$pageview", ["2026-01-01"], [2])
    item["action"]["custom_name"] = "Views"
    assert trend_frame({"result": [item]}).loc[0, "series"] == "Views"


def test_aggregated_display_gives_one_row_per_series():
    response = {
        "timezone": "UTC",
        "result": [
            {
                "action": {"id": "$pageview", "name": "$pageview", "order": 0},
                "label": "Chrome",
                "breakdown_value": "Chrome",
                "aggregated_value": 12,
                "days": ["2026-01-01", "2026-01-02"],
                "data": [],
                "labels": [],
                "count": 0,
            },
            {
                "action": {"id": "$pageview", "name": "$pageview", "order": 0},
                "label": "Safari",
                "breakdown_value": "Safari",
                "aggregated_value": 5,
                "days": ["2026-01-01", "2026-01-02"],
                "data": [],
                "labels": [],
                "count": 0,
            },
        ],
    }
    expected = pd.DataFrame(
        {
            "date": dates("UTC", None, None),
            "series": s("$pageview", "$pageview"),
            "breakdown_value": s("Chrome", "Safari"),
            "value": i(12, 5),
        }
    )
    frame = trend_frame(response)
    assert_frame_equal(frame, expected)
    assert frame.attrs["aggregated"] is True
    with pytest.raises(ValueError, match="time-series"):
        trend_frame(response, wide=True)


def test_formula_series_without_action():
    response = {"result": [{"label": "Formula (A / B)", "days": ["2026-01-01"], "data": [0.5], "count": 0.5}]}
    frame = trend_frame(response)
    assert frame.loc[0, "series"] == "Formula (A / B)" and frame.loc[0, "value"] == 0.5
    broken_down = {"result": [{"label": "Chrome", "breakdown_value": "Chrome", "days": ["2026-01-01"], "data": [2]}]}
    assert trend_frame(broken_down).loc[0, "series"] == "Formula"


def test_hourly_buckets():
    response = {
        "timezone": "America/New_York",
        "result": [series("$pageview", ["2026-01-01 13:00:00", "2026-01-01 14:00:00"], [1, 2])],
    }
    assert trend_frame(response)["date"].tolist() == [
        pd.Timestamp("2026-01-01 13:00", tz="America/New_York"),
        pd.Timestamp("2026-01-01 14:00", tz="America/New_York"),
    ]


def test_empty_trend_keeps_its_columns_and_dtypes():
    frame = trend_frame({"result": [], "timezone": "UTC"})
    expected = pd.DataFrame({"date": dates("UTC"), "series": s(), "value": np.array([], dtype="float64")})
    assert_frame_equal(frame, expected)


def test_plain_trend_has_no_breakdown_nor_compare_column():
    # no breakdown, no compare: the reader sees date, series, value and not two columns of <NA>
    response = {"timezone": "UTC", "result": [series("signup", ["2026-01-01", "2026-01-02"], [3, 5])]}
    expected = pd.DataFrame(
        {"date": dates("UTC", "2026-01-01", "2026-01-02"), "series": s("signup", "signup"), "value": i(3, 5)}
    )
    frame = trend_frame(response)
    assert_frame_equal(frame, expected)
    assert "NA" not in frame.to_html() and "NA" not in frame.to_string()


def test_compare_without_breakdown_keeps_only_compare_label():
    response = {
        "timezone": "UTC",
        "result": [
            series("signup", ["2026-01-03"], [4], compare=True, compare_label="current"),
            series("signup", ["2026-01-02"], [1], compare=True, compare_label="previous"),
        ],
    }
    expected = pd.DataFrame(
        {
            "date": dates("UTC", "2026-01-03", "2026-01-02"),
            "series": s("signup", "signup"),
            "compare_label": s("current", "previous"),
            "value": i(4, 1),
        }
    )
    assert_frame_equal(trend_frame(response), expected)


def test_complete_trend_frame_adds_the_left_out_columns_as_na():
    tidy = trend_frame({"timezone": "UTC", "result": [series("signup", ["2026-01-01"], [3])]})
    expected = pd.DataFrame(
        {
            "date": dates("UTC", "2026-01-01"),
            "series": s("signup"),
            "breakdown_value": s(None),
            "compare_label": s(None),
            "value": i(3),
        }
    )
    full = complete_trend_frame(tidy)
    assert_frame_equal(full, expected)
    assert full.attrs == tidy.attrs
    assert complete_trend_frame(full) is full


def test_funnel_steps():
    # 8 signed up, 2 of them bought: 25 % overall, 6 dropped, times from the previous step
    # no breakdown: no breakdown_value column, which would read <NA> on every row
    expected = pd.DataFrame(
        {
            "step": i(1, 2),
            "name": s("signup", "Bought"),
            "action_id": s("signup", "purchase"),
            "count": i(8, 2),
            "conversion_rate": [1.0, 0.25],
            "step_conversion_rate": [1.0, 0.25],
            "drop_off": i(0, 6),
            "average_conversion_time": td(None, 5400),
            "median_conversion_time": td(None, 3600),
        }
    )
    assert_frame_equal(funnel_frame(load("query_funnels_response.json")), expected)


def test_funnel_three_steps_rates():
    steps = [
        {"order": k, "name": n, "action_id": n, "count": c} for k, (n, c) in enumerate([("a", 10), ("b", 5), ("c", 4)])
    ]
    frame = funnel_frame({"result": steps})
    assert frame["conversion_rate"].tolist() == [1.0, 0.5, 0.4]
    assert frame["step_conversion_rate"].tolist() == [1.0, 0.5, 0.8]
    assert frame["drop_off"].tolist() == [0, 5, 1]


def test_funnel_breakdown_one_row_per_step_and_value():
    expected = pd.DataFrame(
        {
            "breakdown_value": s("Chrome", "Chrome", "Safari", "Safari"),
            "step": i(1, 2, 1, 2),
            "name": s("signup", "purchase", "signup", "purchase"),
            "action_id": s("signup", "purchase", "signup", "purchase"),
            "count": i(4, 3, 2, 0),
            "conversion_rate": [1.0, 0.75, 1.0, 0.0],
            "step_conversion_rate": [1.0, 0.75, 1.0, 0.0],
            "drop_off": i(0, 1, 0, 2),
            "average_conversion_time": td(None, 120, None, None),
            "median_conversion_time": td(None, 60, None, None),
        }
    )
    assert_frame_equal(funnel_frame(load("legacy_funnel_breakdown.json")), expected)


def test_funnel_nobody_entered_gives_nan_rates():
    steps = [{"order": 0, "name": "a", "count": 0}, {"order": 1, "name": "b", "count": 0}]
    frame = funnel_frame({"result": steps})
    assert frame["conversion_rate"].isna().all()
    assert frame["step_conversion_rate"].tolist()[0] == 1.0 and np.isnan(frame["step_conversion_rate"].tolist()[1])


def test_funnel_frame_refuses_other_viz_types():
    with pytest.raises(ValueError, match="funnel_trends_frame"):
        funnel_frame({"result": [{"days": ["2026-01-01"], "data": [10.0], "count": 1}]})
    with pytest.raises(ValueError, match="time_to_convert_frame"):
        funnel_frame({"result": {"bins": [], "average_conversion_time": None}})


def test_funnel_trends():
    response = {
        "timezone": "UTC",
        "result": [
            {
                "count": 2,
                "data": [50.0, 12.5],
                "days": ["2026-01-01", "2026-01-02"],
                "labels": ["1-Jan-2026", "2-Jan-2026"],
                "breakdown_value": ["Chrome"],
            },
            {
                "count": 2,
                "data": [0.0, 100.0],
                "days": ["2026-01-01", "2026-01-02"],
                "labels": ["1-Jan-2026", "2-Jan-2026"],
                "breakdown_value": ["Safari"],
            },
        ],
    }
    expected = pd.DataFrame(
        {
            "date": dates("UTC", "2026-01-01", "2026-01-02", "2026-01-01", "2026-01-02"),
            "breakdown_value": s("Chrome", "Chrome", "Safari", "Safari"),
            "conversion_rate": [0.5, 0.125, 0.0, 1.0],
        }
    )
    assert_frame_equal(funnel_trends_frame(response), expected)


def test_time_to_convert():
    response = {"result": {"bins": [[60, 3], [3660, 1], [7260, 0]], "average_conversion_time": 1860.5}}
    expected = pd.DataFrame({"bin_start": td(60, 3660, 7260), "bin_end": td(3660, 7260, 10860), "count": i(3, 1, 0)})
    frame = time_to_convert_frame(response)
    assert_frame_equal(frame, expected)
    assert frame.attrs["average_conversion_time"] == pd.Timedelta(seconds=1860.5)


def test_retention():
    response = {
        "timezone": "UTC",
        "result": [
            {
                "label": "Day 0",
                "date": "2026-01-01T00:00:00Z",
                "values": [{"count": 4, "people": []}, {"count": 2}, {"count": 1}],
            },
            {"label": "Day 1", "date": "2026-01-02T00:00:00Z", "values": [{"count": 0}, {"count": 0}]},
        ],
    }
    expected = pd.DataFrame(
        {
            "cohort_date": dates("UTC", "2026-01-01", "2026-01-01", "2026-01-01", "2026-01-02", "2026-01-02"),
            "cohort": s("Day 0", "Day 0", "Day 0", "Day 1", "Day 1"),
            "period": i(0, 1, 2, 0, 1),
            "count": i(4, 2, 1, 0, 0),
            "retention_rate": [1.0, 0.5, 0.25, np.nan, np.nan],
        }
    )
    assert_frame_equal(retention_frame(response), expected)


def test_paths():
    response = {
        "result": [
            {"source": "1_/home", "target": "2_/pricing", "value": 7, "average_conversion_time": 1500.0},
            {"source": "2_/pricing", "target": "3_signup", "value": 3, "average_conversion_time": None},
        ]
    }
    expected = pd.DataFrame(
        {
            "step": i(1, 2),
            "source": s("1_/home", "2_/pricing"),
            "target": s("2_/pricing", "3_signup"),
            "source_name": s("/home", "/pricing"),
            "target_name": s("/pricing", "signup"),
            "value": i(7, 3),
            "average_conversion_time": td(1.5, None),
        }
    )
    assert_frame_equal(paths_frame(response), expected)
