"""Calculations end to end: toolkit -> HTTP -> local backend engines -> typed frames (marked ``live``).

Hand-worked events, in UTC (the project's timezone), written into the server's database while it runs:

=====  ===========================  ==============================  ==================
who    e2e_signup                   e2e_purchase                    signup -> purchase
=====  ===========================  ==============================  ==================
alice  2026-01-10 10:00             2026-01-10 11:00                3,600 s
bob    2026-01-11 09:00             2026-01-11 12:00                10,800 s
carol  2026-01-12 08:00             (none)                          dropped
dave   2026-01-12 10:00             2026-01-12 10:30                1,800 s
=====  ===========================  ==============================  ==================

bob also has an ``e2e_other`` event at 2026-01-11 10:00, between his two steps.

Ordered funnel: 4 reached step 1, 3 step 2; times 3,600 / 10,800 / 1,800 s -> average 5,400 s, median 3,600 s.
Strict funnel: bob's other event breaks his sequence -> 4 and 2 (alice 3,600 s, dave 1,800 s: average and
median 2,700 s).

Daily trends over 10-12 January: signups 1, 1, 2; purchases 1, 1, 1; purchases / signups 1.0, 1.0, 0.5.
"""

from __future__ import annotations

import pandas as pd
import pytest

from local_backend.store.engine.choice import open_database
from tests.factories import add_events
from toolkit import local

pytestmark = pytest.mark.live

NOW = "2026-01-15T12:00:00Z"
EVENTS = [
    ("e2e_signup", "alice", "2026-01-10T10:00:00Z"),
    ("e2e_purchase", "alice", "2026-01-10T11:00:00Z"),
    ("e2e_signup", "bob", "2026-01-11T09:00:00Z"),
    ("e2e_other", "bob", "2026-01-11T10:00:00Z"),
    ("e2e_purchase", "bob", "2026-01-11T12:00:00Z"),
    ("e2e_signup", "carol", "2026-01-12T08:00:00Z"),
    ("e2e_signup", "dave", "2026-01-12T10:00:00Z"),
    ("e2e_purchase", "dave", "2026-01-12T10:30:00Z"),
]
RANGE = {"date_from": "2026-01-09", "date_to": "2026-01-14"}


@pytest.fixture(scope="module")
def backend(tmp_path_factory):
    db = tmp_path_factory.mktemp("live_calc") / "calc.db"
    with local.start(db, demo=False, now=NOW) as client:
        conn = open_database(db)
        try:
            add_events(conn, int(client.project_id), EVENTS)
        finally:
            conn.close()
        yield client


def _seconds(values: pd.Series) -> list[float | None]:
    return [None if pd.isna(value) else value.total_seconds() for value in values]


def test_ordered_funnel_steps_frame(backend):
    frame = backend.funnel(steps=["e2e_signup", "e2e_purchase"], **RANGE)
    assert frame["step"].tolist() == [1, 2]
    assert frame["name"].tolist() == ["e2e_signup", "e2e_purchase"]
    assert frame["count"].tolist() == [4, 3]
    assert frame["conversion_rate"].tolist() == [1.0, 0.75]
    assert frame["drop_off"].tolist() == [0, 1]
    assert _seconds(frame["average_conversion_time"]) == [None, 5400.0]
    assert _seconds(frame["median_conversion_time"]) == [None, 3600.0]


def test_strict_funnel_breaks_on_an_event_in_between(backend):
    frame = backend.funnel(steps=["e2e_signup", "e2e_purchase"], funnel_order_type="strict", **RANGE)
    assert frame["count"].tolist() == [4, 2]
    assert _seconds(frame["average_conversion_time"]) == [None, 2700.0]


def test_funnel_people_who_converted_and_who_dropped(backend):
    steps = ["e2e_signup", "e2e_purchase"]
    converted = backend.funnel_people(steps=steps, step=2, **RANGE)
    dropped = backend.funnel_people(steps=steps, step=2, dropped=True, **RANGE)
    assert sorted(id for ids in converted["distinct_ids"] for id in ids) == ["alice", "bob", "dave"]
    assert [id for ids in dropped["distinct_ids"] for id in ids] == ["carol"]


def test_a_window_shorter_than_bobs_three_hours_drops_him(backend):
    frame = backend.funnel(
        steps=["e2e_signup", "e2e_purchase"], funnel_window_interval=2, funnel_window_interval_unit="hour", **RANGE
    )
    assert frame["count"].tolist() == [4, 2]


def test_daily_trend_as_a_tidy_frame(backend):
    frame = backend.trend(events=["e2e_signup"], date_from="2026-01-10", date_to="2026-01-12", interval="day")
    assert frame["series"].tolist() == ["e2e_signup"] * 3
    assert frame["value"].tolist() == [1.0, 1.0, 2.0]
    assert frame["date"].tolist() == list(pd.date_range("2026-01-10", periods=3, freq="D", tz="UTC"))


def test_trend_wide_frame_with_a_formula_over_two_series(backend):
    wide = backend.trend(events=["e2e_purchase", "e2e_signup"], date_from="2026-01-10", date_to="2026-01-12", wide=True)
    assert wide["e2e_purchase"].tolist() == [1.0, 1.0, 1.0]
    assert wide["e2e_signup"].tolist() == [1.0, 1.0, 2.0]
    ratio = backend.trend(
        events=["e2e_purchase", "e2e_signup"], formula="A / B", date_from="2026-01-10", date_to="2026-01-12"
    )
    assert ratio["value"].tolist() == [1.0, 1.0, 0.5]
