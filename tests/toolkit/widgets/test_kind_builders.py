"""The retention, paths, stickiness and lifecycle builders on the fake project of `fake_project`: what their
controls send, copy as code, opening saved insights, and the test-account toggle."""

from __future__ import annotations

import pytest

import toolkit
from toolkit import LifecycleRequest, PathsRequest, RetentionRequest, StickinessRequest
from toolkit.widgets import LifecycleBuilder, PathsBuilder, RetentionBuilder, StickinessBuilder, TrendBuilder

from ..fakes import load
from .fake_project import INSIGHTS, PROJECT, sent

TREND = f"{PROJECT}insights/trend/"
RETENTION = f"{PROJECT}insights/retention/"
PATH = f"{PROJECT}insights/path/"


class Recorder:
    """Stands in for a client in evaluated code: keeps the request each call would send."""

    def __init__(self):
        self.calls = []

    def retention(self, **fields):
        self.calls.append(RetentionRequest(**fields))

    def paths(self, **fields):
        self.calls.append(PathsRequest(**fields))

    def stickiness(self, **fields):
        self.calls.append(StickinessRequest(**fields))

    def lifecycle(self, **fields):
        self.calls.append(LifecycleRequest(**fields))


def _round_trip(builder) -> None:
    recorder = Recorder()
    eval(builder.code(), {"client": recorder, "toolkit": toolkit})
    assert recorder.calls[0].to_dict() == builder.request.to_dict()


# retention ---------------------------------------------------------------------------------------------------


def test_the_retention_controls_make_the_request(client):
    builder = RetentionBuilder(client, "signup")
    builder.returning.dropdown.value = "purchase"
    builder.period.value = "Week"
    builder.total_intervals.value = 6
    builder.retention_type.value = "retention_first_time"
    builder.dates.date_to.value = "2026-01-31"
    builder.breakdown.type.value = "person"
    builder.breakdown.property.value = "plan"
    row = builder.filters.add_row()
    row.key.value, row.value.value = "$browser", "Chrome"
    assert builder.request.to_dict() == {
        "insight": "RETENTION",
        "breakdown": "plan",
        "breakdown_type": "person",
        "target_entity": {"id": "signup", "type": "events"},
        "returning_entity": {"id": "purchase", "type": "events"},
        "period": "Week",
        "total_intervals": 6,
        "retention_type": "retention_first_time",
        "date_to": "2026-01-31",
        "properties": [{"key": "$browser", "value": "Chrome", "operator": "exact", "type": "event"}],
    }
    _round_trip(builder)
    assert builder.code().startswith("client.retention(\n    target_entity={'id': 'signup'")


def test_retention_comes_back_with_the_target_unless_told_and_reads_no_start_date(client):
    builder = RetentionBuilder(client, "signup", date_from="-30d")
    request = builder.request
    assert request.returning_entity is None and request.date_from is None and request.date_to is None
    assert builder.returning.dropdown.label == "Same as the first event"  # a choice the page shows, not a blank
    builder.returning.dropdown.value = "purchase"
    builder.returning.dropdown.label = "Same as the first event"
    assert builder.request.returning_entity is None
    assert (request.period, request.total_intervals, request.retention_type) == ("Day", 11, "retention_recurring")
    builder.dates.date_to.value = "next tuesday"
    with pytest.raises(ValueError, match="date_to: 'next tuesday' is neither a date"):
        builder.request  # noqa: B018
    assert builder.run() is None and "date_to" in builder.error
    assert sent(builder.client.session, RETENTION) == []


# paths -------------------------------------------------------------------------------------------------------


