"""What a user of the plugin-config endpoints notices: fields, secrets, ordering, soft delete, activity."""

from __future__ import annotations

import json

from local_backend.plugins.pipeline import load_enabled_plugins, record_pipeline_outcomes, run_pipeline
from local_backend.plugins.schema import SECRET_MASK
from tests.backend.plugin_helpers import add_config, make_configs

FIELDS = {
    "id", "plugin", "enabled", "order", "config", "error", "team_id", "plugin_info", "delivery_rate_24h",
    "created_at", "updated_at", "name", "description", "deleted",
}  # fmt: skip


def url(world, suffix: str = "") -> str:
    return f"/api/projects/{world.project_id}/plugin_configs/{suffix}"


def test_create_returns_all_fields_with_defaults_filled_in(client, world):
    response = client.post(url(world), json={"plugin": 4, "order": 2}, headers=world.headers())
    assert response.status_code == 201
    body = response.json()
    assert set(body) == FIELDS
    assert body["config"] == {"extra_patterns": "", "drop_without_user_agent": "No"}
    assert (body["enabled"], body["deleted"], body["order"], body["team_id"]) == (False, False, 2, world.project_id)
    assert body["name"] == "Bot Filter"  # falls back to the plugin's name
    assert body["plugin_info"]["id"] == 4
    assert body["delivery_rate_24h"] is None
    assert body["created_at"] == "2026-01-15T12:00:00.000000Z"
    listed = client.get(url(world), headers=world.headers()).json()["results"]
    assert [(c["id"], c["plugin_info"]) for c in listed] == [(body["id"], None)]


def test_create_is_not_an_upsert(client, world):
    for order in (1, 2):
        assert client.post(url(world), json={"plugin": 1, "order": order}, headers=world.headers()).status_code == 201
    assert client.get(url(world), headers=world.headers()).json()["count"] == 2


