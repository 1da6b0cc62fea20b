"""The people panel of the trend and funnel builders against the local backend in the test process, on the
hand-written events of `tests.toolkit.engagement_events` (its docstring has who viewed when).

Worked by hand, 5 to 8 January by day, unique users of ``view``: 5th ann and dee (2), 6th ann and bob (2),
7th dee (1), 8th ann and cy (2). A funnel ``view`` then ``view`` (14 days) over the same dates: step 1 is
everyone who viewed in the range (ann, bob, cy, dee: 4); step 2 needs a second view after the first: ann (5th
then 6th), bob (6th twice), dee (5th then 7th): 3; cy viewed once, so she is the one who dropped off.
"""

from __future__ import annotations

import pandas as pd
import pytest
from matplotlib.backend_bases import MouseEvent

from toolkit import event
from toolkit.widgets import FunnelBuilder, TrendBuilder
from toolkit.widgets.people import CELL_CHARS, PeoplePanel, people_html, people_table

from ..engagement_events import RANGE


def _who(people: pd.DataFrame) -> list[str]:
    return sorted(ids[0] for ids in people["distinct_ids"])


@pytest.fixture
def trend(engagement_client) -> TrendBuilder:
    builder = TrendBuilder(engagement_client, events=[event("view", math="dau")], interval="day", **RANGE)
    assert builder.run() is not None, builder.error
    return builder


@pytest.fixture
def funnel(engagement_client) -> FunnelBuilder:
    builder = FunnelBuilder(engagement_client, steps=["view", "view"], funnel_window_interval=14, **RANGE)
    assert builder.run() is not None, builder.error
    return builder


def test_the_trend_panel_offers_a_point_per_day_and_sits_under_the_result(trend):
    assert [point.row for point in trend.people.points] == [0, 1, 2, 3]
    assert [point.label for point in trend.people.points] == [
        "view: unique users · 2026-01-05: 2",
        "view: unique users · 2026-01-06: 2",
        "view: unique users · 2026-01-07: 1",
        "view: unique users · 2026-01-08: 2",
    ]
    children = list(trend.widget.children)
    assert children.index(trend.people.box) == children.index(trend.result.box) + 1
    assert trend.people.box.layout.display is None and trend.people.save_button.disabled


@pytest.mark.parametrize(
    "index, expected", [(0, ["ann", "dee"]), (1, ["ann", "bob"]), (2, ["dee"]), (3, ["ann", "cy"])]
)
def test_picking_a_day_lists_exactly_the_people_it_counts(trend, engagement_client, index, expected):
    trend.people.picker.value = index  # as choosing it in the list does
    people = trend.people.people
    assert _who(people) == expected
    # the same persons as client.people for that row, and as many as the point's value (unique users)
    assert _who(engagement_client.people(trend.df.loc[index])) == expected
    assert len(people) == trend.df.loc[index, "value"]
    assert f"{len(expected)} person" in trend.people.message.value
    assert all(name in trend.people.table.value for name in expected)


def test_the_table_shows_each_persons_properties():
    created = pd.to_datetime(["2026-01-04"], utc=True)
    people = pd.DataFrame(
        {
            "id": ["p1"],
            "name": ["ann"],
            "distinct_ids": [["ann"]],
            "properties": [{"plan": "pro"}],
            "created_at": created,
        }
    )
    assert people_table(people).to_dict("records") == [
        {"distinct_id": "ann", "name": "ann", "created_at": pd.Timestamp("2026-01-04", tz="UTC"), "plan": "pro"}
    ]


def test_a_long_property_value_is_cut_in_its_cell_and_whole_in_its_tooltip():
    url = "https://example.com/pricing?utm_source=newsletter&utm_campaign=" + "x" * 40
    long_id = "0193f2c4-7a1e-7c3b-9d2e-5f6a7b8c9d0e-" + "y" * 20
    people = pd.DataFrame(
        {
            "id": ["p1", "p2"],
            "name": ["ann", "bob"],
            "distinct_ids": [[long_id], ["bob"]],
            "properties": [{"$current_url": url, "plan": "<b>pro</b>"}, {"plan": "free"}],
            "created_at": pd.to_datetime(["2026-01-04", "2026-01-05"], utc=True),
        }
    )
    markup = people_html(people_table(people))
    cut = url[: CELL_CHARS - 1] + "…"
    assert f'<td title="{url.replace("&", "&amp;")}">{cut.replace("&", "&amp;")}</td>' in markup
    assert url.replace("&", "&amp;") + "<" not in markup  # the whole URL is only in the tooltip
    assert f"<td>{long_id}</td>" in markup  # who the row is stays whole
    assert "&lt;b&gt;pro&lt;/b&gt;" in markup and "<b>" not in markup
    assert "<th>distinct_id</th><th>name</th><th>created_at</th><th>plan</th><th>$current_url</th>" in markup
    assert "<td>bob</td><td>bob</td><td>2026-01-05 00:00:00+00:00</td><td>free</td><td></td>" in markup
    assert "more row" not in markup and "1 more row not shown" in people_html(people_table(people), max_rows=1)