def test_the_paths_controls_make_the_request(client):
    builder = PathsBuilder(client, include_event_types=["$pageview"], date_from="-30d")
    builder.event_types["custom_event"].value = True
    builder.start_point.value = " /pricing "
    builder.step_limit.value = 4
    builder.test_accounts.value = True
    assert builder.request.to_dict() == {
        "insight": "PATHS",
        "include_event_types": ["$pageview", "custom_event"],
        "start_point": "/pricing",
        "step_limit": 4,
        "date_from": "-30d",
        "filter_test_accounts": True,
    }
    _round_trip(builder)
    # nothing ticked: every event counts, as the API reads no list; the default steps are left to the API
    builder.event_types["$pageview"].value = builder.event_types["custom_event"].value = False
    builder.step_limit.value = 5
    assert builder.request.include_event_types is None and builder.request.step_limit is None


def test_a_fresh_paths_builder_opens_on_pageviews_and_shows_them(client, fake):
    fake.routes[("POST", PATH)] = (200, {"result": [{"source": "1_/", "target": "2_/pricing", "value": 4}]})
    builder = PathsBuilder(client)
    assert sent(fake, PATH) == [{"insight": "PATHS", "include_event_types": ["$pageview"], "date_from": "-7d"}]
    assert builder.error is None and builder.df["value"].tolist() == [4]
    assert [point.label for point in builder.people.points] == [
        "Step 1 /: reached · 4 sessions",
        "Step 2 /pricing: reached · 4 sessions",
        "Step 1 / → /pricing · 4 sessions",
    ]


# stickiness --------------------------------------------------------------------------------------------------


def test_the_stickiness_controls_make_the_request(client):
    builder = StickinessBuilder(client, events=["signup"], interval="week")
    builder.series.add("purchase")
    builder.criteria_operator.value = "exact"
    builder.criteria_value.value = 2
    builder.cumulative.value = True
    builder.compare.value = True
    builder.breakdown.type.value = "event"
    builder.breakdown.property.value = "$browser"
    assert builder.request.to_dict() == {
        "insight": "STICKINESS",
        "shown_as": "Stickiness",
        "events": [{"id": "signup", "type": "events", "order": 0}, {"id": "purchase", "type": "events", "order": 1}],
        "date_from": "-7d",
        "interval": "week",
        "stickiness_criteria": {"operator": "exact", "value": 2},
        "computed_as": "cumulative",
        "breakdown": "$browser",
        "breakdown_type": "event",
        "compare": True,
    }
    _round_trip(builder)
    builder.series.remove(builder.series.pickers[0])
    assert [item["id"] for item in builder.request.events] == ["purchase"]
    builder.series.remove(builder.series.pickers[0])
    with pytest.raises(ValueError, match="add at least one series"):
        builder.request  # noqa: B018


def test_any_event_is_the_default_criteria_and_is_left_to_the_api(client):
    builder = StickinessBuilder(client, events=[7])
    assert builder.request.criteria is None
    assert builder.request.events == [{"id": 7, "type": "actions"}]
    builder.criteria_value.value = 3
    assert builder.request.criteria == {"operator": "gte", "value": 3}


# lifecycle ---------------------------------------------------------------------------------------------------


def test_the_lifecycle_controls_make_the_request(client):
    builder = LifecycleBuilder(client, "signup", date_from="-30d")
    builder.event.dropdown.value = 7
    builder.interval.value = "week"
    assert builder.request.to_dict() == {
        "insight": "LIFECYCLE",
        "shown_as": "Lifecycle",
        "actions": [{"id": 7, "type": "actions", "order": 0}],
        "date_from": "-30d",
        "interval": "week",
    }
    _round_trip(builder)
    assert builder.code() == (
        "client.lifecycle(\n    event={'id': 7, 'type': 'actions'},\n    date_from='-30d',\n    interval='week',\n)"
    )


def test_a_fresh_lifecycle_builder_opens_on_pageviews_and_shows_the_error_it_got(client, fake):
    fake.routes[("POST", TREND)] = (
        400,
        {"type": "validation_error", "code": "unsupported", "detail": "Not here.", "attr": "shown_as"},
    )
    builder = LifecycleBuilder(client)
    assert sent(fake, TREND)[0]["events"] == [{"id": "$pageview", "type": "events", "order": 0}]
    assert builder.error == "The API refused the request: Not here. (field shown_as, 400 unsupported)"


