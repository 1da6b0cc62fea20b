"""Counts read as whole numbers and labels say what was counted: trend values are Int64 when every series
counts (events, persons, sessions), float64 for property maths, formulas and smoothed values; a series'
math is in its name, so wide columns and readable headers carry it; a cohort breakdown reads by the
cohort's name."""

from __future__ import annotations

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from toolkit.frames import funnel_frame, trend_frame
from toolkit.frames.readable_tables import readable_table

DAYS = ["2026-01-01", "2026-01-02"]


def series(name, data, *, math=None, math_property=None, order=0, **extra):
    action = {"id": name, "type": "events", "order": order, "name": name, "custom_name": None, "math": math}
    if math_property is not None:
        action["math_property"] = math_property
    return {"action": action, "label": name, "days": DAYS, "data": data, "count": sum(data), **extra}


@pytest.mark.parametrize("math", [None, "total", "dau", "weekly_active", "monthly_active", "unique_session"])
def test_counting_maths_give_integer_values(math):
    frame = trend_frame({"timezone": "UTC", "result": [series("signed_up", [116, 3], math=math)]})
    assert frame["value"].dtype == "Int64"
    assert frame["value"].tolist() == [116, 3]
    assert "116.0" not in frame.to_string()


def test_an_aggregated_count_is_an_integer_too():
    item = {**series("signed_up", [], math="dau"), "aggregated_value": 42, "days": DAYS, "data": []}
    frame = trend_frame({"timezone": "UTC", "result": [item]})
    assert frame["value"].dtype == "Int64" and frame["value"].tolist() == [42]


def test_property_maths_stay_float_and_name_their_math():
    response = {
        "timezone": "UTC",
        "result": [
            series("purchase", [30.0, 12.0], math="sum", math_property="amount"),
            series("doc_created", [250.5, 100.0], math="avg", math_property="doc_words", order=1),
        ],
    }
    frame = trend_frame(response)
    assert frame["value"].dtype == "float64"
    assert frame["series"].unique().tolist() == ["purchase: sum of amount", "doc_created: average of doc_words"]
    # the wide frame's headers, and the readable table's, keep the math
    assert trend_frame(response, wide=True).columns.tolist() == [
        "purchase: sum of amount",
        "doc_created: average of doc_words",
    ]
    assert readable_table(frame).columns.tolist() == ["purchase: sum of amount", "doc_created: average of doc_words"]


def test_a_sum_of_whole_amounts_is_still_a_float_column():
    frame = trend_frame({"timezone": "UTC", "result": [series("purchase", [30, 12], math="sum", math_property="n")]})
    assert frame["value"].dtype == "float64"


def test_a_count_beside_a_property_math_shares_its_float_column():
    response = {
        "timezone": "UTC",
        "result": [
            series("signed_up", [4, 5], math="dau"),
            series("purchase", [9.5, 3.0], math="max", math_property="amount", order=1),
        ],
    }
    frame = trend_frame(response)
    assert frame["value"].dtype == "float64"
    assert frame["series"].unique().tolist() == ["signed_up: unique users", "purchase: maximum of amount"]


def test_formulas_and_non_whole_counts_stay_float():
    formula = {"label": "Formula (A / B)", "days": DAYS, "data": [2.0, 1.0], "count": 3.0}
    assert trend_frame({"result": [formula]})["value"].dtype == "float64"
    smoothed = series("signed_up", [2.5, 3.0])
    assert trend_frame({"result": [smoothed]})["value"].tolist() == [2.5, 3.0]


def test_the_same_event_twice_reads_by_math_then_by_number():
    response = {
        "timezone": "UTC",
        "result": [
            series("$pageview", [5, 6]),
            series("$pageview", [2, 3], math="dau", order=1),
            series("$pageview", [1, 1], order=2),
        ],
    }
    assert trend_frame(response)["series"].unique().tolist() == [
        "$pageview (#1)",
        "$pageview: unique users",
        "$pageview (#3)",
    ]


def test_a_custom_name_is_kept_as_the_user_wrote_it():
    item = series("purchase", [3.0, 4.0], math="sum", math_property="amount")
    item["action"]["custom_name"] = "Revenue"
    assert trend_frame({"result": [item]}).loc[0, "series"] == "Revenue"


def cohort_series(entity, value, name, data, *, several=False, order=0):
    item = series(entity, data, order=order)
    item.update(
        label=f"{entity} - {name}" if several else name,
        breakdown_value=value,
        filter={"insight": "TRENDS", "breakdown": [value], "breakdown_type": "cohort"},
    )
    return item


def test_a_cohort_breakdown_reads_by_the_cohort_name():
    # the API answers a cohort breakdown's series with the cohort id as the value and its name as the label
    response = {
        "timezone": "UTC",
        "result": [
            cohort_series("signed_up", 7, "Power users", [3, 4]),
            cohort_series("signed_up", 9, "Churned", [1, 0]),
        ],
    }
    frame = trend_frame(response)
    assert frame["breakdown_value"].unique().tolist() == ["7", "9"]  # what the people endpoints take
    assert frame.attrs["breakdown_labels"] == {"7": "Power users", "9": "Churned"}
    assert readable_table(frame).columns.tolist() == ["signed_up - Power users", "signed_up - Churned"]


def test_a_cohort_name_is_found_with_several_series_too():
    response = {
        "timezone": "UTC",
        "result": [
            cohort_series("signed_up", 7, "Power users", [3, 4], several=True),
            cohort_series("purchase", 7, "Power users", [1, 2], several=True, order=1),
        ],
    }
    assert trend_frame(response).attrs["breakdown_labels"] == {"7": "Power users"}


def test_a_property_breakdown_has_no_names_to_look_up():
    item = series("signed_up", [3, 4], breakdown_value="Chrome", filter={"breakdown_type": "event"})
    item["label"] = "Chrome"
    assert "breakdown_labels" not in trend_frame({"result": [item]}).attrs


def test_a_cohort_broken_down_funnel_reads_by_the_cohort_name():
    def steps(value, name, counts):
        return [
            {"order": order, "name": step, "count": count, "breakdown": name, "breakdown_value": value}
            for order, (step, count) in enumerate(zip(["signup", "pay"], counts, strict=True))
        ]

    frame = funnel_frame({"result": [steps(7, "Power users", [10, 4]), steps("all", "all users", [30, 9])]})
    assert frame["breakdown_value"].tolist() == ["7", "7", "all", "all"]
    assert frame.attrs["breakdown_labels"] == {"7": "Power users", "all": "all users"}
    assert readable_table(frame)["breakdown"].tolist() == ["Power users", "Power users", "all users", "all users"]
    assert frame["count"].dtype == "Int64" and frame["drop_off"].dtype == "Int64"


def test_a_property_broken_down_funnel_keeps_its_values():
    steps = [{"order": 0, "name": "signup", "count": 3, "breakdown": "Chrome", "breakdown_value": "Chrome"}]
    frame = funnel_frame({"result": [steps]})
    assert "breakdown_labels" not in frame.attrs
    expected = pd.DataFrame({"breakdown_value": pd.array(["Chrome"], dtype="string")})
    assert_frame_equal(frame[["breakdown_value"]], expected)
