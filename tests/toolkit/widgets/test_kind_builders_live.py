"""The retention, paths, stickiness and lifecycle builders against the local backend in the test process, on
the hand-written events of `tests.toolkit.engagement_events` (its docstring has who viewed when, and the
stickiness and lifecycle numbers) and the three paths sessions of `tests.toolkit.test_people.PATH_EVENTS`.

Each builder's frame is the client call's for the same request, its numbers are the hand-worked ones, a
picked point lists the people `client.people` / `client.path_people` list for it, a click on the drawn
point picks it too, and a saved builder opens again from its insight with the same request.

Retention of ``view`` by day, 4 cohorts up to 8 January (recurring): 5th ann and dee, back on the 6th ann, on
the 7th dee, on the 8th ann: 2, 1, 1, 1; 6th ann and bob, back on the 7th nobody, on the 8th ann: 2, 0, 1; 7th
dee, not back on the 8th: 1, 0; 8th ann and cy: 2.

Paths of those sessions restricted by the funnel home -> pricing (-> signup): who reached pricing is pia and
quin, who dropped off before it rae; between pricing and signup only pia went on.
"""

from __future__ import annotations

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from toolkit import FunnelRequest, PathsRequest
from toolkit.widgets import LifecycleBuilder, PathsBuilder, RetentionBuilder, StickinessBuilder

from ..engagement_events import LIFECYCLE, RANGE, STICKINESS
from ..test_people import PATH_EVENTS, PATHS

RETENTION = {"period": "Day", "total_intervals": 4, "date_to": "2026-01-08"}


def _who(people: pd.DataFrame) -> list[str]:
    return sorted(ids[0] for ids in people["distinct_ids"])


def _index(builder, label: str) -> int:
    labels = [point.label for point in builder.people.points]
    assert label in labels, labels
    return labels.index(label)


def _same_frame(shown: pd.DataFrame, called: pd.DataFrame) -> None:
    assert_frame_equal(shown, called)
    assert shown.attrs.get("people_urls") == called.attrs.get("people_urls")


def test_the_retention_builder_shows_the_client_s_table_and_its_cells_people(engagement_client):
    builder = RetentionBuilder(engagement_client, "view", **RETENTION)
    frame = builder.run()
    assert frame is not None, builder.error
    _same_frame(frame, engagement_client.retention(builder.request))
    counts = frame.groupby("cohort_date", sort=True)["count"].apply(list).tolist()
    assert counts == [[2, 1, 1, 1], [2, 0, 1], [1, 0], [2]]
    point = _index(builder, "Day 0 (2026-01-05): back in period 2 · 1")
    assert _who(builder.people.pick(point)) == ["dee"]
    row = builder.people.points[point].row
    assert _who(engagement_client.people(frame.iloc[row])) == ["dee"]
    # the 6th's cohort on the heat map: row 1, period 0 (x the period, y the cohort's row)
    assert _who(builder.people.click_at(0.1, 1.1)) == ["ann", "bob"]
    assert builder.people.message.value.count("2 persons behind Day 1 (2026-01-06): in the cohort") == 1


def test_the_stickiness_builder_shows_the_client_s_buckets_and_their_people(engagement_client):
    builder = StickinessBuilder(engagement_client, events=["view"], **RANGE)
    frame = builder.run()
    assert frame is not None, builder.error
    _same_frame(frame, engagement_client.stickiness(builder.request))
    assert frame["value"].tolist() == STICKINESS
    assert _who(builder.people.pick(_index(builder, "view · 1 day: 2"))) == ["bob", "cy"]
    # the bar of 2 days (x 1, 1 person tall): dee
    assert _who(builder.people.click_at(1.0, 0.5)) == ["dee"]
    builder.criteria_value.value = 2  # at least 2 views in a day: only bob's 6 January
    assert builder.run()["value"].tolist() == [1, 0, 0, 0]
    assert _who(builder.people.pick(_index(builder, "view · 1 day: 1"))) == ["bob"]


def test_the_lifecycle_builder_shows_the_client_s_statuses_and_their_people(engagement_client):
    builder = LifecycleBuilder(engagement_client, "view", **RANGE)
    frame = builder.run()
    assert frame is not None, builder.error
    _same_frame(frame, engagement_client.lifecycle(builder.request))
    assert {status: rows["value"].tolist() for status, rows in frame.groupby("status", sort=False)} == LIFECYCLE
    assert _who(builder.people.pick(_index(builder, "2026-01-07 · dormant: -2"))) == ["ann", "bob"]
    # 8 January (x 3): new cy at the bottom of the stack (0 to 1), resurrected ann above her (1 to 2)
    assert _who(builder.people.click_at(3.0, 0.5)) == ["cy"]
    assert _who(builder.people.click_at(3.0, 1.5)) == ["ann"]


