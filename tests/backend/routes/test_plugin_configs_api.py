"""Every plugin endpoint x {ok, no key, bad key, missing scope, other project, bad input}."""

from __future__ import annotations

import pytest

from tests.backend.plugin_helpers import make_configs

CONFIGS = "/api/projects/{pid}/plugin_configs"
ONE = CONFIGS + "/{cid}"
JOB_OK = {"job": {"type": "reprocess_events", "payload": {"date_from": "2026-01-01", "date_to": "2026-01-14"}}}

# (name, method, path, body, status when all is well, a scope that is NOT enough)
ENDPOINTS = [
    ("catalog", "GET", "/api/organizations/@current/plugins", None, 200, "insight:read"),
    ("list", "GET", CONFIGS, None, 200, "insight:read"),
    ("create", "POST", CONFIGS, {"plugin": 2, "order": 3}, 201, "plugin:read"),
    ("retrieve", "GET", ONE, None, 200, "insight:read"),
    ("update", "PATCH", ONE, {"enabled": False}, 200, "plugin:read"),
    ("delete", "DELETE", ONE, None, 204, "plugin:read"),
    ("rearrange", "PATCH", CONFIGS + "/rearrange", {"orders": {"{cid}": 5}}, 200, "plugin:read"),
    ("job", "POST", ONE + "/job", JOB_OK, 200, "plugin:read"),
    ("frontend", "GET", ONE + "/frontend", None, 200, "insight:read"),
    ("migrate", "POST", ONE.replace("{cid}", "{old}") + "/migrate", None, 200, "plugin:read"),
    ("activity", "GET", ONE + "/activity", None, 200, "plugin:write"),
]

AUTH_CASES = [
    # (case, key kind, status, code)
    ("ok", "all", None, None),
    ("no key", None, 401, "not_authenticated"),
    ("bad key", "bad", 401, "authentication_failed"),
    ("missing scope", "weak", 403, "permission_denied"),
    ("key for another project", "other", 403, "permission_denied"),
]

BAD_INPUT = [
    # (method, path, body, status, code, attr)
    ("GET", CONFIGS + "?limit=abc", None, 400, "invalid_input", "limit"),
    ("GET", "/api/organizations/@current/plugins?offset=-1", None, 400, "invalid_input", "offset"),
    ("GET", "/api/organizations/not-an-org/plugins", None, 404, "not_found", None),
    ("POST", CONFIGS, {"plugin": 999, "order": 1}, 400, "does_not_exist", "plugin"),
    ("POST", CONFIGS, {"plugin": "abc", "order": 1}, 400, "invalid_input", "plugin"),
    ("POST", CONFIGS, {"order": 1}, 400, "required", "plugin"),
    ("POST", CONFIGS, {"plugin": 2}, 400, "required", "order"),
    ("POST", CONFIGS, {"plugin": 2, "order": "first"}, 400, "invalid_input", "order"),
    ("POST", CONFIGS, {"plugin": 2, "order": 10**20}, 400, "invalid_input", "order"),
    ("POST", CONFIGS, {"plugin": 2, "order": 1, "config": {"defaultNamingConvention": "UPPER"}}, 400,
     "invalid_choice", "config__defaultNamingConvention"),
    ("POST", CONFIGS, {"plugin": 3, "order": 1, "config": {"percentage": "lots"}}, 400, "invalid_input",
     "config__percentage"),
    ("POST", CONFIGS, {"plugin": 3, "order": 1, "config": {"percentage": "150"}}, 400, "invalid_input",
     "config__percentage"),
    ("POST", CONFIGS, {"plugin": 5, "order": 1, "config": {"message": ""}}, 400, "required", "config__message"),
    ("POST", CONFIGS, {"plugin": 2, "order": 1, "config": {"naming": "x"}}, 400, "invalid_input", "config__naming"),
    ("POST", CONFIGS, {"plugin": 2, "order": 1, "config": "snake_case"}, 400, "invalid_input", "config"),
    ("POST", CONFIGS, ["plugin", 2], 400, "invalid_input", None),
    ("POST", CONFIGS, "{not json", 400, "parse_error", None),
    ("GET", CONFIGS + "/abc", None, 404, "not_found", None),
    ("GET", CONFIGS + "/99999", None, 404, "not_found", None),
    ("GET", CONFIGS + "/99999999999999999999999", None, 404, "not_found", None),
    ("GET", ONE.replace("{cid}", "{ocid}"), None, 404, "not_found", None),
    ("PATCH", ONE.replace("{cid}", "{ocid}"), {"enabled": True}, 404, "not_found", None),
    ("DELETE", ONE.replace("{cid}", "{ocid}"), None, 404, "not_found", None),
    ("DELETE", CONFIGS + "/abc", None, 404, "not_found", None),
    ("PATCH", ONE, {"enabled": "maybe"}, 400, "invalid_input", "enabled"),
    ("PATCH", ONE, {"config": {"defaultNamingConvention": 5}}, 400, "invalid_choice",
     "config__defaultNamingConvention"),
    ("PATCH", ONE, {"plugin": 3}, 400, "invalid_input", "plugin"),
    ("PATCH", ONE, {"plugin": 999}, 400, "does_not_exist", "plugin"),
    ("PATCH", ONE, "[1,", 400, "parse_error", None),
    ("PATCH", CONFIGS + "/rearrange", {}, 400, "required", "orders"),
    ("PATCH", CONFIGS + "/rearrange", {"orders": [1, 2]}, 400, "invalid_input", "orders"),
    ("PATCH", CONFIGS + "/rearrange", {"orders": {"abc": 1}}, 400, "invalid_input", "orders"),
    ("PATCH", CONFIGS + "/rearrange", {"orders": {" {cid}": 1}}, 400, "invalid_input", "orders"),
    ("PATCH", CONFIGS + "/rearrange", {"orders": {"\u0661": 1}}, 400, "invalid_input", "orders"),  # Arabic 1
    ("PATCH", CONFIGS + "/rearrange", {"orders": {"{cid}": 1.5}}, 400, "invalid_input", "orders__{cid}"),
    ("PATCH", CONFIGS + "/rearrange", {"orders": {"{cid}": "1"}}, 400, "invalid_input", "orders__{cid}"),
    ("PATCH", CONFIGS + "/rearrange", {"orders": {"{cid}": True}}, 400, "invalid_input", "orders__{cid}"),
    ("PATCH", CONFIGS + "/rearrange", {"orders": {"{ocid}": 1}}, 400, "does_not_exist", "orders__{ocid}"),
    ("PATCH", CONFIGS + "/rearrange", "{", 400, "parse_error", None),
    ("POST", ONE + "/job", {"job": {"type": "export_everything"}}, 400, "invalid_choice", "job__type"),
    ("POST", ONE + "/job", {"job": {}}, 400, "required", "job__type"),
    ("POST", ONE + "/job", {}, 400, "required", "job__type"),
    ("POST", ONE + "/job", {"job": {"type": "reprocess_events", "payload": {"date_from": "2026-01-01"}}}, 400,
     "required", "job__payload__date_to"),
    ("POST", ONE + "/job", {"job": {"type": "reprocess_events", "payload": {"date_from": "yesterday",
     "date_to": "2026-01-02"}}}, 400, "invalid_input", "job__payload__date_from"),
    ("POST", ONE + "/job", {"job": {**JOB_OK["job"], "operation": "stop"}}, 400, "invalid_choice",
     "job__operation"),
    ("POST", ONE + "/job", "nope", 400, "parse_error", None),
    ("POST", ONE.replace("{cid}", "{ocid}") + "/job", JOB_OK, 404, "not_found", None),
    ("GET", ONE.replace("{cid}", "{ocid}") + "/frontend", None, 404, "not_found", None),
    ("POST", ONE + "/migrate", None, 400, "no_migration", None),
    ("POST", CONFIGS + "/abc/migrate", None, 404, "not_found", None),
    ("GET", ONE.replace("{cid}", "{ocid}") + "/activity", None, 404, "not_found", None),
    ("GET", ONE + "/activity?page=0", None, 400, "invalid_input", "page"),
]  # fmt: skip


