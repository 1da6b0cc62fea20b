"""What the retention, paths, stickiness and lifecycle builders open on given nothing, with the test-account
toggle, on the hand-written events of `test_builder_starts` (customers ann and bob view pages on 13 January, ann
again on the 14th; the test account qa views three pages on the 14th; the clock reads 2026-01-15 12:00 UTC).

Worked by hand, test accounts filtered out, over the last 7 days by day: stickiness of ``$pageview``, ann 2
days, bob 1: one person each for 1 and 2 days. Lifecycle: ann and bob new on the 13th; on the 14th ann
returning, bob dormant; on the 15th ann dormant. Retention by day up to today: the 13th's cohort ann and bob,
ann back on the 14th; the 14th's cohort ann. With qa counted: qa is active 1 day, new on the 14th and dormant
on the 15th, and in the 14th's cohort.
"""

from __future__ import annotations

import pandas as pd
from pandas.testing import assert_frame_equal

from toolkit.widgets import LifecycleBuilder, PathsBuilder, RetentionBuilder, StickinessBuilder

from .test_builder_starts import analyst, plain  # noqa: F401 (the fixtures)


def _statuses(frame: pd.DataFrame) -> dict[tuple[str, str], int]:
    return {(row.date.strftime("%m-%d"), row.status): int(row.value) for row in frame.itertuples() if row.value != 0}


def _cohorts(frame: pd.DataFrame) -> dict[str, list[int]]:
    rows = frame[frame["cohort_date"] >= pd.Timestamp("2026-01-13", tz="UTC")]
    return {stamp.strftime("%m-%d"): group["count"].tolist() for stamp, group in rows.groupby("cohort_date")}


def test_fresh_builders_open_on_pageviews_with_test_accounts_filtered_out(analyst):  # noqa: F811
    stickiness = StickinessBuilder(analyst)
    assert stickiness.test_accounts.value is True and stickiness.error is None
    assert stickiness.request.to_dict()["events"] == [{"id": "$pageview", "type": "events", "order": 0}]
    assert_frame_equal(stickiness.df, analyst.stickiness(stickiness.request))
    assert stickiness.df["value"].tolist()[:3] == [1, 1, 0]
    lifecycle = LifecycleBuilder(analyst)
    assert lifecycle.request.filter_test_accounts is True
    assert _statuses(lifecycle.df) == {
        ("01-13", "new"): 2,
        ("01-14", "returning"): 1,
        ("01-14", "dormant"): -1,
        ("01-15", "dormant"): -1,
    }
    retention = RetentionBuilder(analyst)
    assert retention.request.target_entity == {"id": "$pageview", "type": "events"}
    assert_frame_equal(retention.df, analyst.retention(retention.request))
    assert _cohorts(retention.df) == {"01-13": [2, 1, 0], "01-14": [1, 0], "01-15": [0]}
    paths = PathsBuilder(analyst)
    assert paths.request.to_dict() == {
        "insight": "PATHS",
        "include_event_types": ["$pageview"],
        "date_from": "-7d",
        "filter_test_accounts": True,
    }
    assert paths.error is None and paths.figure is not None


def test_switching_test_accounts_back_in_counts_the_test_account(analyst):  # noqa: F811
    stickiness = StickinessBuilder(analyst)
    stickiness.test_accounts.value = False
    assert stickiness.run()["value"].tolist()[:3] == [2, 1, 0]  # bob and qa 1 day, ann 2
    lifecycle = LifecycleBuilder(analyst)
    lifecycle.test_accounts.value = False
    statuses = _statuses(lifecycle.run())
    assert (statuses[("01-14", "new")], statuses[("01-15", "dormant")]) == (1, -2)
    retention = RetentionBuilder(analyst)
    retention.test_accounts.value = False
    assert _cohorts(retention.run()) == {"01-13": [2, 1, 0], "01-14": [2, 0], "01-15": [0]}


def test_the_toggles_start_off_in_a_project_without_test_account_filters(plain):  # noqa: F811
    for builder in (StickinessBuilder(plain), LifecycleBuilder(plain), RetentionBuilder(plain), PathsBuilder(plain)):
        assert builder.test_accounts.value is False and builder.request.filter_test_accounts is None
    assert StickinessBuilder(plain).df["value"].tolist()[:3] == [2, 1, 0]
