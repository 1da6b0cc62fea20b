"""TrendBuilder driven from code: set control values, click buttons, check the request sent, frame and plot."""

from __future__ import annotations

import ipywidgets as widgets
import matplotlib.pyplot as plt
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from toolkit import Client, TrendRequest, event
from toolkit.widgets import TrendBuilder

from ..fakes import FakeSession
from .fake_project import INSIGHTS, TREND, sent

DAYS = ["2026-01-01", "2026-01-02"]


def trend_answer(*series):
    return (200, {"result": list(series), "timezone": "UTC"})


def series(name, data, order=0, **extra):
    return {"action": {"id": name, "name": name, "order": order}, "label": name, "days": DAYS, "data": data, **extra}


def test_initial_values_round_trip_into_the_request():
    fields = {
        "events": [event("$pageview", math="dau"), 7, event("purchase", math="sum", math_property="amount")],
        "date_from": "-30d",
        "interval": "week",
        "breakdown": "$browser",
        "breakdown_type": "event",
        "properties": [{"key": "email", "value": ["a@x.com", "b@x.com"], "operator": "exact", "type": "person"}],
        "display": "ActionsBar",
        "compare": True,
        "formula": "A / B",
        "smoothing_intervals": 3,
    }
    # a session without the definition endpoints: the pickers show what was given
    client = Client(base_url="https://h.example", api_key="phx_x", project_id=1, session=FakeSession())
    builder = TrendBuilder(client, **fields)
    assert builder.request.to_dict() == TrendRequest(**fields).to_dict()
    assert builder.dates.preset.value == "Last 30 days"
    assert [row.entity.value for row in builder.series] == ["$pageview", 7, "purchase"]
    assert "event definitions" in builder.message.value  # why the pickers are short


def test_pickers_list_events_then_live_actions(client):
    builder = TrendBuilder(client, events=["signup"])
    assert builder.series[0].entity.options == (
        ("$pageview", "$pageview"),
        ("signup", "signup"),
        ("purchase", "purchase"),
        ("Signed up (action 7)", 7),
    )
    # only numeric properties: the event's, then the session's (none listed here: PostHog's built-in one)
    assert builder.series[0].math_property.options == ("amount", "$session_duration")
    assert builder.message.value == ""


def test_run_sends_the_controls_and_keeps_frame_and_figure(client, fake):
    answer = series("signup", [3, 5])
    answer["action"]["math"] = "dau"  # the API echoes each series' math in its action
    fake.routes[("POST", TREND)] = trend_answer(answer)
    builder = TrendBuilder(client, events=["$pageview"], date_from="-14d")
    builder.series[0].entity.value = "signup"
    builder.series[0].math.value = "dau"
    builder.interval.value = "week"
    figures = plt.get_fignums()
    builder.run_button.click()
    assert plt.get_fignums() == figures  # the builder shows its own figure; pyplot would show it twice
    assert sent(fake, TREND) == [
        {
            "insight": "TRENDS",
            "events": [{"id": "signup", "type": "events", "order": 0, "math": "dau"}],
            "date_from": "-14d",
            "interval": "week",
            "display": "ActionsLineGraph",
        }
    ]
    expected = pd.DataFrame(
        {
            "date": pd.to_datetime(DAYS).tz_localize("UTC").as_unit("ns"),
            "series": pd.array(["signup: unique users"] * 2, dtype="string"),
            "value": pd.array([3, 5], dtype="Int64"),
        }
    )
    assert_frame_equal(builder.df, expected)
    assert builder.figure.axes[0].get_lines()[0].get_ydata().tolist() == [3.0, 5.0]
    assert builder.figure.axes[0].get_title() == "signup: unique users"
    assert builder.error is None


