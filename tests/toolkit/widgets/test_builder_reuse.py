"""Copy as code, opening a saved insight in a builder, and names the project never saw."""

from __future__ import annotations

import pytest

from toolkit import FunnelRequest, TrendRequest, event
from toolkit.widgets import FunnelBuilder, TrendBuilder

from ..fakes import load
from .fake_project import FUNNEL, INSIGHTS, TREND, sent


class Recorder:
    """Stands in for a client in evaluated code: keeps what ``trend``/``funnel`` were called with."""

    def __init__(self):
        self.calls = []

    def trend(self, **fields):
        self.calls.append(TrendRequest(**fields))

    def funnel(self, **fields):
        self.calls.append(FunnelRequest(**fields))


def test_copy_as_code_gives_a_call_that_sends_the_same_request(client):
    builder = TrendBuilder(client, events=[event("purchase", math="sum", math_property="amount")], interval="week")
    builder.breakdown.type.value = "event"
    builder.breakdown.property.value = "$browser"
    row = builder.filters.add_row()
    row.key.value, row.value.value = "$current_url", "/pricing"
    recorder = Recorder()
    eval(builder.code(), {"client": recorder})
    assert recorder.calls[0].to_dict() == builder.request.to_dict()
    assert builder.code().startswith("client.trend(\n    events=[{'id': 'purchase'")


def test_the_copy_as_code_button_shows_the_call_and_follows_the_controls(client):
    builder = FunnelBuilder(client, steps=["signup", "purchase"])
    assert builder.code_box.layout.display == "none"
    builder.code_button.click()
    assert builder.code_box.layout.display is None
    assert "client.funnel(" in builder.code_box.value and "mathjax_ignore" in builder.code_box.value
    builder.window.value = 3
    assert "funnel_window_interval=3," in builder.code_box.value
    builder.code_button.click()
    assert builder.code_box.layout.display == "none"


def test_a_saved_trend_opens_in_a_trend_builder(client, fake):
    fake.routes[("GET", INSIGHTS)] = (200, {"next": None, "results": [load("insight.json")]})
    fake.routes[("GET", f"{INSIGHTS}42/")] = (200, load("insight.json"))
    builder = TrendBuilder.from_insight(client, "a1B2c3D4")
    assert builder.name.value == "Weekly signups"
    assert builder.interval.value == "week"
    assert builder.request.to_dict() == {
        "insight": "TRENDS",
        "events": [{"id": "signup", "type": "events", "order": 0}],
        "date_from": "-7d",  # no dates saved: the builder's default range, PostHog's
        "interval": "week",
        "display": "ActionsLineGraph",
    }


def test_a_saved_funnel_opens_in_a_funnel_builder_and_not_in_a_trend_builder(client, fake):
    record = load("insight.json")
    record["filters"] = {
        "insight": "FUNNELS",
        "actions": [{"id": 7, "type": "actions", "order": 1}],
        "events": [{"id": "signup", "type": "events", "order": 0}],
        "funnel_window_interval": 3,
        "funnel_window_interval_type": "HOUR",
        "exclusions": [{"id": "$pageview", "type": "events", "funnel_from_step": 0, "funnel_to_step": 1}],
    }
    fake.routes[("GET", f"{INSIGHTS}42/")] = (200, record)
    builder = FunnelBuilder.from_insight(client, 42)
    assert [row.entity.value for row in builder.steps] == ["signup", 7]
    assert (builder.window.value, builder.window_unit.value) == (3, "hour")
    assert builder.request.exclusions == [
        {"id": "$pageview", "type": "events", "funnel_from_step": 0, "funnel_to_step": 1}
    ]
    with pytest.raises(ValueError, match="is a FUNNELS insight: open it with FunnelBuilder"):
        TrendBuilder.from_insight(client, 42)


def test_an_event_the_project_never_saw_is_a_warning_not_a_chart_of_zeros(client, fake):
    builder = TrendBuilder(client, events=["$pagevew"])
    assert builder.run() is None
    assert builder.error == (
        "Check the builder: never seen in this project: event '$pagevew'. "
        "Check the spelling (the result would be zeros)"
    )
    assert sent(fake, TREND) == []


def test_unseen_properties_in_breakdowns_and_filters_are_named(client, fake):
    builder = FunnelBuilder(client, steps=["signup", "purchase"], breakdown="$brwser")
    row = builder.filters.add_row()
    row.type.value, row.key.value, row.value.value = "person", "plann", "pro"
    assert builder.run() is None
    assert "never seen in this project: person property 'plann', event property '$brwser'." in builder.error
    assert sent(fake, FUNNEL) == []


def test_the_never_seen_warning_goes_when_its_filter_row_is_removed(client, fake):
    builder = TrendBuilder(client, events=["$pageview"])
    row = builder.filters.add_row()
    row.key.value, row.value.value = "$brwser", "Chrome"
    assert builder.run() is None and "never seen" in builder.message.value
    row.remove.click()
    assert builder.error is None and builder.message.value == ""
    assert sent(fake, TREND) == []


def test_the_never_seen_warning_follows_the_controls_until_every_name_is_fixed(client, fake):
    builder = FunnelBuilder(client, steps=["signup", "purchase"], breakdown="$brwser")
    row = builder.filters.add_row()
    row.type.value, row.key.value, row.value.value = "person", "plann", "pro"
    assert builder.run() is None
    row.key.value = "plan"  # fixed: only the breakdown is still unknown
    assert builder.error.endswith(
        "never seen in this project: event property '$brwser'. Check the spelling (the result would be zeros)"
    )
    assert "plann" not in builder.message.value
    builder.breakdown.property.value = "$browser"
    assert builder.error is None and builder.message.value == ""


def test_a_fixed_name_after_a_shown_result_leaves_the_stale_note(client, fake):
    fake.routes[("POST", TREND)] = (200, {"result": [], "timezone": "UTC"})
    builder = TrendBuilder(client, events=["$pageview"])
    builder.run()
    row = builder.filters.add_row()
    row.key.value, row.value.value = "$brwser", "Chrome"
    assert builder.run() is None and "never seen" in builder.error
    row.key.value = "$browser"
    assert builder.error is None and "Run to update it" in builder.message.value and builder.stale


def test_other_errors_stay_until_the_next_run(client, fake):
    fake.routes[("POST", TREND)] = (
        400,
        {"type": "validation_error", "code": "invalid_input", "detail": "Invalid formula.", "attr": "formula"},
    )
    builder = TrendBuilder(client, events=["$pageview"], formula="A +* 2")
    assert builder.run() is None
    builder.interval.value = "week"
    assert builder.error is not None and "Invalid formula." in builder.message.value
