"""Retention, paths, timing and retention people x {ok, no key, bad key, missing scope, other project, bad input}."""

from __future__ import annotations

import json

import pytest

from local_backend.routes.timing import MAX_TIMING_REPORT_BYTES
from local_backend.store.insight_timings import list_insight_timings

RETENTION = "/api/projects/{pid}/insights/retention/"
PATH = "/api/projects/{pid}/insights/path/"
TIMING = "/api/projects/{pid}/insights/timing/"
PEOPLE = "/api/projects/{pid}/persons/retention/"

# (name, method, path, body, ok status, a scope that is NOT enough, status and code without credentials)
ENDPOINTS = [
    ("retention get", "GET", RETENTION + "?period=Week", None, 200, "plugin:read", 403),
    ("retention post", "POST", RETENTION, {"period": "Week"}, 200, "plugin:read", 403),
    ("path get", "GET", PATH + "?step_limit=3", None, 200, "plugin:read", 403),
    ("path post", "POST", PATH, {"step_limit": 3}, 200, "plugin:read", 403),
    ("timing", "POST", TIMING, {"insight": "TRENDS", "ms": 120}, 200, "plugin:read", 403),
    ("retention people", "GET", PEOPLE + "?selected_interval=1", None, 200, "insight:read", 401),
]

AUTH_CASES = [
    # (case, key kind, code)
    ("ok", "all", None),
    ("no key", None, "not_authenticated"),
    ("bad key", "bad", "authentication_failed"),
    ("missing scope", "weak", "permission_denied"),
    ("key for another project", "other", "permission_denied"),
]


@pytest.mark.parametrize("name, method, path, body, ok, weak_scope, unauthenticated", ENDPOINTS)
@pytest.mark.parametrize("case, key_kind, code", AUTH_CASES)
def test_endpoint_access(
    client, world, name, method, path, body, ok, weak_scope, unauthenticated, case, key_kind, code
):
    keys = {
        "all": world.key,
        "bad": "phx_not_a_key",
        "weak": world.make_key(weak_scope),
        "other": world.make_key("*", projects=[world.other_project_id]),
    }
    headers = world.headers(keys[key_kind]) if key_kind else {}
    response = client.request(method, path.format(pid=world.project_id), json=body, headers=headers)
    if code is None:
        assert response.status_code == ok, response.text
        return
    expected = unauthenticated if key_kind in (None, "bad") else 403
    assert (response.status_code, response.json()["code"]) == (expected, code)


UNKNOWN_OPERATOR = {"key": "a", "operator": "near"}
BAD_INPUT = [
    # (method, path, body, status, code, attr)
    ("GET", RETENTION + "?period=Fortnight", None, 400, "invalid_input", "period"),
    ("POST", RETENTION, {"total_intervals": -1}, 400, "invalid_input", "total_intervals"),
    ("POST", RETENTION, {"total_intervals": 0}, 400, "invalid_input", "total_intervals"),
    ("POST", RETENTION, {"total_intervals": 500}, 400, "invalid_input", "total_intervals"),
    ("GET", RETENTION + "?total_intervals=many", None, 400, "invalid_input", "total_intervals"),
    ("POST", RETENTION, {"retention_type": "retention_sometimes"}, 400, "invalid_input", "retention_type"),
    ("GET", RETENTION + "?target_entity=%7Bnot%20json", None, 400, "invalid_input", "target_entity"),
    ("POST", RETENTION, {"target_entity": {"id": "x", "type": "cohorts"}}, 400, "invalid_input", "target_entity__type"),
    ("POST", RETENTION, {"target_entity": {"id": "first", "type": "actions"}}, 400, "invalid_input", "target_entity"),
    ("POST", RETENTION, {"target_entity": {"id": 999, "type": "actions"}}, 400, "does_not_exist", "target_entity__id"),
    ("POST", RETENTION, {"date_to": "next tuesday"}, 400, "invalid_input", "date_to"),
    ("POST", RETENTION, {"breakdowns": [{"property": "$browser"}, {"property": "$os"}]}, 400, "invalid_input",
     "breakdowns"),
    ("POST", RETENTION, {"properties": [{"value": "x"}]}, 400, "invalid_input", "properties__0__key"),
    ("POST", RETENTION, {"properties": [UNKNOWN_OPERATOR]}, 400, "invalid_input", "properties__0__operator"),
    ("POST", RETENTION, "{oops", 400, "parse_error", None),
    ("GET", PATH + '?include_event_types=["$autocapture"]', None, 400, "invalid_input", "include_event_types__0"),
    ("POST", PATH, {"include_event_types": ["custom_event"], "include_custom_events": ["signup"]}, 400, "invalid_input",
     "include_custom_events"),
    ("POST", PATH, {"path_type": "$autocapture"}, 400, "invalid_input", "path_type"),
    ("POST", PATH, {"step_limit": -1}, 400, "invalid_input", "step_limit"),
    ("POST", PATH, {"edge_limit": 0}, 400, "invalid_input", "edge_limit"),
    ("POST", PATH, {"min_edge_weight": -2}, 400, "invalid_input", "min_edge_weight"),
    ("POST", PATH, {"min_edge_weight": 5, "max_edge_weight": 2}, 400, "invalid_input", "max_edge_weight"),
    ("POST", PATH, {"exclude_events": "/pricing"}, 400, "invalid_input", "exclude_events"),
    ("POST", PATH, {"date_from": "banana"}, 400, "invalid_input", "date_from"),
    ("POST", PATH, {"funnel_filter": {"events": [{"id": "$pageview"}], "funnel_step": 1}}, 400, "required",
     "funnel_paths"),
    ("POST", TIMING, ["not", "an", "object"], 400, "invalid_input", None),
    ("POST", TIMING, {"blob": "x" * (MAX_TIMING_REPORT_BYTES + 1)}, 413, "payload_too_large", None),
    ("GET", TIMING, None, 405, "method_not_allowed", None),
    ("GET", PEOPLE + "?selected_interval=11", None, 400, "invalid_input", "selected_interval"),
    ("GET", PEOPLE + "?selected_interval=9&selected_offset=2", None, 400, "invalid_input", "selected_offset"),
    ("GET", PEOPLE + "?period=Year", None, 400, "invalid_input", "period"),
    ("GET", "/api/projects/99999/insights/retention/", None, 404, "not_found", None),
]  # fmt: skip