def test_property_math_needs_a_property_and_nothing_is_sent_without_one(client, fake):
    fake.routes[("POST", TREND)] = trend_answer(series("purchase", [10, 20.5]))
    builder = TrendBuilder(client, events=["purchase"])
    builder.series[0].math.value = "sum"
    assert builder.series[0].math_property.layout.display is None  # the property box appears
    assert builder.run() is None
    assert builder.error == "Check the builder: series 1: sum needs a numeric property"
    assert "series 1: sum needs a numeric property" in builder.message.value
    assert sent(fake, TREND) == []
    builder.series[0].math_property.value = "amount"
    assert builder.run()["value"].tolist() == [10.0, 20.5]
    assert sent(fake, TREND)[0]["events"][0] == {
        "id": "purchase",
        "type": "events",
        "order": 0,
        "math": "sum",
        "math_property": "amount",
    }
    assert builder.error is None and builder.message.value == ""


def test_add_and_remove_series_with_the_buttons(client):
    builder = TrendBuilder(client, events=["signup"])
    builder.add_series_button.click()
    assert [row.entity.value for row in builder.series] == ["signup", "$pageview"]
    builder.series[1].entity.value = 7
    assert builder.request.events == [{"id": "signup", "type": "events"}, {"id": 7, "type": "actions"}]
    builder.series[0].remove.click()
    assert builder.request.events == [{"id": 7, "type": "actions"}]
    assert builder.series_box.children == (builder.series[0].box,)
    builder.series[0].remove.click()
    assert builder.run() is None and builder.error == "Check the builder: add at least one series"


def test_api_errors_are_a_message_not_a_traceback(client, fake):
    fake.routes[("POST", TREND)] = (
        400,
        {"type": "validation_error", "code": "invalid_input", "detail": "Unknown interval <b>.", "attr": "interval"},
    )
    builder = TrendBuilder(client, events=["signup"])
    assert builder.run() is None
    assert builder.error == "The API refused the request: Unknown interval <b>. (field interval, 400 invalid_input)"
    assert "Unknown interval &lt;b&gt;." in builder.message.value  # shown as text, not markup
    assert builder.df is None and builder.figure is None
    assert builder.run_button.disabled is False


def test_a_failed_run_keeps_the_previous_result(client, fake):
    fake.routes[("POST", TREND)] = [
        trend_answer(series("signup", [1, 2])),
        (500, {"type": "server_error", "code": "error", "detail": "boom", "attr": None}),
    ]
    builder = TrendBuilder(client, events=["signup"])
    first = builder.run()
    assert builder.run() is None
    assert builder.df is first and "boom" in builder.error


def test_breakdown_property_picker_follows_the_type(client, fake):
    fake.routes[("POST", TREND)] = trend_answer(
        series("signup", [1, 0], breakdown_value="pro"), series("signup", [2, 2], breakdown_value="free")
    )
    builder = TrendBuilder(client, events=["signup"])
    assert builder.breakdown.property.value == ""
    builder.breakdown.type.value = "person"
    assert builder.breakdown.property.options == ("email", "plan")
    assert builder.run() is None and builder.error.endswith(
        "breakdown: choose a property to break down by, or No breakdown"
    )
    builder.breakdown.property.value = "plan"
    builder.run()
    body = sent(fake, TREND)[-1]
    assert (body["breakdown"], body["breakdown_type"]) == ("plan", "person")
    lines = builder.figure.axes[0].get_lines()
    assert [line.get_label() for line in lines] == ["signup - pro", "signup - free"]
    assert [line.get_ydata().tolist() for line in lines] == [[1.0, 0.0], [2.0, 2.0]]
    builder.breakdown.type.value = ""
    assert builder.request.breakdown is None and builder.request.breakdown_type is None