def test_the_paths_builder_shows_the_client_s_edges_and_their_people(engagement_client):
    engagement_client.load_events(PATH_EVENTS, progress=False)
    builder = PathsBuilder(engagement_client, **PATHS)
    frame = builder.run()
    assert frame is not None, builder.error
    _same_frame(frame, engagement_client.paths(builder.request))
    assert sorted(zip(frame["source"], frame["target"], frame["value"], strict=True)) == [
        ("1_home", "2_pricing", 2),
        ("1_home", "2_signup", 1),
        ("2_pricing", "3_signup", 1),
    ]
    assert [point.label for point in builder.people.points] == [
        "Step 1 home: reached · 3 sessions",
        "Step 2 pricing: reached · 2 sessions",
        "Step 2 signup: reached · 1 session",
        "Step 3 signup: reached · 1 session",
        "Step 1 home → pricing · 2 sessions",
        "Step 1 home → signup · 1 session",
        "Step 2 pricing → signup · 1 session",
    ]
    assert _who(builder.people.pick(1)) == ["pia", "quin"]
    assert _who(builder.people.pick(5)) == ["rae"]
    assert _who(engagement_client.path_people(builder.request, start_key="1_home", end_key="2_signup")) == ["rae"]
    # a click in the middle of the third step's node
    x, y = builder.people.points[3].anchor
    assert _who(builder.people.click_at(x, y)) == ["pia"]


FUNNEL = {"date_from": PATHS["date_from"], "date_to": PATHS["date_to"]}


@pytest.mark.parametrize(
    ("restriction", "step", "steps", "edges"),
    [
        # pia: pricing, signup; quin: pricing (no edge)
        ("after", 2, ["home", "pricing"], [("1_pricing", "2_signup", 1)]),
        ("before", 2, ["home", "pricing"], [("1_home", "2_pricing", 2)]),
        # rae stopped at home and went on to signup
        ("after", -2, ["home", "pricing"], [("1_home", "2_signup", 1)]),
        ("between", 3, ["home", "pricing", "signup"], [("1_pricing", "2_signup", 1)]),
    ],
    ids=["after", "before", "after-dropped", "between"],
)
def test_the_paths_builder_restricted_by_a_funnel_shows_the_client_s_edges(
    engagement_client, restriction, step, steps, edges
):
    engagement_client.load_events(PATH_EVENTS, progress=False)
    builder = PathsBuilder(engagement_client, **PATHS)
    builder.funnel.restriction.value = restriction
    for row in list(builder.funnel.steps):
        builder.funnel.remove_step(row)
    for name in steps:
        builder.funnel.add_step(name)
    builder.funnel.step.value, builder.funnel.whose.value = abs(step), 1 if step > 0 else -1
    by_hand = PathsRequest(
        **PATHS, funnel=FunnelRequest(steps=steps, **FUNNEL), funnel_step=step, funnel_paths=restriction
    )
    assert builder.request.to_dict() == by_hand.to_dict()
    frame = builder.run()
    assert frame is not None, builder.error
    _same_frame(frame, engagement_client.paths(by_hand))
    assert sorted(zip(frame["source"], frame["target"], frame["value"], strict=True)) == edges
    # the people of an edge are those of the funnel's step who made it
    source, target, _ = edges[0]
    edge = next(index for index, point in enumerate(builder.people.points) if point.row == 0)
    shown = _who(builder.people.pick(edge))
    assert shown and shown == _who(engagement_client.path_people(by_hand, start_key=source, end_key=target))


def test_a_funnel_step_the_backend_refuses_is_its_message_not_a_traceback(engagement_client):
    engagement_client.load_events(PATH_EVENTS, progress=False)
    funnel = FunnelRequest(steps=["home", "pricing"], breakdown="$browser", **FUNNEL)
    builder = PathsBuilder(engagement_client, **PATHS, funnel=funnel, funnel_step=2)
    assert builder.run() is None
    assert builder.error.startswith("The API refused the request: A funnel restricting paths is not broken down")


