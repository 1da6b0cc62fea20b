"""Request objects serialize to exactly the body the server receives, and to PostHog's query nodes."""

from __future__ import annotations

import json

import pytest

from toolkit import (
    FunnelRequest,
    LifecycleRequest,
    PathsRequest,
    RetentionRequest,
    StickinessRequest,
    TrendRequest,
    action,
    event,
)


def test_trend_body_is_exact_json():
    request = TrendRequest(
        events=["$pageview", event("purchase", math="sum", math_property="amount", custom_name="Revenue")],
        date_from="-30d",
        interval="week",
        breakdown="$browser",
        breakdown_limit=5,
        compare=True,
        display="ActionsLineGraphCumulative",
        properties=[{"key": "plan", "value": ["pro"], "operator": "exact", "type": "person"}],
    )
    assert json.loads(request.to_json()) == {
        "insight": "TRENDS",
        "events": [
            {"id": "$pageview", "type": "events", "order": 0},
            {
                "id": "purchase",
                "type": "events",
                "math": "sum",
                "math_property": "amount",
                "custom_name": "Revenue",
                "order": 1,
            },
        ],
        "date_from": "-30d",
        "interval": "week",
        "properties": [{"key": "plan", "value": ["pro"], "operator": "exact", "type": "person"}],
        "breakdown": "$browser",
        "breakdown_limit": 5,
        "compare": True,
        "display": "ActionsLineGraphCumulative",
    }


def test_actions_go_to_the_actions_list_keeping_their_order():
    body = TrendRequest(events=[action(3), "$pageview", 4]).to_dict()
    assert body["actions"] == [{"id": 3, "type": "actions", "order": 0}, {"id": 4, "type": "actions", "order": 2}]
    assert body["events"] == [{"id": "$pageview", "type": "events", "order": 1}]


def test_all_events_series():
    request = TrendRequest(events=[event(None)])
    assert request.to_dict()["events"] == [{"id": None, "type": "events", "order": 0}]
    assert request.to_query()["series"] == [{"kind": "EventsNode", "event": None, "name": "All events"}]


def test_trends_query_node():
    request = TrendRequest(
        events=[event("$pageview", math="dau"), action(7, custom_name="Signed up")],
        date_from="-7d",
        date_to="-1d",
        interval="day",
        filter_test_accounts=True,
        breakdown="$browser",
        breakdown_type="event",
        compare=True,
        display="ActionsBar",
        formula="A/B",
    )
    assert request.to_query() == {
        "kind": "TrendsQuery",
        "series": [
            {"kind": "EventsNode", "event": "$pageview", "name": "$pageview", "math": "dau"},
            {"kind": "ActionsNode", "id": 7, "custom_name": "Signed up"},
        ],
        "dateRange": {"date_from": "-7d", "date_to": "-1d"},
        "interval": "day",
        "filterTestAccounts": True,
        "breakdownFilter": {"breakdown": "$browser", "breakdown_type": "event"},
        "compareFilter": {"compare": True},
        "trendsFilter": {"display": "ActionsBar", "formula": "A/B"},
    }


def test_funnel_body_sends_window_unit_both_ways():
    request = FunnelRequest(
        steps=["signup", event("purchase", properties=[{"key": "amount", "value": 10, "operator": "gt"}])],
        funnel_order_type="strict",
        funnel_window_interval=2,
        funnel_window_interval_unit="Hour",
        exclusions=[("cancel", 0, 1)],
        breakdown="$browser",
        breakdown_attribution_type="step",
        breakdown_attribution_value=1,
        date_from="-14d",
    )
    assert json.loads(request.to_json()) == {
        "insight": "FUNNELS",
        "events": [
            {"id": "signup", "type": "events", "order": 0},
            {
                "id": "purchase",
                "type": "events",
                "properties": [{"key": "amount", "value": 10, "operator": "gt"}],
                "order": 1,
            },
        ],
        "date_from": "-14d",
        "breakdown": "$browser",
        "breakdown_attribution_type": "step",
        "breakdown_attribution_value": 1,
        "funnel_order_type": "strict",
        "funnel_window_interval": 2,
        "funnel_window_interval_unit": "hour",
        "funnel_window_interval_type": "HOUR",
        "exclusions": [{"id": "cancel", "type": "events", "funnel_from_step": 0, "funnel_to_step": 1}],
    }


def test_funnels_query_node():
    request = FunnelRequest(
        steps=["signup", "purchase"],
        funnel_viz_type="time_to_convert",
        funnel_window_interval=7,
        funnel_window_interval_unit="day",
        funnel_from_step=0,
        funnel_to_step=1,
        bin_count=10,
        exclusions=[{"id": "cancel", "funnel_from_step": 0, "funnel_to_step": 1}],
        date_from="-30d",
    )
    assert request.to_query() == {
        "kind": "FunnelsQuery",
        "series": [
            {"kind": "EventsNode", "event": "signup", "name": "signup"},
            {"kind": "EventsNode", "event": "purchase", "name": "purchase"},
        ],
        "dateRange": {"date_from": "-30d"},
        "funnelsFilter": {
            "funnelVizType": "time_to_convert",
            "funnelWindowInterval": 7,
            "funnelWindowIntervalUnit": "day",
            "exclusions": [
                {"kind": "EventsNode", "event": "cancel", "name": "cancel", "funnelFromStep": 0, "funnelToStep": 1}
            ],
            "funnelFromStep": 0,
            "funnelToStep": 1,
            "binCount": 10,
        },
    }
    assert request.viz_type == "time_to_convert"


