"""A Run in flight: it says so once it lasts, a newer Run supersedes it, and the grey of a stale result
follows what the controls describe."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from toolkit.widgets import FunnelBuilder, TrendBuilder
from toolkit.widgets.runs import BUSY_AFTER, BUSY_TEXT

from .fake_project import TREND
from .test_trend_builder import series, trend_answer


def _watch(builder) -> list[str]:
    """Every text the busy note takes, in order."""
    seen: list[str] = []
    builder.busy.observe(lambda change: seen.append(change["new"]), names="value")
    return seen


def test_a_quick_run_never_says_it_is_running(client, fake):
    fake.routes[("POST", TREND)] = trend_answer(series("signup", [1, 2]))
    builder = TrendBuilder(client, events=["signup"])
    # a run well within the delay: on a loaded machine this small run may itself last half a second
    builder._busy.delay = 10 * BUSY_AFTER
    seen = _watch(builder)
    builder.run_button.click()
    assert builder.error is None and builder.df is not None
    assert not any(BUSY_TEXT in text for text in seen)
    assert (builder.run_button.disabled, builder.run_button.icon, builder.busy.value) == (False, "play", "")


def test_a_run_longer_than_half_a_second_says_it_is_running_until_it_ends(client, fake):
    during = []
    builder = TrendBuilder(client, events=["signup"])

    def slow(call):
        time.sleep(BUSY_AFTER + 0.4)
        during.append((BUSY_TEXT in builder.busy.value, builder.run_button.icon))
        return trend_answer(series("signup", [1, 2]))

    fake.routes[("POST", TREND)] = slow
    builder.run_button.click()
    assert during == [(True, "spinner")]
    assert (builder.run_button.icon, builder.busy.value) == ("play", "")
    assert builder.df["value"].tolist() == [1.0, 2.0]


def test_a_new_run_supersedes_the_one_in_flight_and_only_the_newest_result_is_shown(client, fake):
    gate = threading.Event()

    def answer(call):
        if call.body["events"][0].get("math") == "dau":
            return trend_answer(series("signup", [5, 6]))
        gate.wait(10)  # the first run's answer comes after the second's
        return trend_answer(series("signup", [1, 2]))

    fake.routes[("POST", TREND)] = answer
    builder = TrendBuilder(client, events=["signup"])

    async def click_twice():
        first = builder.run_in_background()
        builder.series[0].math.value = "dau"
        second = builder.run_in_background()
        newest = await second
        gate.set()
        return await first, newest

    superseded, newest = asyncio.run(click_twice())
    assert superseded is None  # its answer came, and was dropped
    assert newest["value"].tolist() == [5.0, 6.0]
    assert builder.df is newest and builder.df["value"].tolist() == [5.0, 6.0]
    assert [body["events"][0].get("math") for body in (call.body for call in fake.calls if call.path == TREND)] == [
        None,
        "dau",
    ]
    assert not builder.stale and builder.error is None and builder.busy.value == ""


def test_a_run_started_in_the_background_shows_its_result_like_run(client, fake):
    fake.routes[("POST", TREND)] = trend_answer(series("signup", [3, 4]))
    builder = TrendBuilder(client, events=["signup"])

    async def click():
        return await builder.run_in_background()

    frame = asyncio.run(click())
    assert frame["value"].tolist() == [3.0, 4.0] and builder.df is frame and builder.figure is not None
    assert builder.run_in_background() is not None  # without an event loop it runs at once
    assert builder.df["value"].tolist() == [3.0, 4.0]


def test_a_control_changed_and_changed_back_leaves_the_result_current(client, fake):
    """Notebook 4 adds a filter row after its last run and removes it again: the result is current."""
    fake.routes[("POST", TREND)] = trend_answer(series("signup", [1, 2]))
    builder = TrendBuilder(client, events=["signup"])
    builder.run()
    row = builder.filters.add_row()
    assert builder.stale
    row.remove.click()
    assert not builder.stale and builder.message.value == ""
    builder.interval.value = "week"
    assert builder.stale and "Run to update it" in builder.message.value
    builder.interval.value = "day"
    assert not builder.stale and builder.message.value == ""


@pytest.mark.parametrize(
    "preset, interval",
    [("Last 7 days", "day"), ("Last 90 days", "day"), ("Last 180 days", "week"), ("All time", "month")],
)
def test_conversion_over_time_picks_its_interval_from_the_date_range(client, preset, interval):
    builder = FunnelBuilder(client, steps=["signup", "purchase"])
    builder.viz.value = "trends"
    builder.dates.preset.value = preset
    assert builder.request.interval == interval


def test_an_interval_chosen_or_given_stays_whatever_the_range(client):
    builder = FunnelBuilder(client, steps=["signup", "purchase"], funnel_viz_type="trends")
    builder.interval.value = "hour"
    builder.dates.preset.value = "Last 180 days"
    assert builder.request.interval == "hour"
    given = FunnelBuilder(client, steps=["signup", "purchase"], funnel_viz_type="trends", interval="day")
    given.dates.preset.value = "Last 180 days"
    assert given.request.interval == "day"