@pytest.mark.parametrize(
    "make",
    [
        lambda client: RetentionBuilder(client, "view", retention_type="retention_first_time", **RETENTION),
        lambda client: PathsBuilder(client, **PATHS, start_point="home", step_limit=3),
        lambda client: PathsBuilder(
            client,
            **PATHS,
            funnel=FunnelRequest(steps=["home", "pricing", "signup"], funnel_window_interval=1, **FUNNEL),
            funnel_step=-3,
            funnel_paths="between",
        ),
        lambda client: StickinessBuilder(client, events=["view"], criteria=("gte", 2), cumulative=True, **RANGE),
        lambda client: LifecycleBuilder(client, "view", interval="week", **RANGE),
    ],
    ids=["retention", "paths", "paths-funnel", "stickiness", "lifecycle"],
)
def test_a_saved_builder_opens_again_with_the_same_request(engagement_client, make):
    builder = make(engagement_client)
    builder.name.value = "Saved from a builder"
    assert builder.save() is not None, builder.error
    opened = type(builder).from_insight(engagement_client, builder.short_id)
    assert opened.name.value == "Saved from a builder"
    assert opened.request.to_dict() == builder.request.to_dict()
    if isinstance(builder, PathsBuilder):  # the funnel's controls show what was saved

        def funnel_shown(paths):
            control = paths.funnel
            steps = [row.entity.value for row in control.steps]
            return control.restriction.value, control.step.value, control.whose.value, steps

        assert funnel_shown(opened) == funnel_shown(builder)


def test_the_people_of_a_cell_save_as_a_static_cohort(engagement_client):
    builder = RetentionBuilder(engagement_client, "view", **RETENTION)
    builder.run()
    builder.people.pick(_index(builder, "Day 0 (2026-01-05): in the cohort · 2"))
    made = builder.people.save_cohort("Viewed on 5 January")
    assert made is not None, builder.people.error
    assert made.loc[0, "name"] == "Viewed on 5 January" and int(made.loc[0, "count"]) == 2


def test_the_cohort_name_follows_the_picked_point_until_one_is_typed(engagement_client):
    builder = StickinessBuilder(engagement_client, events=["view"], **RANGE)
    builder.run()
    builder.people.pick(0)
    assert builder.people.cohort_name.value == "view · 1 day: 2"
    builder.people.pick(1)
    assert builder.people.cohort_name.value == "view · 2 days: 1"
    builder.people.cohort_name.value = "Came back once"
    builder.people.pick(2)
    assert builder.people.cohort_name.value == "Came back once"


def test_broken_down_stickiness_bars_each_pick_their_own_value_s_people(engagement_client):
    # by plan: free (bob, cy) 2, 0, 0, 0; pro dee 2 days and ann 3 days: 0, 1, 1, 0
    builder = StickinessBuilder(engagement_client, events=["view"], breakdown="plan", breakdown_type="event", **RANGE)
    frame = builder.run()
    assert frame is not None, builder.error
    _same_frame(frame, engagement_client.stickiness(builder.request))
    free = builder.people.points[_index(builder, "view · free · 1 day: 2")]
    pro = builder.people.points[_index(builder, "view · pro · 3 days: 1")]
    assert free.anchor is not None and pro.anchor is not None and free.width is not None
    assert _who(builder.people.click_at(free.anchor[0], free.anchor[1] / 2)) == ["bob", "cy"]
    assert _who(builder.people.click_at(pro.anchor[0], pro.anchor[1] / 2)) == ["ann"]
    # the two values' bars of one bucket sit side by side, not on top of each other
    two_days = [point for point in builder.people.points if "2 days" in point.label]
    assert len({point.anchor[0] for point in two_days}) == 2


def test_a_broken_down_retention_draws_a_table_per_value_and_lists_each_value_s_cells(engagement_client):
    # each cohort under its start event's plan: free bob (6th) and cy (8th); pro ann and dee
    builder = RetentionBuilder(engagement_client, "view", breakdown="plan", **RETENTION)
    frame = builder.run()
    assert frame is not None, builder.error
    _same_frame(frame, engagement_client.retention(builder.request))
    assert len(builder.figure.axes) == 2
    assert _who(builder.people.pick(_index(builder, "Day 1 (2026-01-06) · free: in the cohort · 1"))) == ["bob"]
    assert _who(builder.people.pick(_index(builder, "Day 0 (2026-01-05) · pro: in the cohort · 2"))) == ["ann", "dee"]
    assert all(point.anchor is None for point in builder.people.points)  # several tables: the picker is the way