@pytest.mark.parametrize("method, path, body, status, code, attr", BAD_INPUT)
def test_bad_input(client, world, method, path, body, status, code, attr):
    kwargs = {"content": body} if isinstance(body, str) else {"json": body}
    headers = {**world.headers(), "Content-Type": "application/json"}
    response = client.request(method, path.format(pid=world.project_id), headers=headers, **kwargs)
    assert response.status_code == status, response.text
    assert (response.json()["code"], response.json()["attr"]) == (code, attr)


def test_timing_reports_are_stored_as_sent_and_answer_without_a_body(client, world, conn):
    report = {"insight": "RETENTION", "ms": 321, "is_primary_interaction": True}
    response = client.post(TIMING.format(pid=world.project_id), json=report, headers=world.headers())
    assert (response.status_code, response.content) == (200, b"")
    stored = list_insight_timings(conn, world.project_id)
    assert [(row["report"], row["user_id"]) for row in stored] == [(report, world.user_id)]
    assert list_insight_timings(conn, world.other_project_id) == []


def test_openapi_documents_the_analysis_endpoints(client):
    schema = client.get("/api/schema/").json()
    assert {"get", "post"} <= set(schema["paths"]["/api/projects/{project_id}/insights/retention"])
    assert {"get", "post"} <= set(schema["paths"]["/api/projects/{project_id}/insights/path"])
    assert "post" in schema["paths"]["/api/projects/{project_id}/insights/timing"]
    assert "RetentionResponse" in json.dumps(schema)


@pytest.mark.parametrize(
    "path, body",
    [
        ("insights/trend/", {"events": [{"id": "$pageview"}]}),
        ("insights/funnel/", {"events": [{"id": "$pageview", "order": 0}, {"id": "signed_up", "order": 1}]}),
        ("insights/retention/", {}),
        ("insights/path/", {}),
    ],
)
def test_every_calculation_answers_the_same_envelope_with_its_timings(client, world, path, body):
    response = client.post(f"/api/projects/{world.project_id}/{path}", json=body, headers=world.headers())
    assert response.status_code == 200, response.text
    payload = response.json()
    assert {"result", "timezone", "last_refresh", "is_cached", "timings"} <= set(payload)
    assert (payload["timezone"], payload["is_cached"], payload["last_refresh"]) == (
        "UTC",
        False,
        "2026-01-15T12:00:00.000000Z",
    )
    assert [timing["k"] for timing in payload["timings"]] == ["./filter", "./query", "./format"]
    assert all(timing["t"] >= 0 for timing in payload["timings"])