# saved insights ----------------------------------------------------------------------------------------------

SAVED = {
    "RETENTION": (
        RetentionBuilder,
        {
            "insight": "RETENTION",
            "target_entity": {"id": "signup", "type": "events"},
            "returning_entity": {"id": "purchase", "type": "events"},
            "period": "Week",
            "total_intervals": 8,
        },
        lambda builder: (builder.target.dropdown.value, builder.returning.dropdown.value, builder.period.value),
        ("signup", "purchase", "Week"),
    ),
    "PATHS": (
        PathsBuilder,
        {"insight": "PATHS", "include_event_types": ["custom_event"], "start_point": "signup", "step_limit": 3},
        lambda builder: (
            builder.event_types["custom_event"].value,
            builder.start_point.value,
            builder.step_limit.value,
        ),
        (True, "signup", 3),
    ),
    "STICKINESS": (
        StickinessBuilder,
        {
            "insight": "STICKINESS",
            "shown_as": "Stickiness",
            "events": [{"id": "purchase", "type": "events", "order": 0}],
            "stickiness_criteria": {"operator": "lte", "value": 2},
            "interval": "week",
        },
        lambda builder: (
            [picker.dropdown.value for picker in builder.series.pickers],
            builder.criteria_operator.value,
            builder.criteria_value.value,
        ),
        (["purchase"], "lte", 2),
    ),
    "LIFECYCLE": (
        LifecycleBuilder,
        {"insight": "LIFECYCLE", "shown_as": "Lifecycle", "actions": [{"id": 7, "type": "actions", "order": 0}]},
        lambda builder: (builder.event.dropdown.value, builder.interval.value),
        (7, "day"),
    ),
}


@pytest.mark.parametrize("kind", list(SAVED))
def test_a_saved_insight_opens_in_its_builder_and_sends_what_was_saved(client, fake, kind):
    builder_class, filters, shown, expected = SAVED[kind]
    record = {**load("insight.json"), "filters": filters}
    fake.routes[("GET", f"{INSIGHTS}42/")] = (200, record)
    builder = builder_class.from_insight(client, 42)
    assert builder.name.value == "Weekly signups"
    assert shown(builder) == expected
    sent_body = builder.request.to_dict()
    for key, value in filters.items():
        if key not in ("events", "actions"):
            assert sent_body[key] == value, key
    with pytest.raises(ValueError, match=f"is a {kind} insight: open it with {builder_class.__name__}"):
        TrendBuilder.from_insight(client, 42)


def test_a_saved_trend_is_not_opened_as_a_retention(client, fake):
    fake.routes[("GET", f"{INSIGHTS}42/")] = (200, load("insight.json"))
    with pytest.raises(ValueError, match="is a TRENDS insight: open it with TrendBuilder"):
        RetentionBuilder.from_insight(client, 42)


def test_save_as_insight_sends_the_request_of_the_kind(client, fake):
    builder = RetentionBuilder(client, "signup", period="Week")
    builder.name.value = "Weekly retention"
    builder.save_button.click()
    assert builder.error is None and builder.short_id == "a1B2c3D4"
    body = sent(fake, INSIGHTS)[-1]
    assert body["name"] == "Weekly retention"
    assert body["filters"]["insight"] == "RETENTION" and body["filters"]["period"] == "Week"


# shared controls ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda client: RetentionBuilder(client, "signup"),
        lambda client: PathsBuilder(client, include_event_types=["custom_event"]),
        lambda client: StickinessBuilder(client, events=["signup"]),
        lambda client: LifecycleBuilder(client, "signup"),
    ],
    ids=["retention", "paths", "stickiness", "lifecycle"],
)
def test_every_builder_has_the_test_account_toggle_off_where_no_filters_are_defined(client, make):
    builder = make(client)
    assert builder.test_accounts.value is False and builder.request.filter_test_accounts is None
    builder.test_accounts.value = True
    assert builder.request.filter_test_accounts is True
    assert builder.test_accounts in builder.widget.children