@pytest.fixture
def configs(conn, world):
    return make_configs(conn, world)


def fill(text: str, world, configs) -> str:
    return (
        text.replace("{pid}", str(world.project_id))
        .replace("{ocid}", str(configs.other_project))
        .replace("{cid}", str(configs.taxonomy))
        .replace("{old}", str(configs.old_filter))
    )


def fill_body(body, world, configs):
    if isinstance(body, dict):
        return {fill(str(k), world, configs): fill_body(v, world, configs) for k, v in body.items()}
    return body


def send(client, method, path, body, headers):
    if isinstance(body, str):
        return client.request(method, path, content=body, headers={**headers, "Content-Type": "application/json"})
    return client.request(method, path, json=body, headers=headers)


@pytest.mark.parametrize("case, kind, status, code", AUTH_CASES, ids=[c[0] for c in AUTH_CASES])
@pytest.mark.parametrize("name, method, path, body, ok_status, weak_scope", ENDPOINTS, ids=[e[0] for e in ENDPOINTS])
def test_auth_table(client, world, configs, name, method, path, body, ok_status, weak_scope, case, kind, status, code):
    keys = {
        "all": world.key,
        "bad": "phx_not_a_real_key",
        "weak": world.make_key(weak_scope),
        "other": world.make_key("*", projects=[world.other_project_id]),
    }
    headers = {"Authorization": f"Bearer {keys[kind]}"} if kind else {}
    if name == "catalog" and kind == "other":
        status, code = None, None  # the catalog belongs to no project: a restricted key may read it
    response = send(client, method, fill(path, world, configs), fill_body(body, world, configs), headers)
    assert response.status_code == (status or ok_status), response.text
    if code is not None:
        assert response.json()["code"] == code


@pytest.mark.parametrize("method, path, body, status, code, attr", BAD_INPUT)
def test_bad_input_table(client, world, configs, method, path, body, status, code, attr):
    before = client.get(fill(CONFIGS, world, configs), headers=world.headers()).json()
    response = send(client, method, fill(path, world, configs), fill_body(body, world, configs), world.headers())
    assert response.status_code == status, response.text
    error = response.json()
    assert set(error) == {"type", "code", "detail", "attr"}
    assert (error["code"], error["attr"]) == (code, fill(attr, world, configs) if attr else None)
    assert client.get(fill(CONFIGS, world, configs), headers=world.headers()).json() == before