def test_the_people_table_scrolls_inside_the_builder_instead_of_widening_it(trend):
    trend.people.pick(0)
    layout = trend.people.table.layout
    assert (layout.width, layout.max_width, layout.overflow) == ("100%", "100%", "auto")
    assert trend.people.table.value.startswith('<div class="insightlab-table"')
    assert "overflow: auto" in trend.people.table.value and "<td>ann</td>" in trend.people.table.value


def test_clicking_a_point_of_the_line_lists_its_people(trend):
    # the 7th (dee alone) is drawn at (that date, 1); a click a few pixels off still picks it
    axes = trend.figure.axes[0]
    x, y = trend.people.points[2].anchor
    screen_x, screen_y = axes.transData.transform((x, y))
    MouseEvent("button_press_event", trend.figure.canvas, screen_x + 3, screen_y - 2, button=1)._process()
    assert trend.people.picker.value == 2
    assert _who(trend.people.people) == ["dee"]
    # far from every point nothing is picked and the hint says so
    assert trend.people.click_at(x, y + 100) is None and "No point there" in trend.people.hint.value


def test_saving_makes_a_static_cohort_of_exactly_those_people(trend, engagement_client):
    trend.people.pick(3)
    trend.people.cohort_name.value = "Viewed on the 8th"
    trend.people.save_button.click()
    assert trend.people.error is None
    made = trend.people.cohort
    assert (made.loc[0, "name"], int(made.loc[0, "count"]), bool(made.loc[0, "is_static"])) == (
        "Viewed on the 8th",
        2,
        True,
    )
    members = engagement_client.paginate(engagement_client.project_path(f"cohorts/{int(made.loc[0, 'id'])}/persons/"))
    assert sorted(person["distinct_ids"][0] for person in members) == ["ann", "cy"]
    assert "Viewed on the 8th" in trend.people.saved.value and "of 2 persons" in trend.people.saved.value


def test_saving_before_picking_or_without_a_name_is_a_message(trend):
    assert trend.people.save_cohort("x") is None and "pick a point first" in trend.people.error
    trend.people.pick(0)
    assert trend.people.save_cohort("  ") is None and "a cohort needs a name" in trend.people.error


def test_the_funnel_panel_lists_who_reached_and_who_dropped(funnel, engagement_client):
    assert [point.row for point in funnel.people.points] == [0, 1, 1]
    labels = [point.label for point in funnel.people.points]
    assert labels == ["Step 1 view: reached · 4", "Step 2 view: reached · 3", "Step 2 view: dropped off before it · 1"]
    for index, expected in ((0, ["ann", "bob", "cy", "dee"]), (1, ["ann", "bob", "dee"]), (2, ["cy"])):
        assert _who(funnel.people.pick(index)) == expected
        assert len(funnel.people.people) == funnel.people.points[index].value  # the step's count
    assert _who(engagement_client.funnel_people(funnel.request, step=2, dropped=True)) == ["cy"]


def test_clicking_inside_a_funnel_bar_picks_its_step(funnel):
    bar = funnel.figure.axes[0].containers[0].patches[1]  # step 2, 3 persons high
    middle = (bar.get_x() + bar.get_width() / 2, bar.get_height() / 2)
    assert _who(funnel.people.click_at(*middle)) == ["ann", "bob", "dee"]


def test_a_view_without_people_hides_the_panel(funnel):
    funnel.viz.value = "time_to_convert"
    funnel.run()
    assert funnel.people.points == [] and funnel.people.box.layout.display == "none"


def test_an_api_error_while_listing_is_a_message(trend, monkeypatch):
    from toolkit import ValidationError

    def refuse(*_args, **_kwargs):
        raise ValidationError(400, code="invalid_input", detail="No.", attr="date_from")

    monkeypatch.setattr(trend.client, "people", refuse)
    trend.run()  # its points now list through the refusing call
    trend.people.picker.value = 1
    assert trend.people.people is None and trend.people.error.startswith("The API refused the request: No.")


def test_a_panel_alone_needs_no_builder(engagement_client):
    panel = PeoplePanel(engagement_client)
    panel.load([])
    assert panel.box.layout.display == "none"
    with pytest.raises(IndexError):
        panel.pick(0)
