"""FunnelBuilder driven from code: steps, order, window, exclusions and visualisations."""

from __future__ import annotations

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from toolkit import Client, FunnelRequest
from toolkit.widgets import FunnelBuilder

from ..fakes import FakeSession
from .fake_project import FUNNEL, INSIGHTS, sent


def steps_answer(*counts, names=("signup", "purchase", "activate")):
    rows = [{"order": order, "name": names[order], "count": count} for order, count in enumerate(counts)]
    if len(rows) > 1:
        rows[1]["average_conversion_time"] = 60
        rows[1]["median_conversion_time"] = 30
    return (200, {"result": rows})


def test_initial_values_round_trip_into_the_request():
    fields = {
        "steps": ["signup", 7, "purchase"],
        "funnel_order_type": "strict",
        "funnel_window_interval": 3,
        "funnel_window_interval_unit": "hour",
        "funnel_viz_type": "steps",
        "exclusions": [{"id": "$pageview", "type": "events", "funnel_from_step": 0, "funnel_to_step": 1}],
        "date_from": "-30d",
        "interval": "day",
        "breakdown": "$browser",
        "breakdown_type": "event",
        "breakdown_attribution_type": "last_touch",
    }
    client = Client(base_url="https://h.example", api_key="phx_x", project_id=1, session=FakeSession())
    builder = FunnelBuilder(client, **fields)
    assert builder.request.to_dict() == FunnelRequest(**fields).to_dict()
    assert [row.label.value for row in builder.steps] == ["Step 1", "Step 2", "Step 3"]
    assert repr(builder) == "<FunnelBuilder: signup → 7 → purchase by $browser>"
    assert (builder.exclusions[0].from_step.value, builder.exclusions[0].to_step.value) == (1, 2)


def test_defaults_are_posthogs(client):
    request = FunnelBuilder(client, steps=["signup", "purchase"]).request
    assert (request.funnel_order_type, request.funnel_window_interval, request.funnel_window_interval_unit) == (
        "ordered",
        14,
        "day",
    )
    assert (request.funnel_viz_type, request.date_from, request.interval) == ("steps", "-7d", "day")


def test_reorder_add_and_remove_steps(client):
    builder = FunnelBuilder(client, steps=["signup", "purchase"])
    first, second = builder.steps
    assert first.up.disabled and second.down.disabled and not first.down.disabled
    first.down.click()
    assert [step["id"] for step in builder.request.steps] == ["purchase", "signup"]
    assert [row.label.value for row in builder.steps] == ["Step 1", "Step 2"]
    assert builder.steps_box.children == (second.box, first.box)
    builder.add_step_button.click()
    builder.steps[2].entity.value = 7
    assert builder.request.steps[2] == {"id": 7, "type": "actions"}
    first.up.click()
    first.up.click()  # already at the top: stays there
    assert [step["id"] for step in builder.request.steps] == ["signup", "purchase", 7]
    builder.steps[1].remove.click()
    builder.steps[1].remove.click()
    assert builder.run() is None and builder.error == "Check the builder: a funnel needs at least two steps"


def test_run_sends_order_window_and_exclusions_and_plots_the_steps(client, fake):
    fake.routes[("POST", FUNNEL)] = steps_answer(10, 4)
    builder = FunnelBuilder(client, steps=["signup", "purchase"])
    builder.order.value = "unordered"
    builder.window.value = 2
    builder.window_unit.value = "week"
    builder.add_exclusion_button.click()
    builder.exclusions[0].entity.value = "$pageview"
    builder.run_button.click()
    body = sent(fake, FUNNEL)[0]
    assert body["events"] == [
        {"id": "signup", "type": "events", "order": 0},
        {"id": "purchase", "type": "events", "order": 1},
    ]
    assert (body["funnel_order_type"], body["funnel_window_interval"], body["funnel_window_interval_unit"]) == (
        "unordered",
        2,
        "week",
    )
    assert body["funnel_window_interval_type"] == "WEEK"
    assert body["exclusions"] == [{"id": "$pageview", "type": "events", "funnel_from_step": 0, "funnel_to_step": 1}]
    # 10 entered, 4 converted: 40% overall and from step 1, 6 dropped off
    expected = pd.DataFrame(
        {
            "step": pd.array([1, 2], dtype="Int64"),
            "count": pd.array([10, 4], dtype="Int64"),
            "conversion_rate": [1.0, 0.4],
            "drop_off": pd.array([0, 6], dtype="Int64"),
            "average_conversion_time": pd.to_timedelta([None, 60], unit="s").astype("timedelta64[ns]"),
        }
    )
    assert_frame_equal(builder.df[list(expected.columns)], expected)
    ax = builder.figure.axes[0]
    assert [float(patch.get_height()) for patch in ax.patches] == [10.0, 4.0]
    assert [text.get_text() for text in ax.texts] == ["10\n100%", "4\n40%"]