def test_filter_rows_become_properties(client):
    builder = TrendBuilder(client, events=["signup"])
    builder.filters.add.click()
    row = builder.filters.rows[0]
    assert row.key.options == ("$browser", "amount", "$current_url")
    row.key.value = "$browser"
    row.value.value = "Chrome, Safari"
    builder.filters.add.click()
    second = builder.filters.rows[1]
    second.type.value = "person"
    assert second.key.options == ("email", "plan")
    second.key.value = "plan"
    second.operator.value = "is_set"
    assert second.value.disabled
    assert builder.request.properties == [
        {"key": "$browser", "value": ["Chrome", "Safari"], "operator": "exact", "type": "event"},
        {"key": "plan", "value": "is_set", "operator": "is_set", "type": "person"},
    ]
    row.remove.click()
    assert builder.request.properties == [{"key": "plan", "value": "is_set", "operator": "is_set", "type": "person"}]


@pytest.mark.parametrize(
    "key, operator, value, message",
    [
        ("", "exact", "x", "filter 1: choose a property"),
        ("amount", "gt", "ten", "filter 1: 'ten' is not a number, and gt compares numbers"),
        ("amount", "exact", "  ", "filter 1: give a value to compare with"),
        ("$current_url", "regex", "(", "filter 1: '(' is not a valid regular expression"),
    ],
)
def test_bad_filter_rows_are_explained(client, fake, key, operator, value, message):
    builder = TrendBuilder(client, events=["signup"])
    row = builder.filters.add_row()
    row.key.value, row.operator.value, row.value.value = key, operator, value
    assert builder.run() is None
    assert message in builder.error
    assert sent(fake, TREND) == []


def test_a_filter_group_is_kept_and_rows_are_anded_to_it(client):
    group = {"type": "OR", "values": [{"key": "plan", "value": "pro", "type": "person"}]}
    builder = TrendBuilder(client, events=["signup"], properties=group)
    assert builder.request.properties == group
    row = builder.filters.add_row()
    row.key.value, row.operator.value, row.value.value = "amount", "gte", "10"
    assert builder.request.properties == {
        "type": "AND",
        "values": [
            group,
            {"type": "AND", "values": [{"key": "amount", "value": 10, "operator": "gte", "type": "event"}]},
        ],
    }


@pytest.mark.parametrize(
    "preset, custom, expected",
    [
        ("Yesterday", None, ("-1dStart", "-1dEnd")),
        ("All time", None, ("all", None)),
        ("Custom", ("2026-01-01", "2026-01-07"), ("2026-01-01", "2026-01-07")),
        ("Custom", ("-21d", ""), ("-21d", None)),
    ],
)
def test_date_range_presets_and_custom_dates(client, preset, custom, expected):
    builder = TrendBuilder(client, events=["signup"])
    builder.dates.preset.value = preset
    if custom:
        builder.dates.date_from.value, builder.dates.date_to.value = custom
    assert (builder.request.date_from, builder.request.date_to) == expected
    assert builder.dates.custom.layout.display == (None if preset == "Custom" else "none")


@pytest.mark.parametrize(
    "date_from, date_to, message",
    [
        ("last week", "", "date_from: 'last week' is neither a date"),
        ("", "", "date_from: give a start date for a custom range"),
        ("2026-01-01", "2026-02-30", "date_to: '2026-02-30' is neither a date"),
    ],
)
def test_bad_custom_dates_are_explained(client, date_from, date_to, message):
    builder = TrendBuilder(client, events=["signup"])
    builder.dates.preset.value = "Custom"
    builder.dates.date_from.value, builder.dates.date_to.value = date_from, date_to
    assert builder.run() is None and message in builder.error


def test_an_absolute_initial_range_shows_as_custom(client):
    builder = TrendBuilder(client, events=["signup"], date_from="2026-01-01", date_to="2026-01-31")
    assert builder.dates.preset.value == "Custom"
    assert (builder.dates.date_from.value, builder.dates.date_to.value) == ("2026-01-01", "2026-01-31")


