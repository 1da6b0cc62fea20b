"""`Client.stickiness` and `Client.lifecycle` through the local backend in the test process, on the legacy route
and on the query API; the events and the hand-worked numbers are in `tests.toolkit.engagement_events` (the
``engagement_client`` fixture loads them)."""

from __future__ import annotations

from datetime import date, datetime

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from toolkit import Client, InsightWarning, LifecycleRequest, StickinessRequest, ValidationError, event

from .engagement_events import LIFECYCLE, RANGE, STICKINESS

DAYS = pd.date_range("2026-01-05", periods=4, freq="D", tz="UTC")


@pytest.fixture
def analyst(engagement_client: Client) -> Client:
    return engagement_client


def _by_series(frame: pd.DataFrame) -> dict[str, list[int]]:
    columns = [name for name in ("series", "breakdown_value", "compare_label") if name in frame.columns]
    return {
        " / ".join(str(part) for part in (key if isinstance(key, tuple) else (key,))): group["value"].tolist()
        for key, group in frame.groupby(columns, sort=False)
    }


def test_stickiness_counts_persons_by_days_active(analyst):
    frame = analyst.stickiness(events="view", **RANGE)
    assert frame["intervals"].tolist() == [1, 2, 3, 4]
    assert frame["interval_label"].tolist() == ["1 day", "2 days", "3 days", "4 days"]
    assert frame["value"].tolist() == STICKINESS
    assert frame.dtypes["value"] == "Int64"
    assert frame.attrs["actors"] == {"view": 4}
    assert frame.attrs["request"]["insight"] == "STICKINESS"


def test_stickiness_cumulative_and_criteria(analyst):
    cumulative = analyst.stickiness(events="view", cumulative=True, **RANGE)
    assert cumulative["value"].tolist() == [4, 2, 1, 0]
    assert cumulative["interval_label"].tolist()[0] == "1 day or more"
    at_least_two = analyst.stickiness(events="view", criteria=("gte", 2), **RANGE)
    assert at_least_two["value"].tolist() == [1, 0, 0, 0]


def test_stickiness_by_plan_and_compared_with_the_previous_period(analyst):
    by_plan = analyst.stickiness(events="view", breakdown="plan", **RANGE)
    assert _by_series(by_plan) == {"view / free": [2, 0, 0, 0], "view / pro": [0, 1, 1, 0]}
    compared = analyst.stickiness(events="view", compare=True, **RANGE)
    assert _by_series(compared) == {"view / current": STICKINESS, "view / previous": [1, 0, 0, 0]}
    wide = analyst.stickiness(events="view", compare=True, wide=True, **RANGE)
    assert wide["view (previous)"].tolist() == [1, 0, 0, 0]


def test_lifecycle_statuses_per_day(analyst):
    frame = analyst.lifecycle("view", **RANGE)
    assert frame.columns.tolist() == ["date", "status", "value"]
    assert {status: group["value"].tolist() for status, group in frame.groupby("status", sort=False)} == LIFECYCLE
    assert frame["date"].tolist() == list(DAYS) * 4
    assert frame.attrs["series"] == "view"
    wide = analyst.lifecycle("view", wide=True, **RANGE)
    assert wide.columns.tolist() == ["new", "returning", "resurrecting", "dormant"]
    assert wide.loc[DAYS[2]].tolist() == [0, 0, 1, -2]


def test_the_query_api_gives_the_same_frames(analyst):
    legacy_sticky = analyst.stickiness(events="view", breakdown="plan", criteria=("gte", 1), **RANGE)
    legacy_life = analyst.lifecycle("view", **RANGE)
    analyst._legacy_missing.add("trend")  # as after PostHog answered 404 on insights/trend/
    paths = analyst.session.paths
    start = len(paths)
    query_sticky = analyst.stickiness(events="view", breakdown="plan", criteria=("gte", 1), **RANGE)
    query_life = analyst.lifecycle("view", **RANGE)
    assert set(paths[start:]) == {f"/api/projects/{analyst.project_id}/query/"}
    assert_frame_equal(query_sticky, legacy_sticky)
    assert_frame_equal(query_life, legacy_life)


def test_forgiving_arguments_dates_and_prepared_requests(analyst):
    expected = analyst.stickiness(events="view", **RANGE)["value"].tolist()
    as_dates = analyst.stickiness(events=["view"], date_from=date(2026, 1, 5), date_to=pd.Timestamp("2026-01-08"))
    prepared = analyst.stickiness(StickinessRequest(events=event("view"), **RANGE))
    assert as_dates["value"].tolist() == prepared["value"].tolist() == expected
    life = analyst.lifecycle(event("view"), date_from=datetime(2026, 1, 5), date_to=date(2026, 1, 8))
    assert life["value"].tolist() == analyst.lifecycle(LifecycleRequest("view", **RANGE))["value"].tolist()
    assert analyst.lifecycle(event="view", **RANGE)["value"].tolist() == life["value"].tolist()


def test_unseen_names_warn(analyst):
    with pytest.warns(InsightWarning, match="vieww"):
        frame = analyst.stickiness(events="vieww", **RANGE)
    assert frame["value"].tolist() == [0, 0, 0, 0]
    with pytest.warns(InsightWarning, match="vieww"):
        analyst.lifecycle("vieww", **RANGE)


def test_refused_fields_are_validation_errors_naming_them(analyst):
    with pytest.raises(ValidationError) as refused:
        analyst.stickiness(events="view", criteria=("gte", 0), **RANGE)
    assert refused.value.status == 400
    assert refused.value.attr and refused.value.attr.startswith("stickiness_criteria")
    with pytest.raises(ValidationError) as breakdown:
        analyst.lifecycle("view", extra={"breakdown": "plan"}, **RANGE)
    assert (breakdown.value.code, breakdown.value.attr) == ("unsupported", "breakdown")


def test_all_breakdowns_follows_the_pages_of_values(analyst):
    # one value per page: pro (2 persons, 3 and 2 days) then free (2 persons, 1 day each)
    first = analyst.stickiness(events="view", breakdown="plan", breakdown_limit=1, **RANGE)
    assert first.attrs["next"]
    every = analyst.stickiness(events="view", breakdown="plan", breakdown_limit=1, all_breakdowns=True, **RANGE)
    assert every.attrs["next"] is None
    values = _by_series(every)
    assert (values["view / pro"], values["view / free"]) == ([0, 1, 1, 0], [2, 0, 0, 0])
