"""Controls that follow the project and the chosen view: top values and Other, session and numeric property
pickers, the funnel's interval and readable exclusion labels."""

from __future__ import annotations

import pytest

from toolkit.widgets import FunnelBuilder, TrendBuilder

from .fake_project import FUNNEL, TREND, sent


def test_breakdown_top_values_are_sent_as_the_limit_and_hidden_without_a_breakdown(client, fake):
    fake.routes[("POST", TREND)] = (200, {"result": [], "timezone": "UTC"})
    builder = TrendBuilder(client, events=["signup"])
    assert builder.breakdown.limit.layout.display == "none"
    builder.breakdown.type.value = "event"
    builder.breakdown.property.value = "$browser"
    assert builder.breakdown.limit.layout.display is None and builder.breakdown.limit.value == 25
    assert "breakdown_limit" not in builder.request.to_dict()  # PostHog's default is left to the server
    builder.breakdown.limit.value = 3
    builder.run()
    assert (sent(fake, TREND)[0]["breakdown"], sent(fake, TREND)[0]["breakdown_limit"]) == ("$browser", 3)


def test_a_given_limit_is_shown_and_kept(client):
    builder = FunnelBuilder(client, steps=["signup", "purchase"], breakdown="$browser", breakdown_limit=5)
    assert builder.breakdown.limit.value == 5
    assert builder.request.breakdown_limit == 5


def test_session_breakdowns_offer_posthogs_session_duration_without_a_complaint(client):
    builder = TrendBuilder(client, events=["signup"])
    builder.breakdown.type.value = "session"
    assert builder.breakdown.property.options == ("$session_duration",)
    assert builder.message.value == ""


def test_session_properties_the_api_lists_are_offered(client, fake):
    fake.routes[("GET", "/api/projects/1/property_definitions/")] = lambda call: (
        200,
        {
            "next": None,
            "results": [{"id": "s", "name": "$entry_pathname", "is_numerical": False}]
            if call.params.get("type") == "session"
            else [],
        },
    )
    builder = TrendBuilder(client, events=["signup"])
    builder.breakdown.type.value = "session"
    assert builder.breakdown.property.options == ("$entry_pathname",)


def test_property_maths_take_only_numeric_properties(client, fake):
    builder = TrendBuilder(client, events=["purchase"])
    row = builder.series[0]
    row.math.value = "avg"
    row.math_property.value = "$browser"
    assert builder.run() is None
    assert builder.error == (
        "Check the builder: series 1: '$browser' is not a numeric property of this project; "
        "avg needs one (amount, $session_duration)"
    )
    assert sent(fake, TREND) == []
    row.math_property.value = "$session_duration"
    assert builder.request.events[0]["math_property"] == "$session_duration"


@pytest.mark.parametrize("viz, shown", [("steps", "none"), ("trends", None), ("time_to_convert", "none")])
def test_the_funnel_interval_shows_only_for_conversion_over_time(client, viz, shown):
    builder = FunnelBuilder(client, steps=["signup", "purchase"])
    builder.viz.value = viz
    assert builder.interval.layout.display == shown


def test_exclusion_step_labels_are_not_cut(client, fake):
    fake.routes[("POST", FUNNEL)] = (200, {"result": []})
    builder = FunnelBuilder(client, steps=["signup", "purchase"])
    row = builder.add_exclusion("$pageview")
    assert row.from_step.description == "between step" and row.to_step.description == "and step"
    # sized to the text: the default description width cuts "between step" to "between ..."
    assert row.from_step.style.description_width == "initial" == row.to_step.style.description_width


def test_filter_values_suggest_what_the_property_has_taken(client, fake):
    fake.routes[("GET", "/api/projects/1/events/values/")] = (200, [{"name": "Chrome"}, {"name": "Safari"}])
    builder = TrendBuilder(client, events=["signup"])
    row = builder.filters.add_row()
    row.key.value = "$brow"  # typing: not a known key, nothing asked
    assert row.value.options == ()
    row.key.value = "$browser"
    assert row.value.options == ("Chrome", "Safari")
    row.key.value = "amount"
    row.key.value = "$browser"
    asked = [call.params["key"] for call in fake.calls if call.path.endswith("events/values/")]
    assert asked == ["$browser", "amount"]  # once per key
    row.type.value = "person"
    assert row.value.options == ()
    row.type.value, row.key.value, row.value.value = "event", "$browser", "Safari"
    assert builder.request.properties == [{"key": "$browser", "value": "Safari", "operator": "exact", "type": "event"}]


def test_filter_values_without_the_endpoint_are_just_a_text_field(client):
    builder = TrendBuilder(client, events=["signup"])
    row = builder.filters.add_row()
    row.key.value = "$browser"
    assert row.value.options == () and builder.message.value == ""
