"""Stickiness and lifecycle frames against hand-built frames: tidy and wide, breakdown and compare, the query
API's envelope, and empty answers."""

from __future__ import annotations

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from toolkit.frames import lifecycle_frame, stickiness_frame
from toolkit.frames.lifecycle import LIFECYCLE_STATUSES


def s(*values):
    return pd.array(list(values), dtype="string")


def i(*values):
    return pd.array(list(values), dtype="Int64")


def sticky(name, data, *, math=None, cumulative=False, **extra):
    """A stickiness series as the API answers it: k = 1..N with ``1 day``, ``2 days``, ... labels."""
    suffix = " or more" if cumulative else ""
    labels = [f"{k} day{'s' if k > 1 else ''}{suffix}" for k in range(1, len(data) + 1)]
    action = {"id": name, "type": "events", "order": 0, "name": name, "math": math}
    return {"action": action, "label": name, "count": extra.pop("count", sum(data)), "data": data,
            "days": list(range(1, len(data) + 1)), "labels": labels, **extra}  # fmt: skip


def test_stickiness_tidy_frame_one_row_per_number_of_intervals():
    frame = stickiness_frame({"timezone": "UTC", "result": [sticky("signup", [2, 1, 1, 0])]})
    expected = pd.DataFrame(
        {
            "intervals": i(1, 2, 3, 4),
            "interval_label": s("1 day", "2 days", "3 days", "4 days"),
            "series": s("signup", "signup", "signup", "signup"),
            "value": i(2, 1, 1, 0),
        }
    )
    assert_frame_equal(frame, expected)
    assert frame.attrs["actors"] == {"signup": 4}
    assert frame.attrs["timezone"] == "UTC"


def test_stickiness_breakdown_and_compare_columns_and_the_wide_form():
    # two breakdown values compared with the previous period: each series' count is its actors
    result = [
        sticky("view", [2, 0], breakdown_value="free", compare_label="current"),
        sticky("view", [1, 0], breakdown_value="free", compare_label="previous"),
        sticky("view", [0, 1], breakdown_value="pro", compare_label="current"),
    ]
    frame = stickiness_frame({"result": result})
    assert frame.columns.tolist() == [
        "intervals",
        "interval_label",
        "series",
        "breakdown_value",
        "compare_label",
        "value",
    ]
    assert frame["breakdown_value"].tolist() == ["free", "free", "free", "free", "pro", "pro"]
    assert frame["compare_label"].tolist() == ["current", "current", "previous", "previous", "current", "current"]
    wide = stickiness_frame({"result": result}, wide=True)
    expected = pd.DataFrame(
        {"view - free (current)": i(2, 0), "view - free (previous)": i(1, 0), "view - pro (current)": i(0, 1)},
        index=pd.Index(i(1, 2), name="intervals"),
    )
    assert_frame_equal(wide, expected)
    assert wide.attrs["actors"] == {"view - free (current)": 2, "view - free (previous)": 1, "view - pro (current)": 1}


def test_stickiness_from_the_query_api_names_series_with_their_math():
    # the query API's envelope ("results"); a unique_group series reads as such, as in trend frames
    response = {"results": [sticky("org_event", [3, 1], math="unique_group", cumulative=True, count=3)]}
    frame = stickiness_frame(response)
    assert frame["series"].tolist() == ["org_event: unique groups"] * 2
    assert frame["interval_label"].tolist() == ["1 day or more", "2 days or more"]
    assert frame.attrs["actors"] == {"org_event: unique groups": 3}
    assert "results" not in frame.attrs


def test_empty_answers_give_the_columns_and_their_dtypes():
    sticky_frame = stickiness_frame({"result": []})
    assert sticky_frame.dtypes.astype(str).tolist() == ["Int64", "string", "string", "Int64"]
    life = lifecycle_frame({"result": [], "timezone": "Europe/Berlin"})
    assert life.dtypes.astype(str).tolist() == ["datetime64[ns, Europe/Berlin]", "string", "Int64"]


def life(status, data, days=("2026-01-05", "2026-01-06")):
    action = {"id": "signup", "type": "events", "order": 0, "name": "signup"}
    return {"action": action, "label": f"signup - {status}", "status": status, "count": float(sum(data)),
            "data": [float(value) for value in data], "days": list(days)}  # fmt: skip


def test_lifecycle_tidy_frame_in_the_statuses_order_with_whole_counts():
    # the API answers floats; they are counts of actors, dormant ones negative. Sent out of order, read in order
    result = [life("dormant", [0, -2]), life("new", [1, 1]), life("resurrecting", [0, 1]), life("returning", [1, 0])]
    frame = lifecycle_frame({"timezone": "Europe/Berlin", "result": result})
    stamps = pd.to_datetime(["2026-01-05", "2026-01-06"] * 4).tz_localize("Europe/Berlin").as_unit("ns")
    expected = pd.DataFrame(
        {
            "date": stamps,
            "status": s(*[status for status in LIFECYCLE_STATUSES for _ in range(2)]),
            "value": i(1, 1, 1, 0, 0, 1, 0, -2),
        }
    )
    assert_frame_equal(frame, expected)
    assert frame.attrs["series"] == "signup"


def test_lifecycle_wide_frame_has_a_column_per_status():
    result = [life("new", [3, 0]), life("returning", [0, 2]), life("resurrecting", [1, 0]), life("dormant", [0, -1])]
    wide = lifecycle_frame({"results": result}, wide=True)
    assert wide.columns.tolist() == ["new", "returning", "resurrecting", "dormant"]
    assert wide.index.name == "date"
    assert wide.loc[pd.Timestamp("2026-01-06", tz="UTC")].tolist() == [0, 2, 0, -1]


@pytest.mark.parametrize("label, status", [("signup - dormant", "dormant"), ("signup - new", "new")])
def test_lifecycle_status_read_from_the_label_when_the_answer_has_no_status(label, status):
    item = {**life(status, [1, 0]), "label": label}
    del item["status"]
    assert lifecycle_frame({"result": [item]})["status"].tolist() == [status, status]