def test_retention_and_paths():
    retention = RetentionRequest("signup", returning_entity="$pageview", period="Week", total_intervals=4)
    assert retention.to_dict() == {
        "insight": "RETENTION",
        "target_entity": {"id": "signup", "type": "events"},
        "returning_entity": {"id": "$pageview", "type": "events"},
        "period": "Week",
        "total_intervals": 4,
    }
    assert retention.to_query() == {
        "kind": "RetentionQuery",
        "retentionFilter": {
            "targetEntity": {"id": "signup", "type": "events", "name": "signup"},
            "returningEntity": {"id": "$pageview", "type": "events", "name": "$pageview"},
            "period": "Week",
            "totalIntervals": 4,
        },
    }
    paths = PathsRequest(include_event_types=["$pageview"], step_limit=4, date_from="-7d")
    assert paths.to_dict() == {
        "insight": "PATHS",
        "include_event_types": ["$pageview"],
        "step_limit": 4,
        "date_from": "-7d",
    }
    assert paths.to_query() == {
        "kind": "PathsQuery",
        "pathsFilter": {"includeEventTypes": ["$pageview"], "stepLimit": 4},
        "dateRange": {"date_from": "-7d"},
    }


def test_extra_fields_pass_through():
    assert (
        TrendRequest(events=["a"], extra={"breakdown_normalize_url": True}).to_dict()["breakdown_normalize_url"] is True
    )


def test_saved_filters_round_trip_into_a_request():
    original = FunnelRequest(
        steps=["signup", action(4)],
        funnel_window_interval=3,
        funnel_window_interval_unit="day",
        date_from="-30d",
        extra={"layout": "horizontal"},
    )
    rebuilt = FunnelRequest.from_filters(json.loads(original.to_json()))
    assert rebuilt.to_dict() == original.to_dict()
    assert rebuilt.extra == {"layout": "horizontal"}
    trend = TrendRequest(events=[action(2), "$pageview"], breakdown="$browser", compare=True)
    assert TrendRequest.from_filters(trend.to_dict()).to_dict() == trend.to_dict()


def test_stickiness_body_names_the_kind_both_ways_and_carries_criteria_and_cumulative():
    request = StickinessRequest(
        events="signup",
        date_from="2026-01-05",
        date_to="2026-01-08",
        interval="week",
        criteria=("gte", 3),
        cumulative=True,
        breakdown="plan",
        compare=True,
    )
    assert json.loads(request.to_json()) == {
        "insight": "STICKINESS",
        "shown_as": "Stickiness",
        "events": [{"id": "signup", "type": "events", "order": 0}],
        "date_from": "2026-01-05",
        "date_to": "2026-01-08",
        "interval": "week",
        "stickiness_criteria": {"operator": "gte", "value": 3},
        "computed_as": "cumulative",
        "breakdown": "plan",
        "compare": True,
    }
    assert request.to_query() == {
        "kind": "StickinessQuery",
        "series": [{"kind": "EventsNode", "event": "signup", "name": "signup"}],
        "dateRange": {"date_from": "2026-01-05", "date_to": "2026-01-08"},
        "interval": "week",
        "breakdownFilter": {"breakdown": "plan"},
        "compareFilter": {"compare": True},
        "stickinessFilter": {"computedAs": "cumulative", "stickinessCriteria": {"operator": "gte", "value": 3}},
    }


def test_stickiness_criteria_as_a_dict_and_cumulative_false_is_sent_as_non_cumulative():
    body = StickinessRequest(events=[action(4)], criteria={"operator": "exact", "value": 1}, cumulative=False).to_dict()
    assert body["actions"] == [{"id": 4, "type": "actions", "order": 0}]
    assert (body["stickiness_criteria"], body["computed_as"]) == ({"operator": "exact", "value": 1}, "non_cumulative")
    with pytest.raises(TypeError, match="criteria must be"):
        StickinessRequest(events="a", criteria=3)


def test_a_stickiness_request_comes_back_from_its_saved_filters():
    request = StickinessRequest(events="signup", criteria=("lte", 2), cumulative=True, interval="week")
    again = StickinessRequest.from_filters(request.to_dict())
    assert again.to_dict() == request.to_dict()
    assert (again.criteria, again.cumulative, again.extra) == ({"operator": "lte", "value": 2}, True, {})


def test_lifecycle_body_and_node_follow_one_event():
    request = LifecycleRequest(event("signup", custom_name="Signups"), interval="week", date_from="2026-01-01")
    assert request.to_dict() == {
        "insight": "LIFECYCLE",
        "shown_as": "Lifecycle",
        "events": [{"id": "signup", "type": "events", "custom_name": "Signups", "order": 0}],
        "date_from": "2026-01-01",
        "interval": "week",
    }
    assert request.to_query() == {
        "kind": "LifecycleQuery",
        "series": [{"kind": "EventsNode", "event": "signup", "name": "signup", "custom_name": "Signups"}],
        "dateRange": {"date_from": "2026-01-01"},
        "interval": "week",
    }
    assert LifecycleRequest.from_filters(request.to_dict()).to_dict() == request.to_dict()


def test_lifecycle_reads_a_list_of_one_and_refuses_none_or_two():
    assert LifecycleRequest(["signup"]).event == "signup"
    assert LifecycleRequest(7).to_dict()["actions"] == [{"id": 7, "type": "actions", "order": 0}]
    with pytest.raises(ValueError, match="exactly one event or action; got 2"):
        LifecycleRequest(["signup", "purchase"])
    with pytest.raises(ValueError, match="got 0"):
        LifecycleRequest()