def test_multipart_create_with_config_as_a_json_string(client, world):
    response = client.post(
        url(world),
        data={"plugin": "3", "order": "1", "enabled": "true", "name": "Keep 10%"},
        files={"config": (None, json.dumps({"percentage": "10", "salt": "pepper"}))},
        headers=world.headers(),
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["config"] == {"percentage": "10", "salt": SECRET_MASK}
    assert (body["enabled"], body["name"]) == (True, "Keep 10%")
    bad = client.post(
        url(world), data={"plugin": "3", "order": "1"}, files={"config": (None, "{oops")}, headers=world.headers()
    )
    assert (bad.status_code, bad.json()["attr"]) == (400, "config")


def test_secrets_are_masked_everywhere_and_kept_unless_replaced(client, world, conn):
    created = client.post(
        url(world),
        json={"plugin": 3, "order": 1, "config": {"percentage": "50", "salt": "pepper"}},
        headers=world.headers(),
    ).json()
    one = url(world, str(created["id"]))
    assert client.get(one, headers=world.headers()).json()["config"]["salt"] == SECRET_MASK
    assert client.get(url(world), headers=world.headers()).json()["results"][0]["config"]["salt"] == SECRET_MASK

    def stored_salt() -> str:
        return json.loads(
            conn.execute("SELECT config FROM plugin_configs WHERE id = ?", (created["id"],)).fetchone()[0]
        )["salt"]

    client.patch(one, json={"config": {"percentage": "20"}}, headers=world.headers())
    assert stored_salt() == "pepper"
    client.patch(one, json={"config": {"percentage": "20", "salt": SECRET_MASK}}, headers=world.headers())
    client.patch(one, json={"config": {"percentage": "20", "salt": None}}, headers=world.headers())
    assert stored_salt() == "pepper"
    patched = client.patch(one, json={"config": {"percentage": "30", "salt": "salt2"}}, headers=world.headers())
    assert patched.json()["config"] == {"percentage": "30", "salt": SECRET_MASK}
    assert stored_salt() == "salt2"
    activity = client.get(one + "/activity", headers=world.headers()).json()["results"]
    assert "pepper" not in json.dumps(activity) and "salt2" not in json.dumps(activity)
    salt_changes = [c for a in activity if a["activity"] == "config_updated" for c in a["detail"]["changes"]]
    assert {"field": "salt", "before": SECRET_MASK, "after": SECRET_MASK} in [
        {k: c[k] for k in ("field", "before", "after")} for c in salt_changes
    ]


def test_list_orders_by_order_then_plugin_and_hides_deleted(client, world, conn):
    a = add_config(conn, world.project_id, 4, order=2)
    b = add_config(conn, world.project_id, 2, order=1)
    c = add_config(conn, world.project_id, 1, order=2)
    add_config(conn, world.project_id, 3, order=0, deleted=True)
    page = client.get(url(world), headers=world.headers()).json()
    assert [r["id"] for r in page["results"]] == [b, c, a]
    assert page["count"] == 3


def test_delete_is_soft_and_patch_restores(client, world, conn):
    config_id = add_config(conn, world.project_id, 2, enabled=True)
    one = url(world, str(config_id))
    response = client.delete(one, headers=world.headers())
    assert (response.status_code, response.content) == (204, b"")
    assert client.get(url(world), headers=world.headers()).json()["count"] == 0
    retrieved = client.get(one, headers=world.headers()).json()
    assert (retrieved["deleted"], retrieved["enabled"]) == (True, False)
    assert load_enabled_plugins(conn, world.project_id) == []
    restored = client.patch(one, json={"deleted": False, "enabled": True}, headers=world.headers()).json()
    assert (restored["deleted"], restored["enabled"]) == (False, True)
    assert [p.config_id for p in load_enabled_plugins(conn, world.project_id)] == [config_id]
    # deleted: true in a PATCH disables too, even when enabled: true is sent with it
    patched = client.patch(one, json={"deleted": True, "enabled": True}, headers=world.headers()).json()
    assert (patched["deleted"], patched["enabled"]) == (True, False)


def test_rearrange_changes_the_pipeline_order_and_returns_enabled_configs(client, world, conn):
    rename = add_config(conn, world.project_id, 2, order=1, config={"defaultNamingConvention": "snake_case"})
    strip = add_config(conn, world.project_id, 1, order=2, config={"event_properties": "$ip"})
    add_config(conn, world.project_id, 3, order=3, enabled=False)
    response = client.patch(
        url(world, "rearrange"), json={"orders": {str(rename): 3, str(strip): 1}}, headers=world.headers()
    )
    assert response.status_code == 200
    assert [(c["id"], c["order"]) for c in response.json()] == [(strip, 1), (rename, 3)]
    assert [p.config_id for p in load_enabled_plugins(conn, world.project_id)] == [strip, rename]
    activity = client.get(url(world, f"{rename}/activity"), headers=world.headers()).json()["results"]
    assert activity[0]["activity"] == "order_changed"
    change = activity[0]["detail"]["changes"][0]
    assert (change["field"], change["before"], change["after"]) == ("order", 1, 3)


def test_rearrange_reads_an_integral_number_as_the_integer(client, world, conn):
    config_id = add_config(conn, world.project_id, 2, order=1, config={"defaultNamingConvention": "snake_case"})
    response = client.patch(url(world, "rearrange"), json={"orders": {str(config_id): 4.0}}, headers=world.headers())
    assert response.status_code == 200, response.text
    assert [(c["id"], c["order"]) for c in response.json()] == [(config_id, 4)]


def test_migrate_upgrades_an_old_config_once(client, world, conn):
    configs = make_configs(conn, world)
    one = url(world, str(configs.old_filter))
    response = client.post(one + "/migrate", headers=world.headers())
    assert response.status_code == 200
    assert response.json()["config"] == {"event_properties": "$ip", "person_properties": "email"}
    again = client.post(one + "/migrate", headers=world.headers())
    assert (again.status_code, again.json()["code"]) == (400, "no_migration")
    entry = client.get(one + "/activity", headers=world.headers()).json()["results"][0]
    assert entry["activity"] == "config_updated"
    assert entry["detail"]["migration"] == {"from_version": 1, "to_version": 2}


def test_frontend_serves_the_site_app_or_a_no_frontend_module(client, world, conn):
    bar = add_config(conn, world.project_id, 5)
    taxonomy = add_config(conn, world.project_id, 2)
    site_app = client.get(url(world, f"{bar}/frontend"), headers=world.headers())
    assert site_app.headers["content-type"].startswith("application/javascript")
    assert "export function inject(" in site_app.text
    stub = client.get(url(world, f"{taxonomy}/frontend"), headers=world.headers())
    assert stub.headers["content-type"].startswith("application/javascript")
    assert '"no_frontend": true' in stub.text


def test_activity_lists_the_life_of_a_config(client, world):
    created = client.post(url(world), json={"plugin": 2, "order": 1, "enabled": True}, headers=world.headers()).json()
    one = url(world, str(created["id"]))
    client.patch(one, json={"config": {"defaultNamingConvention": "kebab-case"}}, headers=world.headers())
    client.patch(one, json={"enabled": False, "name": "Names"}, headers=world.headers())
    client.post(one + "/job", json={"job": {"type": "reprocess_events", "payload": {"date_from": "2026-01-01",
                "date_to": "2026-01-02"}}}, headers=world.headers())  # fmt: skip
    client.delete(one, headers=world.headers())
    page = client.get(one + "/activity", headers=world.headers()).json()
    assert [a["activity"] for a in page["results"]] == [
        "deleted", "job_triggered", "updated", "disabled", "config_updated", "enabled", "created",
    ]  # fmt: skip
    assert page["total_count"] == 7
    by_name = {a["activity"]: a for a in page["results"]}
    change = by_name["config_updated"]["detail"]["changes"][0]
    assert (change["field"], change["before"], change["after"]) == (
        "defaultNamingConvention",
        "camelCase",
        "kebab-case",
    )
    assert by_name["job_triggered"]["detail"]["trigger"]["job_type"] == "reprocess_events"
    assert by_name["created"]["user"]["email"] == "analyst@example.com"


def test_delivery_rate_and_error_show_on_the_config(client, world, conn, clock):
    config_id = add_config(conn, world.project_id, 3, config={"percentage": "not a number"})
    plugins = load_enabled_plugins(conn, world.project_id)
    event = {"uuid": "e-1", "event": "x", "distinct_id": "d", "properties": {}, "timestamp": "", "team_id": 1}
    record_pipeline_outcomes(conn, [run_pipeline(event, plugins)], clock.now())
    body = client.get(url(world, str(config_id)), headers=world.headers()).json()
    assert body["delivery_rate_24h"] == 0.0
    assert body["error"]["event_uuid"] == "e-1"
    assert body["error"]["time"] == "2026-01-15T12:00:00.000000Z"
    assert client.get(url(world), headers=world.headers()).json()["results"][0]["delivery_rate_24h"] == 0.0


def test_demo_project_has_running_plugin_configs_and_one_to_migrate(conn, clock):
    from local_backend.demo_data.setup import seed_demo

    access = seed_demo(conn, clock, events=500)
    loaded = load_enabled_plugins(conn, access.project["id"])
    assert [p.plugin.slug for p in loaded] == ["bot-filter", "property-filter"]
    assert loaded[1].config == {"event_properties": "$ip", "person_properties": ""}
    disabled = conn.execute(
        "SELECT plugin_id FROM plugin_configs WHERE project_id = ? AND enabled = 0", (access.project["id"],)
    ).fetchall()
    assert [r[0] for r in disabled] == [2]


def test_openapi_documents_json_and_multipart_create(client):
    schema = client.get("/api/schema/").json()
    create = schema["paths"]["/api/projects/{project_id}/plugin_configs"]["post"]
    assert set(create["requestBody"]["content"]) == {"application/json", "multipart/form-data"}
    form = create["requestBody"]["content"]["multipart/form-data"]
    # config is an object in the form too, sent as a JSON part
    assert {"additionalProperties": True, "type": "object"} in form["schema"]["properties"]["config"]["anyOf"]
    assert form["encoding"] == {"config": {"contentType": "application/json"}}
    assert "PluginConfig" in schema["components"]["schemas"]
    assert "/api/projects/{project_id}/plugin_configs/rearrange" in schema["paths"]


def test_multipart_update_and_current_project_path(client, world, conn):
    config_id = add_config(conn, world.project_id, 2)
    response = client.patch(
        f"/api/projects/@current/plugin_configs/{config_id}/",
        data={"enabled": "false"},
        files={"config": (None, '{"defaultNamingConvention": "spaces"}')},
        headers=world.headers(),
    )
    assert response.status_code == 200, response.text
    assert (response.json()["enabled"], response.json()["config"]) == (False, {"defaultNamingConvention": "spaces"})


def test_a_text_body_is_415_and_stores_nothing(client, world):
    response = client.post(url(world), content=b"plugin=2", headers={**world.headers(), "Content-Type": "text/plain"})
    assert (response.status_code, response.json()["code"]) == (415, "unsupported_media_type")
    assert client.get(url(world), headers=world.headers()).json()["count"] == 0
