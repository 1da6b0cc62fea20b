"""A calculation naming an event, property or step the project never saw, or summing a property that is
never numeric, warns (`InsightWarning`) once per such name instead of answering silent zeros.

Through the local backend in the test process. The project saw ``signup`` (event properties ``plan`` text,
``$set`` person property ``email``) and ``purchase`` (``amount`` number, ``plan``).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import pandas as pd
import pytest

from toolkit import Client, FunnelRequest, InsightWarning, TrendRequest, action, event
from toolkit.unseen_names import Definitions, KnownNames, unseen_names

from .inprocess import in_process_app, in_process_client

RANGE = {"date_from": "2026-01-05", "date_to": "2026-01-07"}
EVENTS = pd.DataFrame(
    {
        "event": ["signup", "signup", "purchase"],
        "distinct_id": ["ann", "bob", "ann"],
        "timestamp": ["2026-01-05T10:00:00Z", "2026-01-06T10:00:00Z", "2026-01-06T11:00:00Z"],
        "plan": ["pro", "free", "pro"],
        "amount": [None, None, 49.5],
        "properties": [{"$set": {"email": "ann@example.com"}}, {}, {}],
    }
)


@pytest.fixture
def analyst(db_path, clock, world) -> Iterator[Client]:
    with in_process_app(db_path, clock) as app:
        client = in_process_client(app, world.key, world.project_id)
        client.load_events(EVENTS, progress=False)
        yield client


def _messages(record: pytest.WarningsRecorder) -> list[str]:
    return [str(item.message) for item in record if issubclass(item.category, InsightWarning)]


def test_an_unseen_event_is_named_and_its_zeros_still_come_back(analyst):
    with pytest.warns(InsightWarning) as record:
        frame = analyst.trend(events=["signup", "sign_up"], **RANGE)
    assert _messages(record) == [
        "event 'sign_up' was never seen in this project: its counts are zeros (check the spelling)"
    ]
    assert frame.loc[frame["series"] == "sign_up", "value"].sum() == 0


def test_known_names_and_a_numeric_sum_give_no_warning(analyst):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = analyst.trend(
            events=[event("purchase", math="sum", math_property="amount")],
            properties=[{"key": "plan", "value": "pro", "operator": "exact", "type": "event"}],
            breakdown="email",
            breakdown_type="person",
            **RANGE,
        )
    assert frame["value"].sum() == 49.5


def test_each_unseen_property_is_named_once(analyst):
    with pytest.warns(InsightWarning) as record:
        analyst.trend(
            events=["signup", event("signup", properties=[{"key": "plann", "value": "pro", "type": "event"}])],
            properties=[{"key": "plann", "value": "pro", "type": "event"}],
            breakdown="e-mail",
            breakdown_type="person",
            **RANGE,
        )
    assert _messages(record) == [
        "event property 'plann' was never seen in this project: no event matches it or has it (check the spelling)",
        "person property 'e-mail' was never seen in this project: no event matches it or has it (check the spelling)",
    ]


def test_a_sum_of_a_property_that_is_never_numeric_is_named(analyst):
    with pytest.warns(InsightWarning) as record:
        analyst.trend(events=[event("signup", math="sum", math_property="plan")], **RANGE)
    assert _messages(record) == ["event property 'plan' is never numeric in this project: sum of it reads no numbers"]


def test_unseen_funnel_steps_and_retention_events_are_named(analyst):
    with pytest.warns(InsightWarning) as record:
        analyst.funnel(steps=["signup", "purchased"], **RANGE)
        analyst.retention(target_entity="sign-up", returning_entity="purchase", **RANGE)
    assert _messages(record) == [
        "event 'purchased' was never seen in this project: its counts are zeros (check the spelling)",
        "event 'sign-up' was never seen in this project: its counts are zeros (check the spelling)",
    ]


def test_definitions_are_read_once_and_again_after_a_load(analyst):
    session = analyst.session
    session.paths.clear()
    analyst.trend(events=["signup"], **RANGE)
    analyst.funnel(steps=["signup", "purchase"], **RANGE)
    assert session.paths.count("/api/projects/1/event_definitions/") == 1
    # events loaded by this client are known at once: no warning about the new name
    analyst.load_events(EVENTS.assign(event="upgrade"), progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        analyst.trend(events=["upgrade"], **RANGE)
    assert session.paths.count("/api/projects/1/event_definitions/") == 2


def test_the_check_can_be_turned_off(db_path, clock, world):
    with in_process_app(db_path, clock) as app:
        client = in_process_client(app, world.key, world.project_id)
        client.load_events(EVENTS, progress=False)
        client.check_names = False
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            client.trend(events=["sign_up"], **RANGE)
    assert not any(path.endswith("_definitions/") for path in client.session.paths)


def test_without_definitions_nothing_is_guessed(client, fake):
    # a server without the definition endpoints (404 for every path not routed) answers the trend only
    fake.routes[("POST", "/api/projects/1/insights/trend/")] = (200, {"result": [], "timezone": "UTC"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        client.trend(events=["anything"], breakdown="whatever")


def test_names_in_nested_groups_lists_of_breakdowns_and_exclusions_are_checked():
    known = KnownNames(events={"signup", "purchase"}, properties={"event": {"plan": False}, "person": {"email": False}})
    body = FunnelRequest(
        steps=["signup", action(4), event(None), "purchase"],
        exclusions=[("cancel", 0, 1)],
        properties={"type": "AND", "values": [{"type": "OR", "values": [{"key": "country", "value": "FR"}]}]},
        breakdown=["plan", "$os"],
    ).to_dict()
    assert unseen_names(body, known) == [
        "event 'cancel' was never seen in this project: its counts are zeros (check the spelling)",
        "event property 'country' was never seen in this project: no event matches it or has it (check the spelling)",
        "event property '$os' was never seen in this project: no event matches it or has it (check the spelling)",
    ]


def test_what_is_not_known_is_not_warned_about():
    body = TrendRequest(
        events=[event("signup", math="avg", math_property="$session_duration"), event("x", math="dau")],
        properties=[{"key": "id", "value": 3, "type": "cohort"}, {"key": "$entry", "type": "session"}],
        breakdown="whatever",
    ).to_dict()
    assert unseen_names(body, KnownNames()) == []
    assert unseen_names(body, KnownNames(events={"signup", "x"}, properties={"event": None})) == []


def test_a_list_longer_than_one_page_or_empty_is_not_known():
    pages = {"/events": {"results": [{"name": "signup"}], "next": "/events?offset=1"}, "/props": {"results": []}}
    definitions = Definitions(lambda path, params: pages[path], events_path="/events", properties_path="/props")
    known = definitions.known({"events", "event"})
    assert (known.events, known.properties) == (None, {"event": None})


def test_definitions_are_asked_again_once_they_are_older_than_the_ttl():
    asked: list[str] = []

    def get(path, params):
        asked.append(path)
        return {"results": [{"name": "signup"}], "next": None}

    definitions = Definitions(get, events_path="/events", properties_path="/props", ttl=0.0)
    assert definitions.known({"events"}).events == {"signup"}
    definitions.known({"events"})
    assert asked == ["/events", "/events"]