@pytest.mark.parametrize(
    "between, message",
    [
        ((2, 2), "exclusion 1: steps must satisfy 1 ≤ from < to ≤ 2 (the funnel has 2 steps); got 2 and 2"),
        ((1, 3), "exclusion 1: steps must satisfy 1 ≤ from < to ≤ 2 (the funnel has 2 steps); got 1 and 3"),
    ],
)
def test_exclusions_outside_the_funnel_are_explained(client, fake, between, message):
    builder = FunnelBuilder(client, steps=["signup", "purchase"])
    row = builder.add_exclusion("$pageview")
    row.from_step.value, row.to_step.value = between
    assert builder.run() is None and builder.error == f"Check the builder: {message}"
    assert sent(fake, FUNNEL) == []
    row.remove.click()
    assert builder.request.exclusions is None


def test_conversion_over_time_draws_the_rates(client, fake):
    days = ["2026-01-01", "2026-01-02", "2026-01-03"]
    fake.routes[("POST", FUNNEL)] = (200, {"result": [{"days": days, "data": [50.0, 25.0, 0.0], "count": 3}]})
    builder = FunnelBuilder(client, steps=["signup", "purchase"])
    builder.viz.value = "trends"
    builder.run()
    assert sent(fake, FUNNEL)[0]["funnel_viz_type"] == "trends"
    assert builder.df["conversion_rate"].tolist() == [0.5, 0.25, 0.0]
    assert builder.figure.axes[0].get_lines()[0].get_ydata().tolist() == [0.5, 0.25, 0.0]


def test_time_to_convert_draws_the_histogram(client, fake):
    fake.routes[("POST", FUNNEL)] = (
        200,
        {"result": {"bins": [[0, 4], [3600, 1]], "average_conversion_time": 1800}},
    )
    builder = FunnelBuilder(client, steps=["signup", "purchase"], funnel_viz_type="time_to_convert")
    builder.run()
    ax = builder.figure.axes[0]
    assert [float(patch.get_height()) for patch in ax.patches] == [4.0, 1.0]
    assert ax.get_lines()[0].get_label() == "Average 30 min"


def test_breakdown_groups_the_bars(client, fake):
    rows = [
        [{"order": 0, "name": "signup", "count": 8, "breakdown_value": "pro"},
         {"order": 1, "name": "purchase", "count": 2, "breakdown_value": "pro"}],
        [{"order": 0, "name": "signup", "count": 5, "breakdown_value": "free"},
         {"order": 1, "name": "purchase", "count": 5, "breakdown_value": "free"}],
    ]  # fmt: skip
    fake.routes[("POST", FUNNEL)] = (200, {"result": rows})
    builder = FunnelBuilder(client, steps=["signup", "purchase"])
    builder.breakdown.type.value = "person"
    builder.breakdown.property.value = "plan"
    builder.run()
    ax = builder.figure.axes[0]
    assert [float(patch.get_height()) for patch in ax.patches] == [8.0, 2.0, 5.0, 5.0]
    assert [text.get_text() for text in ax.texts] == ["8\n100%", "2\n25%", "5\n100%", "5\n100%"]


def test_save_as_insight(client, fake):
    builder = FunnelBuilder(client, steps=["signup", "purchase"])
    assert builder.save("Checkout") == "a1B2c3D4"
    assert sent(fake, INSIGHTS)[0]["filters"] == builder.request.to_dict()
    assert sent(fake, INSIGHTS)[0]["filters"]["insight"] == "FUNNELS"


def test_a_new_exclusion_starts_empty_and_is_left_out_until_an_event_is_chosen(client):
    # a default exclusion ($pageview between steps 1 and 2) cut the demo funnel from 238 people to 5
    builder = FunnelBuilder(client, steps=["$pageview", "signup"])
    builder.add_exclusion_button.click()
    assert builder.exclusions[0].entity.value is None and builder.request.exclusions is None
    builder.exclusions[0].entity.value = "purchase"
    assert builder.request.exclusions == [
        {"id": "purchase", "type": "events", "funnel_from_step": 0, "funnel_to_step": 1}
    ]


def test_the_window_unit_is_sized_like_the_window_and_not_the_widest_control(client):
    builder = FunnelBuilder(client, steps=["signup", "purchase"])
    window, unit = builder.window.layout.width, builder.window_unit.layout.width
    assert window and unit, "ipywidgets' default 300px made the unit picker wider than the whole window field"
    assert int(unit.removesuffix("px")) <= int(window.removesuffix("px")) <= 200
    row = builder.add_exclusion()
    assert window == row.from_step.layout.width  # like the exclusions' step numbers
    assert builder.window.style.description_width == "initial"  # "Window" is not cut