def test_number_display_plots_the_aggregated_value(client, fake):
    answer = {"action": {"id": "signup", "name": "signup", "order": 0}, "label": "signup", "aggregated_value": 42}
    fake.routes[("POST", TREND)] = trend_answer(answer)
    builder = TrendBuilder(client, events=["signup"])
    builder.display.value = "BoldNumber"
    builder.compare.value = True
    builder.formula.value = " "
    builder.run()
    body = sent(fake, TREND)[0]
    assert (body["display"], body["compare"], "formula" in body) == ("BoldNumber", True, False)
    ax = builder.figure.axes[0]
    # the title names the series; the number is not followed by the same name again
    assert (ax.get_title(), [text.get_text() for text in ax.texts]) == ("signup", ["42"])


def test_save_as_insight_shows_the_short_id(client, fake):
    builder = TrendBuilder(client, events=["signup"], interval="week", date_from="-7d")
    builder.name.value = "  Weekly signups "
    builder.save_button.click()
    assert sent(fake, INSIGHTS) == [{"name": "Weekly signups", "filters": builder.request.to_dict(), "saved": True}]
    assert builder.short_id == "a1B2c3D4"
    assert "a1B2c3D4" in builder.saved.value


def test_save_errors_are_a_message(client, fake):
    fake.routes[("POST", INSIGHTS)] = (
        403,
        {
            "type": "authentication_error",
            "code": "permission_denied",
            "detail": "API key missing required scope 'insight:write'",
            "attr": None,
        },
    )
    builder = TrendBuilder(client, events=["signup"])
    assert builder.save("x") is None
    assert builder.error == (
        "The API refused the request: API key missing required scope 'insight:write' (403 permission_denied)"
    )
    assert builder.short_id is None


def test_the_builder_is_one_displayable_widget(client):
    builder = TrendBuilder(client, events=["signup"])
    assert isinstance(builder.widget, widgets.VBox)
    assert builder.widget is builder.widget
    bundle = builder._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"] == "<TrendBuilder: signup>"  # short and stable for stored notebook outputs
    builder.series[0].math.value = "avg"
    assert repr(builder) == "<TrendBuilder: incomplete: series 1: avg needs a numeric property>"
    assert any(builder.run_button in getattr(child, "children", ()) for child in builder.widget.children)


def test_the_catalog_is_fetched_once_per_builder(client, fake):
    builder = TrendBuilder(client, events=["signup"])
    for _ in range(3):
        builder.filters.add_row()
        builder.add_series()
    builder.breakdown.type.value = "event"
    paths = [call.path.rsplit("/", 2)[-2] for call in fake.calls]
    # the project (its test-account filters), property definitions: event ones, and session ones for the
    # property maths
    assert sorted(paths) == ["1", "actions", "event_definitions", "property_definitions", "property_definitions"]
    assert fake.calls[0].params["limit"] == "100"  # pages of 100, up to the picker limit


def test_a_malformed_answer_on_click_is_a_message_and_raises_from_code(client, fake):
    fake.routes[("POST", TREND)] = trend_answer({"action": {"id": "signup", "name": "signup", "order": 0}})
    builder = TrendBuilder(client, events=["signup"])
    builder.run_button.click()
    assert builder.error == "Unexpected error, please report it: KeyError: 'days'"
    assert builder.run_button.disabled is False
    with pytest.raises(KeyError):
        builder.run()


def test_a_successful_save_clears_the_previous_error(client, fake):
    fake.routes[("POST", INSIGHTS)] = [(500, {"detail": "busy"}), (201, fake.routes[("POST", INSIGHTS)][1])]
    builder = TrendBuilder(client, events=["signup"])
    assert builder.save("x") is None and "busy" in builder.message.value
    assert builder.save("x") == "a1B2c3D4"
    assert builder.error is None and builder.message.value == ""


def test_an_unnamed_action_is_offered_by_its_id(client, fake):
    fake.routes[("GET", "/api/projects/1/actions/")] = (200, {"next": None, "results": [{"id": 9, "name": None}]})
    builder = TrendBuilder(client, events=["signup"])
    assert builder.series[0].entity.options[-1] == ("Action 9", 9)
