"""Fields that change a calculation's answer and are not calculated here are a 400 naming them, on every way in:
the legacy calculation routes (GET and POST), ``/query/`` nodes and saved insights. Fields that only change
how a result is drawn are accepted and leave the numbers as they are.

Hand-worked events (13-15 January 2026, days in UTC):
u1 views on the 13th (Chrome) and signs up five minutes later; u2 views on the 13th and the 14th (Firefox);
u3 views on the 15th (Chrome).
Trend of $pageview by day over the 13th-15th: [2, 1, 1]. Funnel $pageview -> signup: [3, 1].
Daily retention of $pageview, 3 intervals to the 15th: 13th = {u1, u2}, u2 back on the 14th -> [2, 1, 0];
14th = {u2} -> [1, 0]; 15th = {u3} -> [1].
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from local_backend.queries.unsupported_fields import UNSUPPORTED_FIELDS
from tests.factories import add_events

TREND = "/api/projects/{pid}/insights/trend/"
FUNNEL = "/api/projects/{pid}/insights/funnel/"
RETENTION = "/api/projects/{pid}/insights/retention/"
PATH = "/api/projects/{pid}/insights/path/"
QUERY = "/api/projects/{pid}/query/"
INSIGHTS = "/api/projects/{pid}/insights/"

DATES = {"date_from": "2026-01-13", "date_to": "2026-01-15"}
BASE = {
    TREND: {"events": [{"id": "$pageview"}], **DATES},
    FUNNEL: {"events": [{"id": "$pageview", "order": 0}, {"id": "signup", "order": 1}], **DATES},
    RETENTION: {
        "target_entity": {"id": "$pageview", "type": "events"},
        "period": "Day",
        "total_intervals": 3,
        "date_to": "2026-01-15",
    },
    PATH: {**DATES},
}
TREND_DATA = [2, 1, 1]
FUNNEL_COUNTS = [3, 1]
RETENTION_COUNTS = [[2, 1, 0], [1, 0], [1]]
BY_BROWSER = {"breakdown": "$browser", "breakdown_type": "event"}
BREAKDOWNS = [{"property": "$browser", "type": "event"}]


@pytest.fixture
def views(conn, world):
    add_events(
        conn,
        world.project_id,
        [
            ("$pageview", "u1", "2026-01-13T09:00:00Z", {"$browser": "Chrome", "$current_url": "https://x.io/a/"}),
            ("signup", "u1", "2026-01-13T09:05:00Z"),
            ("$pageview", "u2", "2026-01-13T10:00:00Z", {"$browser": "Firefox", "$current_url": "https://x.io/a"}),
            ("$pageview", "u2", "2026-01-14T10:00:00Z", {"$browser": "Firefox", "$current_url": "https://x.io/a"}),
            ("$pageview", "u3", "2026-01-15T08:00:00Z", {"$browser": "Chrome", "$current_url": "https://x.io/b"}),
        ],
    )


def _get(path: str, body: dict[str, Any]) -> str:
    query = {key: value if isinstance(value, str) else json.dumps(value) for key, value in body.items()}
    return f"{path}?{urlencode(query)}"


def call(client, world, method: str, path: str, body: dict[str, Any]):
    path = path.format(pid=world.project_id)
    if method == "GET":
        return client.get(_get(path, body), headers=world.headers())
    return client.post(path, json=body, headers=world.headers())


def refusal(response) -> tuple[int, str, str | None]:
    body = response.json()
    return response.status_code, body.get("code"), body.get("attr")


LEGACY_REFUSALS = [
    # (method, path, extra fields, expected attr)
    ("POST", TREND, {"shown_as": "Stickiness", "formula": "A"}, "formula"),
    ("GET", TREND, {"shown_as": "Lifecycle", "breakdown": "$browser"}, "breakdown"),
    ("POST", TREND, {"insight": "STICKINESS", "interval_count": 2}, "interval_count"),
    ("GET", TREND, {"insight": "lifecycle", "compare": "true"}, "compare"),
    ("POST", TREND, {"smoothing_intervals": 7}, "smoothing_intervals"),
    ("GET", TREND, {"smoothing_intervals": "3"}, "smoothing_intervals"),
    ("POST", TREND, {"formulas": ["A", "A * 2"]}, "formulas"),
    ("POST", TREND, {**BY_BROWSER, "breakdown_histogram_bin_count": 10}, "breakdown_histogram_bin_count"),
    ("POST", TREND, {**BY_BROWSER, "breakdown_hide_other_aggregation": True}, "breakdown_hide_other_aggregation"),
    ("GET", TREND, {**BY_BROWSER, "breakdown_normalize_url": "true"}, "breakdown_normalize_url"),
    ("POST", TREND, {"breakdowns": BREAKDOWNS}, "breakdowns"),
    ("GET", TREND, {"breakdowns": BREAKDOWNS}, "breakdowns"),
    ("POST", TREND, {"sampling_factor": 0.1}, "sampling_factor"),
    ("POST", FUNNEL, {"funnel_aggregate_by_hogql": "properties.$session_id"}, "funnel_aggregate_by_hogql"),
    ("POST", FUNNEL, {**BY_BROWSER, "breakdown_normalize_url": True}, "breakdown_normalize_url"),
    ("GET", FUNNEL, {"breakdowns": BREAKDOWNS}, "breakdowns"),
    ("POST", FUNNEL, {"sampling_factor": "0.5"}, "sampling_factor"),
    ("POST", RETENTION, {"aggregation_group_type_index": 0}, "aggregation_group_type_index"),
    ("POST", RETENTION, {**BY_BROWSER, "breakdown_normalize_url": True}, "breakdown_normalize_url"),
    ("POST", RETENTION, {"cumulative": True}, "cumulative"),
    ("GET", RETENTION, {"cumulative": "true"}, "cumulative"),
    ("POST", RETENTION, {"minimum_occurrences": 2}, "minimum_occurrences"),
    ("POST", RETENTION, {"time_window_mode": "24_hour_windows"}, "time_window_mode"),
    ("POST", RETENTION, {"aggregation_type": "sum"}, "aggregation_type"),
    ("POST", RETENTION, {"aggregation_property": "amount"}, "aggregation_property"),
    ("POST", RETENTION, {"sampling_factor": 0.1}, "sampling_factor"),
    ("POST", PATH, {"sampling_factor": 0.1}, "sampling_factor"),
    ("POST", PATH, {"local_path_cleaning_filters": [{"alias": "/x", "regex": "/x/.*"}]}, "local_path_cleaning_filters"),
]


@pytest.mark.parametrize("method, path, extra, attr", LEGACY_REFUSALS)
def test_legacy_calculations_refuse_fields_they_do_not_calculate(client, world, views, method, path, extra, attr):
    response = call(client, world, method, path, {**BASE[path], **extra})
    assert refusal(response) == (400, "unsupported", attr), response.text
    body = response.json()
    assert body["type"] == "validation_error" and "not supported yet" in body["detail"]


def test_the_funnel_correlation_route_refuses_them_too(client, world, views):
    path = "/api/projects/{pid}/insights/funnel/correlation/"
    response = call(client, world, "POST", path, {**BASE[FUNNEL], "funnel_aggregate_by_hogql": "properties.$sid"})
    assert refusal(response) == (400, "unsupported", "funnel_aggregate_by_hogql")


PEOPLE_REFUSALS = [
    # (people route, extra fields, expected attr): a people list answers for the calculation its filter names
    ("/api/projects/{pid}/persons/funnel/", {"funnel_step": 1, "sampling_factor": 0.1}, "sampling_factor"),
    (
        "/api/projects/{pid}/persons/funnel/",
        {"funnel_step": 2, "funnel_aggregate_by_hogql": "properties.$sid"},
        "funnel_aggregate_by_hogql",
    ),
    ("/api/projects/{pid}/persons/funnel/", {"funnel_step": 2, "funnel_viz_type": "trends"}, "funnel_viz_type"),
    (
        "/api/projects/{pid}/persons/funnel/correlation/",
        {"funnel_correlation_value": "signup", "breakdowns": BREAKDOWNS},
        "breakdowns",
    ),
    ("/api/projects/{pid}/persons/retention/", {"selected_interval": 0, "cumulative": True}, "cumulative"),
]


@pytest.mark.parametrize("path, extra, attr", PEOPLE_REFUSALS)
def test_people_lists_refuse_the_fields_their_calculation_refuses(client, world, views, path, extra, attr):
    kind = FUNNEL if "funnel" in path else RETENTION
    response = call(client, world, "GET", path, {**BASE[kind], **extra})
    assert refusal(response) == (400, "unsupported", attr), response.text


def test_the_people_of_a_plain_funnel_step_are_still_listed(client, world, views):
    response = call(client, world, "GET", "/api/projects/{pid}/persons/funnel/", {**BASE[FUNNEL], "funnel_step": 2})
    assert response.status_code == 200, response.text
    assert [person["distinct_ids"] for person in response.json()["results"][0]["people"]] == [["u1"]]


def test_credentials_are_checked_before_the_fields(client, world):
    path = TREND.format(pid=world.project_id)
    response = client.post(path, json={**BASE[TREND], "shown_as": "Stickiness"})
    assert response.status_code == 403 and response.json()["code"] == "not_authenticated"


TRENDS_QUERY = {"kind": "TrendsQuery", "series": [{"kind": "EventsNode", "event": "$pageview"}], "dateRange": DATES}
FUNNELS_QUERY = {
    "kind": "FunnelsQuery",
    "dateRange": DATES,
    "series": [{"kind": "EventsNode", "event": "$pageview"}, {"kind": "EventsNode", "event": "signup"}],
}
RETENTION_QUERY = {
    "kind": "RetentionQuery",
    "dateRange": {"date_to": "2026-01-15"},
    "retentionFilter": {"period": "Day", "totalIntervals": 3, "targetEntity": {"id": "$pageview", "type": "events"}},
}
PATHS_QUERY = {"kind": "PathsQuery", "dateRange": DATES, "pathsFilter": {}}
BROWSER_FILTER = {"breakdown": "$browser", "breakdown_type": "event"}


def _with(node: dict[str, Any], block: str | None, fields: dict[str, Any]) -> dict[str, Any]:
    if block is None:
        return {**node, **fields}
    return {**node, block: {**node.get(block, {}), **fields}}


QUERY_REFUSALS = [
    # (query node, expected attr)
    (_with(TRENDS_QUERY, "trendsFilter", {"smoothingIntervals": 7}), "smoothing_intervals"),
    (_with(TRENDS_QUERY, "trendsFilter", {"formulaNodes": [{"formula": "A"}, {"formula": "A * 2"}]}), "formulas"),
    (_with(TRENDS_QUERY, "trendsFilter", {"formulas": ["A", "A * 2"]}), "formulas"),
    (
        _with(TRENDS_QUERY, "breakdownFilter", {**BROWSER_FILTER, "breakdown_histogram_bin_count": 5}),
        "breakdown_histogram_bin_count",
    ),
    (
        _with(TRENDS_QUERY, "breakdownFilter", {**BROWSER_FILTER, "breakdown_hide_other_aggregation": True}),
        "breakdown_hide_other_aggregation",
    ),
    (
        _with(TRENDS_QUERY, "breakdownFilter", {**BROWSER_FILTER, "breakdown_normalize_url": True}),
        "breakdown_normalize_url",
    ),
    (_with(TRENDS_QUERY, "breakdownFilter", {"breakdowns": BREAKDOWNS}), "breakdowns"),
    (_with(TRENDS_QUERY, None, {"samplingFactor": 0.1}), "sampling_factor"),
    (
        {"kind": "InsightVizNode", "source": _with(TRENDS_QUERY, "trendsFilter", {"smoothingIntervals": 2})},
        "smoothing_intervals",
    ),
    (
        _with(FUNNELS_QUERY, "funnelsFilter", {"funnelAggregateByHogQL": "properties.$session_id"}),
        "funnel_aggregate_by_hogql",
    ),
    (_with(FUNNELS_QUERY, "breakdownFilter", {"breakdowns": BREAKDOWNS}), "breakdowns"),
    (
        _with(FUNNELS_QUERY, "breakdownFilter", {**BROWSER_FILTER, "breakdown_normalize_url": True}),
        "breakdown_normalize_url",
    ),
    (_with(FUNNELS_QUERY, None, {"samplingFactor": 0.5}), "sampling_factor"),
    (_with(RETENTION_QUERY, "retentionFilter", {"cumulative": True}), "cumulative"),
    (_with(RETENTION_QUERY, "retentionFilter", {"minimumOccurrences": 3}), "minimum_occurrences"),
    (_with(RETENTION_QUERY, "retentionFilter", {"timeWindowMode": "24_hour_windows"}), "time_window_mode"),
    (_with(RETENTION_QUERY, "retentionFilter", {"aggregationType": "sum"}), "aggregation_type"),
    (_with(RETENTION_QUERY, "retentionFilter", {"aggregationProperty": "amount"}), "aggregation_property"),
    (
        _with(RETENTION_QUERY, "breakdownFilter", {**BROWSER_FILTER, "breakdown_histogram_bin_count": 5}),
        "breakdown_histogram_bin_count",
    ),
    (_with(RETENTION_QUERY, None, {"aggregation_group_type_index": 0}), "aggregation_group_type_index"),
    (_with(RETENTION_QUERY, None, {"samplingFactor": 0.1}), "sampling_factor"),
    (_with(PATHS_QUERY, None, {"samplingFactor": 0.1}), "sampling_factor"),
    (
        _with(PATHS_QUERY, "pathsFilter", {"localPathCleaningFilters": [{"alias": "/x", "regex": "/x/.*"}]}),
        "local_path_cleaning_filters",
    ),
]


@pytest.mark.parametrize("query, attr", QUERY_REFUSALS)
def test_query_nodes_refuse_fields_they_do_not_calculate(client, world, views, query, attr):
    response = client.post(QUERY.format(pid=world.project_id), json={"query": query}, headers=world.headers())
    assert refusal(response) == (400, "unsupported", attr), response.text


def test_retention_query_breakdowns_reach_the_retention_filter_which_refuses_several(client, world, views):
    query = _with(RETENTION_QUERY, "breakdownFilter", {"breakdowns": [*BREAKDOWNS, {"property": "plan"}]})
    response = client.post(QUERY.format(pid=world.project_id), json={"query": query}, headers=world.headers())
    assert (response.status_code, response.json()["attr"]) == (400, "breakdowns")


def test_a_saved_insight_keeps_such_a_filter_and_refuses_to_calculate_it(client, world, views):
    base = INSIGHTS.format(pid=world.project_id)
    filters = {"insight": "TRENDS", **BASE[TREND], "sampling_factor": 0.1}
    created = client.post(base, json={"name": "Sampled", "filters": filters}, headers=world.headers())
    assert created.status_code == 201 and created.json()["filters"]["sampling_factor"] == 0.1
    query = {"kind": "InsightVizNode", "source": _with(TRENDS_QUERY, "trendsFilter", {"smoothingIntervals": 7})}
    smoothed = client.post(base, json={"name": "Smooth", "query": query}, headers=world.headers()).json()

    retrieved = client.get(f"{base}{created.json()['id']}/?refresh=blocking", headers=world.headers())
    assert refusal(retrieved) == (400, "unsupported", "sampling_factor")
    retrieved = client.get(f"{base}{smoothed['id']}/?refresh=blocking", headers=world.headers())
    assert refusal(retrieved) == (400, "unsupported", "smoothing_intervals")
    listed = client.get(base + "?refresh=blocking", headers=world.headers())
    assert listed.status_code == 200
    assert [row["result"] for row in listed.json()["results"]] == [None, None]


def trend_data(response) -> list[list[float]]:
    assert response.status_code == 200, response.text
    body = response.json()
    return [series["data"] for series in body.get("result", body.get("results"))]


DISPLAY_ONLY_TREND = [
    {"show_legend": True, "hidden_legend_keys": {"0": True}, "show_values_on_series": True},
    {"aggregation_axis_format": "percentage", "y_axis_scale_type": "log10", "decimal_places": 2},
    {"show_percent_stack_view": True, "show_labels_on_series": True, "display": "ActionsBar"},
    # neutral values of the refused fields ask for the plain answer
    {"shown_as": "Volume", "smoothing_intervals": 1, "sampling_factor": 1, "insight": "TRENDS"},
    {"breakdown_normalize_url": False, "breakdown_hide_other_aggregation": False, "breakdowns": []},
]


@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("extra", DISPLAY_ONLY_TREND)
def test_trend_fields_that_only_change_the_drawing_keep_the_numbers(client, world, views, method, extra):
    assert trend_data(call(client, world, method, TREND, {**BASE[TREND], **extra})) == [TREND_DATA]


def test_trend_query_drawing_fields_keep_the_numbers_and_one_formula_node_is_the_formula(client, world, views):
    drawing = {
        "showLegend": True,
        "showValuesOnSeries": True,
        "yAxisScaleType": "log10",
        "decimalPlaces": 1,
        "aggregationAxisFormat": "numeric",
        "smoothingIntervals": 1,
    }
    query = _with(TRENDS_QUERY, "trendsFilter", drawing)
    response = client.post(QUERY.format(pid=world.project_id), json={"query": query}, headers=world.headers())
    assert trend_data(response) == [TREND_DATA]
    doubled = _with(TRENDS_QUERY, "trendsFilter", {"formulaNodes": [{"formula": "A * 2"}]})
    response = client.post(QUERY.format(pid=world.project_id), json={"query": doubled}, headers=world.headers())
    assert trend_data(response) == [[4, 2, 2]]


@pytest.mark.parametrize(
    "extra",
    [
        {"funnel_step_reference": "previous", "layout": "horizontal", "hidden_legend_breakdowns": ["Chrome"]},
        {"funnel_aggregate_by_hogql": "person_id", "sampling_factor": None, "breakdown_normalize_url": "false"},
    ],
)
def test_funnel_fields_that_only_change_the_drawing_keep_the_numbers(client, world, views, extra):
    response = call(client, world, "POST", FUNNEL, {**BASE[FUNNEL], **extra})
    assert response.status_code == 200, response.text
    assert [step["count"] for step in response.json()["result"]] == FUNNEL_COUNTS


@pytest.mark.parametrize(
    "extra",
    [
        {"retention_reference": "previous", "show_mean": True, "display": "ActionsTable"},
        {"time_window_mode": "strict_calendar_dates", "minimum_occurrences": 1, "cumulative": False},
    ],
)
def test_retention_fields_that_only_change_the_drawing_keep_the_numbers(client, world, views, extra):
    response = call(client, world, "POST", RETENTION, {**BASE[RETENTION], **extra})
    assert response.status_code == 200, response.text
    counts = [[value["count"] for value in row["values"]] for row in response.json()["result"]]
    assert counts == RETENTION_COUNTS


def test_every_refused_field_is_listed_in_the_docs_for_its_kinds():
    text = (Path(__file__).parents[3] / "docs" / "insights.md").read_text()
    section = text.split("## Fields that change the answer", 1)[1].split("\n## ", 1)[0]
    rows = {match[0]: match[1] for match in re.findall(r"^\| `([a-z_]+)` \| ([A-Z, ]+) \|", section, re.M)}
    listed = {name: {kind.strip() for kind in kinds.split(",")} for name, kinds in rows.items()}
    assert listed == {field.name: set(field.kinds) for field in UNSUPPORTED_FIELDS}


@pytest.mark.parametrize(
    "funnel, attr",
    [
        ({**FUNNELS_QUERY, "samplingFactor": 0.1}, "sampling_factor"),
        ({**FUNNELS_QUERY, "funnelsFilter": {"funnelVizType": "trends"}}, "funnel_viz_type"),
    ],
)
def test_the_actors_of_a_funnel_refuse_what_the_funnel_refuses(client, world, views, funnel, attr):
    query = {"kind": "ActorsQuery", "source": {"kind": "FunnelsActorsQuery", "source": funnel, "funnelStep": 2}}
    response = client.post(QUERY.format(pid=world.project_id), json={"query": query}, headers=world.headers())
    assert refusal(response) == (400, "unsupported", attr), response.text
