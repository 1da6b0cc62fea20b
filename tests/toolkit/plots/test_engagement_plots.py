"""Stickiness and lifecycle plots of what the local backend answers, and retention heat maps per breakdown value:
every drawn number is the frame's, and the frame's is the server's (`tests.toolkit.engagement_events` holds
the events and the hand-worked numbers); labels read alone and never run into each other."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.colors import to_hex

from tests.toolkit.engagement_events import LIFECYCLE, RANGE, STICKINESS
from toolkit import LifecycleRequest, StickinessRequest
from toolkit.frames import retention_frame
from toolkit.plots import LIFECYCLE_COLORS, plot_lifecycle, plot_retention, plot_stickiness
from toolkit.plots.periods import IN_PROGRESS
from toolkit.plots.style import overlapping, visible_tick_boxes


@pytest.fixture(autouse=True)
def closed_figures():
    before = set(plt.get_fignums())
    yield
    for number in set(plt.get_fignums()) - before:
        plt.close(number)


def server_series(client, request):
    """The series the server answers for ``request`` (what the frame was made from)."""
    return client.calculate("trend", request)["result"]


def bar_heights(container):
    return [float(patch.get_height()) for patch in container.patches]


def tick_texts(ax):
    return [label.get_text() for label in ax.get_xticklabels()]


def drawn(ax):
    ax.figure.canvas.draw()
    return ax


def test_stickiness_bars_are_the_frames_and_the_servers_numbers(engagement_client):
    request = StickinessRequest(events="view", **RANGE)
    frame = engagement_client.stickiness(request)
    answer = server_series(engagement_client, request)
    ax = drawn(plot_stickiness(frame))
    (container,) = ax.containers
    assert bar_heights(container) == frame["value"].astype(float).tolist() == answer[0]["data"] == STICKINESS
    assert tick_texts(ax) == answer[0]["labels"] == ["1 day", "2 days", "3 days", "4 days"]
    # each bar with a count carries it; the empty one none
    assert [text.get_text() for text in ax.texts if text.get_text()] == ["2", "1", "1"]
    assert (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) == ("Stickiness of view", "Days active", "Persons")
    assert ax.get_legend() is None  # one series: nothing to tell apart
    assert not overlapping(visible_tick_boxes(ax))
    assert ax.get_ylim()[0] == 0


def test_stickiness_groups_a_bar_per_breakdown_value_and_period(engagement_client):
    by_plan = StickinessRequest(events="view", breakdown="plan", **RANGE)
    frame = engagement_client.stickiness(by_plan)
    ax = drawn(plot_stickiness(frame))
    answer = {item["breakdown_value"]: item["data"] for item in server_series(engagement_client, by_plan)}
    assert [container.get_label() for container in ax.containers] == ["view - free", "view - pro"]
    assert [bar_heights(container) for container in ax.containers] == [answer["free"], answer["pro"]]
    assert answer == {"free": [2, 0, 0, 0], "pro": [0, 1, 1, 0]}
    # the two bars of a group sit side by side around their interval's tick
    free, pro = (container.patches[0] for container in ax.containers)
    assert free.get_x() + free.get_width() == pytest.approx(pro.get_x())
    assert [text.get_text() for text in ax.get_legend().get_texts()] == ["view - free", "view - pro"]
    legend = ax.get_legend().get_window_extent()
    assert not any(legend.overlaps(bar.get_window_extent()) for bar in ax.patches)

    compared = engagement_client.stickiness(events="view", compare=True, **RANGE)
    current, previous = drawn(plot_stickiness(compared)).containers
    assert (bar_heights(current), bar_heights(previous)) == (STICKINESS, [1.0, 0.0, 0.0, 0.0])
    # the previous period in its current series' colour, hatched and faded
    assert to_hex(previous.patches[0].get_facecolor()) == to_hex(current.patches[0].get_facecolor())
    assert previous.patches[0].get_hatch() == "//" and current.patches[0].get_hatch() is None


def test_stickiness_over_a_month_thins_its_labels_and_keeps_texts_apart(engagement_client):
    # 31 days: 31 groups of bars; ann's 4 active days put her in "4 days"; nobody beyond
    frame = engagement_client.stickiness(events="view", date_from="2025-12-15", date_to="2026-01-14")
    ax = drawn(plot_stickiness(frame))
    heights = bar_heights(ax.containers[0])
    assert len(heights) == 31
    assert heights[:4] == [2.0, 1.0, 0.0, 1.0] and sum(heights) == 4
    shown = [label for label in ax.get_xticklabels() if label.get_text()]
    assert len(shown) <= 12 and shown[0].get_text() == "1 day"
    assert not overlapping(visible_tick_boxes(ax))
    assert not overlapping([text.get_window_extent() for text in ax.texts if text.get_text()])


def test_weekly_cumulative_stickiness_names_its_axis(engagement_client):
    frame = engagement_client.stickiness(events="view", interval="week", cumulative=True, **RANGE)
    ax = plot_stickiness(frame)
    # 5-8 January is one week (weeks start on Sunday): all 4 persons active in 1 week or more
    assert bar_heights(ax.containers[0]) == [4.0]
    assert tick_texts(ax) == ["1 week or more"]
    assert ax.get_xlabel() == "Weeks active (or more)"


def test_lifecycle_stacks_are_the_frames_and_the_servers_numbers(engagement_client):
    request = LifecycleRequest("view", **RANGE)
    frame = engagement_client.lifecycle(request)
    answer = {item["status"]: item["data"] for item in server_series(engagement_client, request)}
    ax = drawn(plot_lifecycle(frame))
    statuses = [container.get_label() for container in ax.containers]
    assert statuses == ["new", "returning", "resurrecting", "dormant"]
    for container in ax.containers:
        status = container.get_label()
        rows = frame[frame["status"] == status]["value"].astype(float).tolist()
        assert bar_heights(container) == rows == answer[status] == LIFECYCLE[status]
        assert {to_hex(bar.get_facecolor()) for bar in container.patches} == {LIFECYCLE_COLORS[status]}
    # new at the bottom, returning on it, resurrecting on both; dormant hangs from zero
    bottoms = {container.get_label(): [bar.get_y() for bar in container.patches] for container in ax.containers}
    assert bottoms["returning"] == LIFECYCLE["new"]
    assert bottoms["resurrecting"] == list(np.add(LIFECYCLE["new"], LIFECYCLE["returning"]))
    assert bottoms["dormant"] == [0, 0, 0, 0]
    assert tick_texts(ax) == ["Jan 05", "Jan 06", "Jan 07", "Jan 08"]
    low, high = ax.get_ylim()
    assert low < -2 and high > 2  # the deepest dormant bar and the tallest stack both fit
    assert ax.get_title() == "Lifecycle of view"
    legend = ax.get_legend().get_window_extent()
    assert [text.get_text() for text in ax.get_legend().get_texts()] == statuses
    assert not any(legend.overlaps(bar.get_window_extent()) for bar in ax.patches if bar.get_height())
    assert not overlapping(visible_tick_boxes(ax))


def test_a_month_of_daily_lifecycle_keeps_its_dates_apart(engagement_client):
    # 15 December to 14 January: each person is new on the day of their first view (4), ann returns on the
    # 5th and 6th (2), dee on the 7th and ann on the 8th come back after a gap (2), and the day after each run
    # of activity someone goes dormant: ann on the 7th and 9th, bob on the 7th, cy on the 9th, dee on the 6th
    # and 8th (-6)
    frame = engagement_client.lifecycle("view", date_from="2025-12-15", date_to="2026-01-14")
    ax = drawn(plot_lifecycle(frame))
    totals = {container.get_label(): sum(bar_heights(container)) for container in ax.containers}
    assert totals == {"new": 4.0, "returning": 2.0, "resurrecting": 2.0, "dormant": -6.0}
    assert all(len(container.patches) == 31 for container in ax.containers)
    shown = [label for label in ax.get_xticklabels() if label.get_text()]
    assert 2 <= len(shown) <= 12 and shown[0].get_text() == "Dec 15"
    assert not overlapping(visible_tick_boxes(ax))


def test_lifecycle_marks_the_week_still_in_progress(engagement_client):
    # weeks start on Sunday: 4-10 January, then 11-17, which had not ended at the clock's 15 January 12:00.
    # Everyone's first week is the one they were created in (4 new); nobody came back the next (4 dormant, so far)
    frame = engagement_client.lifecycle("view", interval="week", date_from="2026-01-05", date_to="2026-01-15")
    ax = plot_lifecycle(frame)
    assert {container.get_label(): bar_heights(container) for container in ax.containers} == {
        "new": [4.0, 0.0],
        "returning": [0.0, 0.0],
        "resurrecting": [0.0, 0.0],
        "dormant": [0.0, -4.0],
    }
    for container in ax.containers:
        assert [bar.get_gid() for bar in container.patches] == [None, IN_PROGRESS]
    assert tick_texts(ax) == ["Jan 04", "Jan 11"]


def test_wide_frames_plot_the_same_bars(engagement_client):
    sticky = plot_stickiness(engagement_client.stickiness(events="view", wide=True, **RANGE))
    assert bar_heights(sticky.containers[0]) == STICKINESS
    life = plot_lifecycle(engagement_client.lifecycle("view", wide=True, **RANGE))
    assert {container.get_label(): bar_heights(container) for container in life.containers} == LIFECYCLE


def test_empty_frames_say_no_data(engagement_client):
    sticky = plot_stickiness(engagement_client.stickiness(events="view", **RANGE).iloc[0:0])
    life = plot_lifecycle(engagement_client.lifecycle("view", **RANGE).iloc[0:0])
    assert [text.get_text() for text in sticky.texts] == ["No data"] == [text.get_text() for text in life.texts]


# PostHog's answer to a retention broken down by plan (the local backend refuses retention breakdowns): two
# cohorts per value. free: 4 then 2 back (50%), 3 then 0; pro: 5 then 4 back (80%), 2 then 1 (50%).
RETENTION_BY_PLAN = {
    "result": [
        {"label": "Day 0", "date": "2026-01-05T00:00:00Z", "breakdown_value": "free",
         "values": [{"count": 4}, {"count": 2}]},
        {"label": "Day 1", "date": "2026-01-06T00:00:00Z", "breakdown_value": "free", "values": [{"count": 3}]},
        {"label": "Day 0", "date": "2026-01-05T00:00:00Z", "breakdown_value": "pro",
         "values": [{"count": 5}, {"count": 4}]},
        {"label": "Day 1", "date": "2026-01-06T00:00:00Z", "breakdown_value": "pro", "values": [{"count": 2}]},
    ],
    "timezone": "UTC",
}  # fmt: skip


def test_retention_with_a_breakdown_draws_a_heat_map_per_value():
    frame = retention_frame(RETENTION_BY_PLAN)
    maps = plot_retention(frame).figure.axes
    assert [ax.get_title() for ax in maps] == ["Retention by day: free", "Retention by day: pro"]
    for ax, value in zip(maps, ("free", "pro"), strict=True):
        rows = [row for row in RETENTION_BY_PLAN["result"] if row["breakdown_value"] == value]
        expected = [[cell["count"] / row["values"][0]["count"] for cell in row["values"]] for row in rows]
        grid = ax.images[0].get_array().filled(np.nan)
        for number, rates in enumerate(expected):
            assert grid[number, : len(rates)].tolist() == rates
            frame_rates = frame[(frame["breakdown_value"] == value) & (frame["cohort"] == rows[number]["label"])]
            assert frame_rates["retention_rate"].tolist() == rates
        assert [label.get_text() for label in ax.get_yticklabels()] == [
            f"Jan 05, 2026 ({rows[0]['values'][0]['count']})",
            f"Jan 06, 2026 ({rows[1]['values'][0]['count']})",
        ]
    assert maps[0].images[0].get_array().filled(np.nan)[0].tolist() == [1.0, 0.5]
    assert maps[1].images[0].get_array().filled(np.nan)[0].tolist() == [1.0, 0.8]
    # the stacked heat maps never cover each other's labels
    maps[0].figure.canvas.draw()
    boxes = [ax.get_tightbbox() for ax in maps]
    assert not overlapping(boxes)
