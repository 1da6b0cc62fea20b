"""Retention by a breakdown and paths restricted by a funnel through the toolkit, against the local backend in the
test process (clock 2026-01-15 12:00 UTC); the numbers worked out by hand.

Pageviews: ann 12th Chrome, 13th Safari; bob 12th Chrome, 14th Chrome; cat 13th Safari. Day cohorts 12th-14th:
Chrome holds ann@12, bob@12, bob@14 (3), Safari ann@13, cat@13 (2). Chrome's 12th cohort (ann, bob) has ann
back on the 13th and bob on the 14th; Safari's 13th (ann, cat) has nobody back on the 14th.
Signups then pays: ann signup 10:00 on the 12th, /pricing 10:01, pay 10:02; bob signup 11:00 and /help 11:01.
"""

from __future__ import annotations

from collections.abc import Iterator

import matplotlib
import pandas as pd
import pytest

from toolkit import Client, FunnelRequest, plot_retention

from .inprocess import in_process_app, in_process_client

matplotlib.use("Agg")

EVENTS = pd.DataFrame(
    {
        "event": ["$pageview"] * 5 + ["signup", "$pageview", "pay", "signup", "$pageview"],
        "distinct_id": ["ann", "ann", "bob", "bob", "cat", "ann", "ann", "ann", "bob", "bob"],
        "timestamp": [
            "2026-01-12T09:00:00Z", "2026-01-13T09:00:00Z", "2026-01-12T09:30:00Z", "2026-01-14T09:00:00Z",
            "2026-01-13T09:00:00Z", "2026-01-12T10:00:00Z", "2026-01-12T10:01:00Z", "2026-01-12T10:02:00Z",
            "2026-01-12T11:00:00Z", "2026-01-12T11:01:00Z",
        ],
        "$browser": ["Chrome", "Safari", "Chrome", "Chrome", "Safari", None, None, None, None, None],
        "$current_url": [None] * 6 + ["/pricing", None, None, "/help"],
    }
)  # fmt: skip


@pytest.fixture
def analyst(db_path, clock, world) -> Iterator[Client]:
    with in_process_app(db_path, clock) as app:
        client = in_process_client(app, world.key, world.project_id)
        client.load_events(EVENTS, progress=False)
        yield client


def test_retention_by_a_breakdown_has_a_value_column_and_one_heat_map_per_value(analyst):
    frame = analyst.retention(breakdown="$browser", total_intervals=3, date_to="2026-01-14")
    chrome = frame[(frame["breakdown_value"] == "Chrome")]
    assert chrome.groupby("cohort", sort=False)["count"].apply(list).to_dict() == {
        "Day 0": [2, 1, 1],
        "Day 1": [0, 0],
        "Day 2": [1],
    }
    safari = frame[(frame["breakdown_value"] == "Safari")]
    assert safari.groupby("cohort", sort=False)["count"].apply(list).to_dict() == {
        "Day 0": [0, 0, 0],
        "Day 1": [2, 0],
        "Day 2": [0],
    }
    assert list(frame["breakdown_value"].unique()) == ["Chrome", "Safari"]
    axes = plot_retention(frame)
    assert len(axes.figure.axes) >= 2  # one heat map per value (colour bars may add axes)


def test_paths_after_a_funnel_step_keep_only_its_people(analyst):
    funnel = FunnelRequest(steps=["signup", "pay"], date_from="2026-01-12", date_to="2026-01-12")
    frame = analyst.paths(funnel=funnel, funnel_step=-2, date_from="2026-01-12", date_to="2026-01-12")
    # bob signed up and never paid: his signup, then /help a minute later
    assert list(zip(frame["source"], frame["target"], frame["value"], strict=True)) == [("1_signup", "2_/help", 1)]
    converted = analyst.paths(funnel=funnel, funnel_step=2, funnel_paths="between", date_from="2026-01-12",
                              date_to="2026-01-12")  # fmt: skip
    # ann paid: from her signup to her pay, signup -> /pricing -> pay (her earlier pageviews are before it)
    assert list(zip(converted["source"], converted["target"], strict=True)) == [
        ("1_signup", "2_/pricing"),
        ("2_/pricing", "3_pay"),
    ]