def test_an_unseen_retention_event_is_named_before_anything_is_sent(client, fake):
    builder = RetentionBuilder(client, "signup", returning_entity="purchsae")
    assert builder.run() is None
    assert "never seen in this project: event 'purchsae'" in builder.error
    assert sent(fake, RETENTION) == []


def test_a_paths_funnel_given_to_the_builder_is_sent_and_copied_as_code(client):
    funnel = toolkit.FunnelRequest(steps=["signup", "purchase"], funnel_window_interval=7)
    builder = PathsBuilder(client, include_event_types=["custom_event"], funnel=funnel, funnel_step=2)
    # a funnel given without dates takes the builder's (the last 7 days)
    assert builder.request.to_dict()["funnel_filter"] == {**funnel.to_dict(), "date_from": "-7d"}
    assert builder.funnel.restriction.value == "after" and builder.funnel.step.value == 2
    assert "    funnel=toolkit.FunnelRequest(\n        steps=['signup', 'purchase'],\n" in builder.code()
    recorder = Recorder()
    eval(builder.code(), {"client": recorder, "toolkit": toolkit})
    assert recorder.calls[0].to_dict() == builder.request.to_dict()


# paths restricted by a funnel --------------------------------------------------------------------------------


def _restrict(builder, restriction: str, step: int, steps: list[str]) -> None:
    """Choose a restriction and a step (negative: who dropped off before it) and the funnel's steps."""
    builder.funnel.restriction.value = restriction
    for row in list(builder.funnel.steps):
        builder.funnel.remove_step(row)
    for name in steps:
        builder.funnel.add_step(name)
    builder.funnel.step.value = abs(step)
    builder.funnel.whose.value = 1 if step > 0 else -1


@pytest.mark.parametrize(
    ("restriction", "step", "steps", "sentence"),
    [
        ("after", 2, ["signup", "purchase"], "Paths from step 2 (purchase) on, of the people who reached step 2"),
        ("before", -2, ["signup", "purchase"], "Paths up to step 1 (signup) and a conversion window after it, of"),
        ("between", 3, ["$pageview", "signup", "purchase"], "Paths from step 2 (signup) to step 3 (purchase), of"),
        ("between", -3, ["$pageview", "signup", "purchase"], "of the people who dropped off before step 3"),
    ],
    ids=["after", "before-dropped", "between", "between-dropped"],
)
def test_the_funnel_controls_make_the_request_written_by_hand(client, restriction, step, steps, sentence):
    builder = PathsBuilder(client, include_event_types=["custom_event"], date_from="-30d")
    assert builder.funnel.step.layout.display == "none"  # no funnel: only the dropdown shows
    _restrict(builder, restriction, step, steps)
    builder.test_accounts.value = True
    by_hand = PathsRequest(
        include_event_types=["custom_event"],
        date_from="-30d",
        filter_test_accounts=True,
        funnel=toolkit.FunnelRequest(steps=steps, date_from="-30d", filter_test_accounts=True),
        funnel_step=step,
        funnel_paths=restriction,
    )
    assert builder.request.to_dict() == by_hand.to_dict()
    assert builder.funnel.step.layout.display is None and sentence in builder.funnel.note.value
    _round_trip(builder)
    builder.funnel.restriction.value = ""
    assert (builder.request.funnel, builder.request.funnel_step, builder.request.funnel_paths) == (None, None, None)
    assert "funnel" not in builder.code()


