"""The client reads pandas habits as they are meant: one series or step given alone, dates as `date`,
`datetime` or `pd.Timestamp`. Through the local backend in the test process.

Events (UTC): signup at 2026-01-05 22:30 (ann), 2026-01-05 23:30 (bob), 2026-01-06 00:30 (cy) and
2026-01-07 10:00 (dee); purchase at 2026-01-06 01:00 (cy).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime

import numpy as np
import pandas as pd
import pytest

from toolkit import Client, TrendRequest

from .inprocess import in_process_app, in_process_client

EVENTS = pd.DataFrame(
    {
        "event": ["signup", "signup", "signup", "signup", "purchase"],
        "distinct_id": ["ann", "bob", "cy", "dee", "cy"],
        "timestamp": pd.to_datetime(
            ["2026-01-05 22:30", "2026-01-05 23:30", "2026-01-06 00:30", "2026-01-07 10:00", "2026-01-06 01:00"]
        ),
    }
)


@pytest.fixture
def app(db_path, clock) -> Iterator:
    with in_process_app(db_path, clock) as test_client:
        yield test_client


def _analyst(app, world, project_id: int) -> Client:
    client = in_process_client(app, world.key, project_id)
    client.load_events(EVENTS, progress=False)
    return client


@pytest.fixture
def utc(app, world) -> Client:
    return _analyst(app, world, world.project_id)  # the "Main" project: UTC


@pytest.fixture
def berlin(app, world) -> Client:
    return _analyst(app, world, world.other_project_id)  # the "Other" project: Europe/Berlin


def _daily(frame: pd.DataFrame) -> dict[str, list[float]]:
    return {
        str(series): [float(value) for value in group["value"]] for series, group in frame.groupby("series", sort=False)
    }


def test_one_event_given_alone_is_one_series(utc):
    frame = utc.trend(events="signup", date_from="2026-01-05", date_to="2026-01-07")
    assert _daily(frame) == {"signup": [2.0, 1.0, 1.0]}


def test_a_series_or_array_of_events_is_a_list(utc):
    names = pd.Series(["signup", "purchase"])
    frame = utc.trend(events=names.to_numpy(), date_from="2026-01-05", date_to="2026-01-07")
    assert _daily(frame) == {"signup": [2.0, 1.0, 1.0], "purchase": [0.0, 1.0, 0.0]}
    assert TrendRequest(events=names).events == ["signup", "purchase"]
    assert TrendRequest(events=np.array(["signup"])).to_dict()["events"] == [
        {"id": "signup", "type": "events", "order": 0}
    ]


def test_one_step_given_alone_is_a_funnel_of_that_step(utc):
    frame = utc.funnel(steps="signup", date_from="2026-01-05", date_to="2026-01-07")
    assert frame["name"].tolist() == ["signup"]
    assert frame["count"].tolist() == [4]


@pytest.mark.parametrize(
    "date_from, date_to",
    [
        (date(2026, 1, 6), date(2026, 1, 7)),
        (datetime(2026, 1, 6), datetime(2026, 1, 7)),
        (pd.Timestamp("2026-01-06"), pd.Timestamp("2026-01-07")),
        (np.datetime64("2026-01-06"), "2026-01-07"),
    ],
    ids=["date", "datetime", "timestamp", "datetime64"],
)
def test_dates_as_python_and_pandas_values(utc, date_from, date_to):
    frame = utc.trend(events=["signup"], date_from=date_from, date_to=date_to)
    assert frame["date"].dt.strftime("%Y-%m-%d").tolist() == ["2026-01-06", "2026-01-07"]
    assert _daily(frame) == {"signup": [1.0, 1.0]}


def test_naive_dates_are_read_in_the_project_timezone_as_text_is(berlin):
    # in Berlin (UTC+1) bob's 23:30 UTC signup and cy's 00:30 UTC one are both on 6 January
    as_text = berlin.trend(events=["signup"], date_from="2026-01-06", date_to="2026-01-06")
    as_datetime = berlin.trend(events=["signup"], date_from=datetime(2026, 1, 6), date_to=pd.Timestamp("2026-01-06"))
    assert _daily(as_text) == _daily(as_datetime) == {"signup": [2.0]}


def test_aware_datetimes_are_converted_to_the_project_timezone(utc):
    # 01:00-02:00 in Paris is 00:00-01:00 UTC: cy's signup at 00:30 UTC is in the first hour
    start = pd.Timestamp("2026-01-06 01:00", tz="Europe/Paris")
    end = datetime(2026, 1, 6, 1, 0, tzinfo=UTC)
    frame = utc.trend(events=["signup"], interval="hour", date_from=start, date_to=end)
    assert frame["date"].dt.strftime("%H:%M").tolist() == ["00:00", "01:00"]
    assert _daily(frame) == {"signup": [1.0, 0.0]}


def test_other_values_are_a_clear_error():
    with pytest.raises(TypeError, match="date_from must be text"):
        TrendRequest(events=["signup"], date_from=20260106)
    with pytest.raises(ValueError, match="date_to is NaT"):
        TrendRequest(events=["signup"], date_to=pd.NaT)


def test_raw_events_are_bounded_by_python_and_pandas_times(berlin):
    # 00:00 on 6 January in Berlin is 23:00 UTC on the 5th: bob's 23:30 UTC signup is after it, ann's 22:30 not
    frame = berlin.events(event="signup", after=datetime(2026, 1, 6), before=pd.Timestamp("2026-01-06 02:00"))
    assert sorted(frame["distinct_id"]) == ["bob", "cy"]
