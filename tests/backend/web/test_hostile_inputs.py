"""Hostile inputs: every one answers a 400 envelope naming the field (or, in a capture batch, a rejected event
beside the stored good ones), never a 500, and nothing stored is lost or poisoned.

Bodies holding a lone surrogate are sent as JSON text written with ``ensure_ascii`` (the ``\\ud800`` escape),
as a client would send them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from local_backend.limits import (
    MAX_CONDITIONS_PER_GROUP,
    MAX_EXACT_VALUES,
    MAX_FILTER_PARAM_NESTING,
    MAX_ICONTAINS_LENGTH,
    MAX_NAME_LIST_ITEMS,
    MAX_PATTERN_NESTING,
    MAX_PROPERTY_KEY_LENGTH,
    MAX_REGEX_CONDITIONS_PER_REQUEST,
)
from local_backend.safe_regex import compile_pattern, pattern_nesting, regex_search

SURROGATE = "\ud800"
HUGE = 2**70
PAGEVIEWS = [{"id": "$pageview"}]


def post_json(client, url: str, body: Any, headers: dict[str, str] | None = None):
    # json.dumps escapes a lone surrogate as \ud800, so the body is valid UTF-8 as sent over the wire
    return client.post(url, content=json.dumps(body), headers={"Content-Type": "application/json", **(headers or {})})


def assert_envelope(answer, attr: str | None, status: int = 400) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert set(body) == {"type", "code", "detail", "attr"}
    assert body["attr"] == attr, body
    return body


def condition(key: str = "$browser", value: Any = "Chrome", operator: str = "exact", **extra: Any) -> dict[str, Any]:
    return {"key": key, "value": value, "operator": operator, **extra}


def hogql(expression: str) -> list[dict[str, Any]]:
    return [{"type": "hogql", "key": expression}]


TREND_CASES = [
    # (case, body beside the default events, attr)
    ("surrogate in an event name", {"events": [{"id": SURROGATE}]}, "events__0__id"),
    ("surrogate in a property value", {"properties": [condition(value=SURROGATE)]}, "properties__0__value"),
    (
        "surrogate in a regex",
        {"properties": [condition(value=f"a{SURROGATE}(", operator="regex")]},
        "properties__0__value",
    ),
    ("surrogate echoed by an error", {"properties": [condition(type=SURROGATE)]}, "properties__0__type"),
    ("NUL in a property key", {"properties": [condition(key="a\x00b")]}, "properties__0__key"),
    ("NUL in a breakdown", {"breakdown": "a\x00b"}, "breakdown"),
    (
        "NUL in math_property",
        {"events": [{"id": "$pageview", "math": "sum", "math_property": "a\x00b"}]},
        "events__0__math_property",
    ),
    (
        "property key too long",
        {"properties": [condition(key="k" * (MAX_PROPERTY_KEY_LENGTH + 1))]},
        "properties__0__key",
    ),
    ("1 MB property key", {"properties": [condition(key="k" * 1_000_000)]}, "properties__0__key"),
    (
        "exact list too long",
        {"properties": [condition(value=[str(i) for i in range(MAX_EXACT_VALUES + 1)])]},
        "properties__0__value",
    ),
    (
        "exact list of 100,000",
        {"properties": [condition(value=[str(i) for i in range(100_000)])]},
        "properties__0__value",
    ),
    (
        "icontains text too long",
        {"properties": [condition(value="b" * (MAX_ICONTAINS_LENGTH + 1), operator="icontains")]},
        "properties__0__value",
    ),
    ("value nested in lists", {"properties": [condition(value=[[["deep"]]])]}, "properties__0__value"),
    (
        "regex nesting too deep",
        {"properties": [condition(value="(" * 11 + "a" + ")" * 11, operator="regex")]},
        "properties__0__value",
    ),
    (
        "regex compiling too large",
        {"properties": [condition(value="a{1000}b{1000}", operator="regex")]},
        "properties__0__value",
    ),
    (
        "too many regexes",
        {
            "properties": {
                "type": "OR",
                "values": [
                    condition(value=f"p{i}", operator="regex") for i in range(MAX_REGEX_CONDITIONS_PER_REQUEST + 1)
                ],
            }
        },
        "properties",
    ),
    (
        "400 OR-ed icontains",
        {"properties": {"type": "OR", "values": [condition(value=f"p{i}", operator="icontains") for i in range(400)]}},
        "properties",
    ),
    ("1,000 AND-ed filters", {"properties": [condition(key=f"k{i}") for i in range(1000)]}, "properties"),
    (
        "one group over the limit",
        {"properties": [condition(key=f"k{i}") for i in range(MAX_CONDITIONS_PER_GROUP + 1)]},
        "properties",
    ),
    (
        "request over the limit",
        {"events": [{"id": f"e{n}", "properties": [condition(key=f"k{i}") for i in range(70)]} for n in range(3)]},
        "properties",
    ),
    (
        "HogQL integer beyond 64 bits",
        {"properties": hogql("properties.n = 99999999999999999999999")},
        "properties__0__key",
    ),
    ("HogQL unary nesting", {"properties": hogql("-" * 1500 + "1 = 1")}, "properties__0__key"),
    ("HogQL call nesting", {"properties": hogql("lower(" * 40 + "event" + ")" * 40 + " = 'a'")}, "properties__0__key"),
    ("HogQL not nesting", {"properties": hogql("not " * 40 + "event = 'a'")}, "properties__0__key"),
    ("HogQL width", {"properties": hogql("1" + " + 1" * 300 + " = 2")}, "properties__0__key"),
    ("HogQL NUL", {"properties": hogql("event = 'a\x00'")}, "properties__0__key"),
    (
        "cohort id beyond 64 bits",
        {"properties": [{"type": "cohort", "key": "id", "value": HUGE}]},
        "properties__0__value",
    ),
    ("action id beyond 64 bits", {"events": [], "actions": [{"id": HUGE}]}, "actions__0__id"),
    ("cohort breakdown beyond 64 bits", {"breakdown": [HUGE], "breakdown_type": "cohort"}, "breakdown"),
    ("date_from of 400 ones", {"date_from": "1" * 400}, "date_from"),
    (
        "date value of 400 ones",
        {"properties": [condition(value="1" * 400, operator="is_date_after")]},
        "properties__0__value",
    ),
]


@pytest.mark.parametrize(("body", "attr"), [case[1:] for case in TREND_CASES], ids=[case[0] for case in TREND_CASES])
def test_trend_filter_inputs_are_400s_naming_the_field(client, world, body, attr):
    url = f"/api/projects/{world.project_id}/insights/trend/"
    assert_envelope(post_json(client, url, {"events": PAGEVIEWS, **body}, world.headers()), attr)


FUNNEL_CASES = [
    ("NUL in a breakdown list", {"breakdown": ["$browser", "a\x00b"]}, "breakdown"),
    (
        "too many regexes across exclusions",
        {
            "exclusions": [
                {
                    "id": "x",
                    "funnel_from_step": 0,
                    "funnel_to_step": 1,
                    "properties": [
                        condition(value=f"p{i}", operator="regex") for i in range(MAX_REGEX_CONDITIONS_PER_REQUEST + 1)
                    ],
                }
            ]
        },
        "properties",
    ),
]


@pytest.mark.parametrize(("body", "attr"), [case[1:] for case in FUNNEL_CASES], ids=[case[0] for case in FUNNEL_CASES])
def test_funnel_filter_inputs_are_400s_naming_the_field(client, world, body, attr):
    url = f"/api/projects/{world.project_id}/insights/funnel/"
    steps = [{"id": "$pageview", "order": 0}, {"id": "signup", "order": 1}]
    assert_envelope(post_json(client, url, {"events": steps, **body}, world.headers()), attr)


def test_regex_nesting_skips_escapes_and_classes():
    assert pattern_nesting(r"(a(b)c)") == 2
    assert pattern_nesting(r"\(\(\(a") == 0
    assert pattern_nesting(r"[(((]x") == 0
    assert pattern_nesting(r"[]((]x(y)") == 1
    assert pattern_nesting("(" * MAX_PATTERN_NESTING + ")" * MAX_PATTERN_NESTING) == MAX_PATTERN_NESTING


def test_regexes_compile_without_capturing_groups():
    # tracking 500 nested groups on every row took 37 s over 20k events; without captures RE2 uses its DFA
    assert compile_pattern("(a)((b)c)", attr="value").groups == 0
    assert (regex_search("xabcy", "(a)((b)c)"), regex_search("xacby", "(a)((b)c)")) == (1, 0)


@pytest.mark.parametrize("path_type", [["$pageview"], {"a": 1}])
def test_path_type_that_is_not_text_is_a_400(client, world, path_type):
    url = f"/api/projects/{world.project_id}/insights/path/"
    assert_envelope(post_json(client, url, {"path_type": path_type}, world.headers()), "path_type")


DEEP = b"[" * 10_000 + b"]" * 10_000


def test_deep_body_without_a_key_answers_not_authenticated(client, world):
    # the key lookup reads the body (personal_api_key may travel in it): an unreadable body holds no key
    answer = client.post(
        f"/api/projects/{world.project_id}/insights/trend/", content=DEEP, headers={"Content-Type": "application/json"}
    )
    assert assert_envelope(answer, None, status=403)["code"] == "not_authenticated"


def test_deep_body_with_a_key_is_a_parse_error(client, world):
    answer = client.post(
        f"/api/projects/{world.project_id}/insights/trend/",
        content=DEEP,
        headers={"Content-Type": "application/json", **world.headers()},
    )
    assert assert_envelope(answer, None)["code"] == "parse_error"


def test_deep_body_to_a_declared_model_is_a_parse_error(client, world):
    answer = client.post(
        f"/api/projects/{world.project_id}/insights/",
        content=b'{"filters": {"a": ' + DEEP + b"}}",
        headers={"Content-Type": "application/json", **world.headers()},
    )
    assert assert_envelope(answer, None)["code"] == "parse_error"


def insight_names(client, world) -> list[str | None]:
    page = client.get(f"/api/projects/{world.project_id}/insights/", headers=world.headers()).json()
    return [insight["name"] for insight in page["results"]]


@pytest.mark.parametrize(
    ("body", "attr"),
    [
        ({"name": "x", "filters": {"events": [{"id": SURROGATE}]}}, "filters"),
        ({"name": "x", "filters": {"a": json.loads("[" * 150 + "]" * 150)}}, "filters"),
        ({"name": "x", "query": {"kind": SURROGATE}}, "query"),
        ({"name": "x", "dashboards": [HUGE]}, "dashboards__0"),
    ],
    ids=["surrogate in filters", "filters nested 150 deep", "surrogate in query", "dashboard id beyond 64 bits"],
)
def test_saved_insight_refuses_what_it_could_not_send_back(client, world, body, attr):
    assert_envelope(post_json(client, f"/api/projects/{world.project_id}/insights/", body, world.headers()), attr)
    assert insight_names(client, world) == []  # nothing stored that would fail every later read


def test_query_node_id_beyond_64_bits_is_a_400(client, world):
    query = {"kind": "TrendsQuery", "series": [{"kind": "ActionsNode", "id": HUGE}]}
    answer = post_json(client, f"/api/projects/{world.project_id}/query/", {"query": query}, world.headers())
    assert_envelope(answer, "query__series__0__id")


def test_project_test_account_filters_refuse_a_surrogate(client, world):
    body = {"test_account_filters": [{"key": "email", "value": SURROGATE}]}
    answer = client.patch(
        f"/api/projects/{world.project_id}/",
        content=json.dumps(body),
        headers={"Content-Type": "application/json", **world.headers()},
    )
    assert_envelope(answer, "test_account_filters__0")


@pytest.mark.parametrize("project_id", ["\u0661", "\u0662", "\uff11", " 1", "0_1"])
def test_project_ids_are_ascii_digits(client, world, project_id):
    assert world.project_id == 1
    answer = client.get(f"/api/projects/{project_id}/", headers=world.headers())
    assert_envelope(answer, None, status=404)


def test_batch_with_a_surrogate_rejects_only_that_event(client, conn, world):
    batch = [
        {"event": "good", "distinct_id": "alice"},
        {"event": f"bad{SURROGATE}", "distinct_id": "bob"},
        {"event": "bad", "distinct_id": f"carol{SURROGATE}"},
        {"event": "bad", "distinct_id": "dave", "properties": {"v": SURROGATE}},
        {"event": "bad", "distinct_id": "erin", "properties": {SURROGATE: 1}},
        {"event": "bad", "distinct_id": "frank", "timestamp": "1" * 400},
        {"event": "good", "distinct_id": "grace", "timestamp": "2026-01-15T10:00:00Z"},
    ]
    answer = client.post(
        "/batch/",
        content=json.dumps({"api_key": world.project_token, "batch": batch}),
        headers={"Content-Type": "application/json"},
    )
    assert answer.status_code == 200, answer.text
    report = answer.json()
    assert (report["accepted"], report["rejected"]) == (2, 5)
    assert sorted(item["index"] for item in report["rejections"]) == [1, 2, 3, 4, 5]
    rows = conn.execute("SELECT event, distinct_id FROM events ORDER BY distinct_id").fetchall()
    assert [tuple(row) for row in rows] == [("good", "alice"), ("good", "grace")]


def test_capture_rejects_a_timestamp_of_ones(client, conn, world):
    event = {"api_key": world.project_token, "event": "e", "distinct_id": "a", "timestamp": "1" * 400}
    report = client.post("/capture/", json=event).json()
    assert (report["accepted"], report["rejected"]) == (0, 1)
    assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == 0


def test_re_enabling_sharing_mints_a_new_token(client, world):
    base = f"/api/projects/{world.project_id}/insights/"
    insight = client.post(base, json={"name": "Shared"}, headers=world.headers()).json()
    url = f"{base}{insight['id']}/sharing/"
    first = client.patch(url, json={"enabled": True}, headers=world.headers()).json()["access_token"]
    assert client.get(f"{base}{insight['id']}/?sharing_access_token={first}").status_code == 200
    client.patch(url, json={"enabled": False}, headers=world.headers())
    second = client.patch(url, json={"enabled": True}, headers=world.headers()).json()["access_token"]
    assert second != first
    assert client.get(f"{base}{insight['id']}/?sharing_access_token={second}").status_code == 200
    leaked = client.get(f"{base}{insight['id']}/?sharing_access_token={first}")
    assert leaked.status_code == 403
    # enabling twice in a row keeps the token: only a disable revokes it
    again = client.patch(url, json={"enabled": True}, headers=world.headers()).json()["access_token"]
    assert again == second


@pytest.mark.parametrize(
    ("query", "attr"),
    [(f"dashboards=[{HUGE}]", "dashboards"), (f"created_by={HUGE}", "created_by"), ("created_by=\u0662", "created_by")],
)
def test_insight_list_ids_beyond_64_bits_are_400s(client, world, query, attr):
    assert_envelope(client.get(f"/api/projects/{world.project_id}/insights/?{query}", headers=world.headers()), attr)


def test_retention_action_id_beyond_64_bits_is_a_400(client, world):
    body = {"target_entity": {"id": HUGE, "type": "actions"}}
    answer = post_json(client, f"/api/projects/{world.project_id}/insights/retention/", body, world.headers())
    assert_envelope(answer, "target_entity__id")


def test_capture_token_with_a_surrogate_is_an_invalid_key(client, world):
    body = {"api_key": f"phc_{SURROGATE}", "batch": [{"event": "a", "distinct_id": "b"}]}
    answer = client.post("/batch/", content=json.dumps(body), headers={"Content-Type": "application/json"})
    assert assert_envelope(answer, None, status=401)["code"] == "invalid_api_key"


def test_capture_body_nested_too_deeply_is_a_400(client, world):
    body = f'{{"api_key": "{world.project_token}", "event": "a", "distinct_id": "b", "properties": {{"x": '.encode()
    answer = client.post("/batch/", content=body + DEEP + b"}}", headers={"Content-Type": "application/json"})
    assert assert_envelope(answer, None)["code"] == "invalid_payload"


def test_capture_rejects_only_the_event_nested_too_deeply_and_events_stay_readable(client, world):
    deep = json.loads("[" * 150 + "]" * 150)
    batch = [{"event": "deep", "distinct_id": "a", "properties": {"x": deep}}, {"event": "ok", "distinct_id": "b"}]
    report = client.post("/batch/", json={"api_key": world.project_token, "batch": batch}).json()
    assert (report["accepted"], report["rejected"]) == (1, 1)
    assert report["rejections"] == [{"index": 0, "reason": "properties nest more than 100 levels deep"}]
    listed = client.get(f"/api/projects/{world.project_id}/events/", headers=world.headers())
    assert listed.status_code == 200
    assert [event["event"] for event in listed.json()["results"]] == ["ok"]


def nested_groups(count: int, kind: str) -> dict[str, Any]:
    # each group is two levels (the group object, its values list); the condition inside is one more
    value: dict[str, Any] = {"key": "$browser", "value": "Chrome", "type": kind}
    for _ in range(count):
        value = {"type": "AND", "values": [value]}
    return value


@pytest.mark.parametrize(("path", "kind"), [("events", "event"), ("persons", "person")])
def test_query_string_filters_nest_at_most_the_limit(client, world, path, kind):
    assert MAX_FILTER_PARAM_NESTING == 10  # the shapes below are 10 and 11 levels deep
    url = f"/api/projects/{world.project_id}/{path}/"
    within = json.dumps([nested_groups(4, kind)])  # list, 4 x (group, values), condition: 10 levels
    assert client.get(url, params={"properties": within}, headers=world.headers()).status_code == 200
    over = json.dumps(nested_groups(5, kind))  # 5 x (group, values), condition: 11 levels
    body = assert_envelope(client.get(url, params={"properties": over}, headers=world.headers()), "properties")
    assert f"at most {MAX_FILTER_PARAM_NESTING} levels" in body["detail"]


def test_name_lists_hold_at_most_the_limit(client, world):
    url = f"/api/projects/{world.project_id}/property_definitions/"
    names = [f"e{i}" for i in range(MAX_NAME_LIST_ITEMS)]
    assert client.get(url, params={"event_names": json.dumps(names)}, headers=world.headers()).status_code == 200
    over = client.get(url, params={"event_names": json.dumps([*names, "one more"])}, headers=world.headers())
    body = assert_envelope(over, "event_names")
    assert f"at most {MAX_NAME_LIST_ITEMS} names" in body["detail"]