@pytest.mark.parametrize(
    ("restriction", "step", "steps", "message"),
    [
        ("after", 3, ["signup", "purchase"], "funnel step 3: the funnel has 2 steps; choose 1 to 2"),
        ("after", -1, ["signup", "purchase"], "funnel step 1: nobody drops off before step 1"),
        ("between", 1, ["signup", "purchase"], "funnel step 1: step 1 has no step before it"),
        ("between", -2, ["signup", "purchase"], "funnel step 2: who dropped off before step 2 stopped at step 1"),
        ("before", 1, ["signup"], "funnel: it needs at least two steps, it has 1"),
    ],
    ids=["beyond-the-last", "dropped-before-1", "between-from-0", "between-dropped-from-0", "one-step"],
)
def test_a_step_the_funnel_cannot_use_is_a_message_in_the_builder(client, fake, restriction, step, steps, message):
    builder = PathsBuilder(client, include_event_types=["custom_event"])
    _restrict(builder, restriction, step, steps)
    asked = len(sent(fake, PATH))  # the most common first steps, for the new funnel
    assert message in builder.funnel.note.value  # said as soon as it is chosen
    assert builder.run() is None
    assert builder.error.startswith("Check the builder: ") and message in builder.error
    assert len(sent(fake, PATH)) == asked
    builder.save_button.click()
    assert message in builder.error and sent(fake, INSIGHTS) == []
    builder.code_button.click()
    assert message in builder.code_box.value


def test_a_new_restriction_starts_on_the_project_s_most_common_first_steps(client, fake):
    fake.routes[("POST", PATH)] = (200, {"result": [{"source": "1_signup", "target": "2_purchase", "value": 3}]})
    builder = PathsBuilder(client, include_event_types=["custom_event"])
    assert builder.funnel.steps == []
    builder.funnel.restriction.value = "after"
    assert [row.entity.value for row in builder.funnel.steps] == ["signup", "purchase"]
    assert builder.request.funnel_step == 2
    assert builder.funnel.description == "Paths from step 2 (purchase) on, of the people who reached step 2 (purchase)."
    assert builder.funnel.description in builder.funnel.note.value


def test_an_unseen_funnel_step_is_named_before_anything_is_sent(client, fake):
    funnel = toolkit.FunnelRequest(steps=["signup", "purchsae"])
    builder = PathsBuilder(client, include_event_types=["custom_event"], funnel=funnel, funnel_step=2)
    assert builder.run() is None
    assert "never seen in this project: event 'purchsae'" in builder.error
    assert sent(fake, PATH) == []


def test_a_saved_paths_insight_with_a_funnel_reopens_with_the_controls_set(client, fake):
    funnel_filter = {
        "insight": "FUNNELS",
        "events": [{"id": "signup", "type": "events", "order": 0}, {"id": "purchase", "type": "events", "order": 1}],
        "funnel_window_interval": 3,
        "funnel_window_interval_unit": "day",
        "date_from": "-90d",
    }
    filters = {
        "insight": "PATHS",
        "include_event_types": ["custom_event"],
        "date_from": "-30d",
        "funnel_paths": "funnel_path_before_step",
        "funnel_filter": funnel_filter,
        "funnel_step": -2,
    }
    fake.routes[("GET", f"{INSIGHTS}42/")] = (200, {**load("insight.json"), "filters": filters})
    builder = PathsBuilder.from_insight(client, 42)
    shown = builder.funnel
    assert (shown.restriction.value, shown.step.value, shown.whose.value) == ("before", 2, -1)
    assert [row.entity.value for row in shown.steps] == ["signup", "purchase"]
    # the funnel's own dates and window, which no control shows, are kept
    resent = {**funnel_filter, "funnel_window_interval_type": "DAY"}
    assert builder.request.to_dict() == filters | {"funnel_filter": resent}
    assert builder.request.funnel.date_from == "-90d"
    builder.save_button.click()
    assert sent(fake, INSIGHTS)[-1]["filters"]["funnel_filter"]["events"] == funnel_filter["events"]
