"""What a builder opens on, and the test-account toggle, against the local backend in the test process.

The events are written here by hand (the clock reads 2026-01-15 12:00 UTC, the project's timezone is UTC);
each builder's numbers are checked against the same client call written out by hand, and against counts
worked out from the events.
"""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from toolkit import Client, FunnelRequest, TrendRequest
from toolkit.widgets import FunnelBuilder, TrendBuilder

from ..inprocess import in_process_app, in_process_client

TEST_ACCOUNTS = [{"key": "account", "value": "test", "operator": "is_not", "type": "event"}]
"""The project's test-account filter: events sent from test accounts carry ``account: test``."""

# (event, person, timestamp, account): customers ann and bob sign up and onboard, cat invites and reads a
# report; the test account "qa" views pages and signs up and onboards too
EVENTS = [
    ("$pageview", "ann", "2026-01-13T09:00:00Z", "customer"),
    ("$pageview", "bob", "2026-01-13T10:00:00Z", "customer"),
    ("$pageview", "ann", "2026-01-14T09:00:00Z", "customer"),
    ("$pageview", "qa", "2026-01-14T11:00:00Z", "test"),
    ("$pageview", "qa", "2026-01-14T11:01:00Z", "test"),
    ("$pageview", "qa", "2026-01-14T11:02:00Z", "test"),
    ("signed_up", "ann", "2026-01-13T09:05:00Z", "customer"),
    ("onboarding_completed", "ann", "2026-01-13T09:20:00Z", "customer"),
    ("signed_up", "bob", "2026-01-13T10:05:00Z", "customer"),
    ("onboarding_completed", "bob", "2026-01-13T11:00:00Z", "customer"),
    ("invite_sent", "cat", "2026-01-12T08:00:00Z", "customer"),
    ("report_viewed", "cat", "2026-01-12T08:30:00Z", "customer"),
    ("signed_up", "qa", "2026-01-14T11:03:00Z", "test"),
    ("onboarding_completed", "qa", "2026-01-14T11:04:00Z", "test"),
]


def _capture(client: Client) -> None:
    frame = pd.DataFrame(EVENTS, columns=["event", "distinct_id", "timestamp", "account"])
    result = client.capture_frame(frame, progress=False)
    assert result.accepted == len(EVENTS)


@pytest.fixture
def analyst(db_path, clock, world) -> Iterator[Client]:
    """A project that defines test-account filters, holding `EVENTS`."""
    with in_process_app(db_path, clock) as app:
        client = in_process_client(app, world.key, world.project_id)
        client.request("PATCH", client.project_path(), json={"test_account_filters": TEST_ACCOUNTS})
        _capture(client)
        yield client


@pytest.fixture
def plain(db_path, clock, world) -> Iterator[Client]:
    """The same events in a project without test-account filters."""
    with in_process_app(db_path, clock) as app:
        client = in_process_client(app, world.key, world.project_id)
        _capture(client)
        yield client


def _daily(frame: pd.DataFrame) -> dict[str, float]:
    """The days with a non-zero value, as ``YYYY-MM-DD: value``."""
    days = frame[frame["value"] > 0]
    return dict(zip(days["date"].dt.strftime("%Y-%m-%d"), days["value"], strict=True))


def test_a_trend_builder_given_nothing_opens_on_pageviews_total_last_7_days_and_shows_its_chart(analyst):
    builder = TrendBuilder(analyst)
    expected = TrendRequest(
        events=["$pageview"], date_from="-7d", interval="day", display="ActionsLineGraph", filter_test_accounts=True
    )
    assert builder.request.to_dict() == expected.to_dict()
    assert builder.error is None and builder.figure is not None and not builder.stale
    assert_frame_equal(builder.df, analyst.trend(expected))
    # with test accounts filtered out: ann and bob on the 13th, ann on the 14th (qa's three are left out)
    assert _daily(builder.df) == {"2026-01-13": 2.0, "2026-01-14": 1.0}


def test_switching_test_accounts_back_in_counts_their_events(analyst):
    builder = TrendBuilder(analyst)
    assert builder.test_accounts.value is True  # the project defines test-account filters
    builder.test_accounts.value = False
    assert builder.stale
    frame = builder.run()
    assert builder.request.filter_test_accounts is None  # off: not sent, the API's default
    # qa's three pageviews on the 14th count again: 1 + 3
    assert _daily(frame) == {"2026-01-13": 2.0, "2026-01-14": 4.0}
    assert_frame_equal(frame, analyst.trend(events=["$pageview"], date_from="-7d", display="ActionsLineGraph"))


def test_the_toggle_starts_off_in_a_project_without_test_account_filters(plain):
    builder = TrendBuilder(plain)
    assert builder.test_accounts.value is False and builder.request.filter_test_accounts is None
    assert _daily(builder.df) == {"2026-01-13": 2.0, "2026-01-14": 4.0}


def test_a_request_that_says_whether_to_filter_test_accounts_wins_over_the_project(analyst):
    builder = TrendBuilder(analyst, events=["$pageview"], filter_test_accounts=False)
    assert builder.test_accounts.value is False and builder.request.filter_test_accounts is False
    assert builder.df is None  # given its series, the builder waits for Run


def test_a_funnel_builder_given_nothing_opens_on_the_most_common_first_and_second_step(analyst):
    # the paths' busiest first edge: ann and bob went signed_up -> onboarding_completed (qa is a test
    # account), cat invite_sent -> report_viewed
    builder = FunnelBuilder(analyst)
    assert [row.entity.value for row in builder.steps] == ["signed_up", "onboarding_completed"]
    expected = FunnelRequest(
        steps=["signed_up", "onboarding_completed"],
        funnel_order_type="ordered",
        funnel_window_interval=14,
        funnel_window_interval_unit="day",
        funnel_viz_type="steps",
        date_from="-7d",
        interval="day",
        filter_test_accounts=True,
    )
    assert builder.request.to_dict() == expected.to_dict()
    assert builder.error is None and builder.figure is not None
    assert_frame_equal(builder.df, analyst.funnel(expected))
    assert builder.df["count"].tolist() == [2, 2]  # ann and bob; qa is filtered out


def test_the_funnel_toggle_counts_the_test_account_again(analyst):
    builder = FunnelBuilder(analyst)
    builder.test_accounts.value = False
    assert builder.run()["count"].tolist() == [3, 3]  # ann, bob and qa


def test_a_new_exclusion_starts_empty_and_counts_once_an_event_is_chosen(analyst):
    builder = FunnelBuilder(analyst)
    row = builder.add_exclusion()
    assert row.entity.value is None
    assert builder.request.exclusions is None  # nothing excluded yet: the numbers stay as they were
    assert not builder.stale  # the controls still describe the result shown
    assert builder.run()["count"].tolist() == [2, 2]
    row.entity.value = "$pageview"
    assert builder.request.exclusions == [
        {"id": "$pageview", "type": "events", "funnel_from_step": 0, "funnel_to_step": 1}
    ]
    assert builder.stale
