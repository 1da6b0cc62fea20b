"""Each built-in plugin's event function, on hand-written events."""

from __future__ import annotations

import pytest

from local_backend.errors import ValidationError
from local_backend.plugins import bot_filter, downsampling, property_filter, taxonomy
from local_backend.plugins.catalog import PLUGINS, get_plugin, list_plugins
from local_backend.plugins.schema import SECRET_MASK, ConfigField, mask_config, merge_secrets, validate_config

CHROME = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"
)
GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"


def make_event(name: str = "signed up", distinct_id: str = "alice", **properties: object) -> dict:
    return {
        "uuid": "00000000-0000-0000-0000-000000000001",
        "event": name,
        "distinct_id": distinct_id,
        "properties": dict(properties),
        "timestamp": "2026-01-10T10:00:00.000000Z",
        "team_id": 1,
    }


def test_catalog_ids_are_fixed_and_every_plugin_has_a_complete_default_config():
    assert [(p.id, p.slug) for p in list_plugins()] == [
        (1, "property-filter"),
        (2, "taxonomy"),
        (3, "downsampling"),
        (4, "bot-filter"),
        (5, "notification-bar"),
    ]
    for plugin in PLUGINS.values():
        assert validate_config(plugin.config_schema, {}) == plugin.default_config()
    assert get_plugin(99) is None


def test_property_filter_drops_event_and_person_properties():
    event = make_event(
        **{"$ip": "1.2.3.4", "email": "a@x.io", "plan": "pro", "$set": {"email": "a@x.io", "name": "A"}},
        **{"$set_once": {"email": "a@x.io"}},
    )
    out = property_filter.process_event(event, {"event_properties": "$ip, email", "person_properties": "email"})
    assert out["properties"] == {"plan": "pro", "$set": {"name": "A"}, "$set_once": {}}
    assert event["properties"]["$ip"] == "1.2.3.4"  # the input is not changed


def test_property_filter_migration_splits_person_properties_out_of_the_v1_list():
    v1 = {"properties": "$ip, $set.email ,utm_source,$set_once.phone,,$set.email"}
    assert property_filter.migrate_v1_to_v2(v1) == {
        "event_properties": "$ip,utm_source",
        "person_properties": "email,phone",
    }
    assert property_filter.PLUGIN.upgrade_config(v1, 1) == property_filter.migrate_v1_to_v2(v1)
    assert property_filter.PLUGIN.upgrade_config({"event_properties": "a"}, 2) == {"event_properties": "a"}


@pytest.mark.parametrize(
    "name, convention, expected",
    [
        ("User Signed Up", "camelCase", "userSignedUp"),
        ("user_signed_up", "PascalCase", "UserSignedUp"),
        ("userSignedUp", "snake_case", "user_signed_up"),
        ("UserSignedUp", "kebab-case", "user-signed-up"),
        ("user-signed-up", "spaces", "user signed up"),
        ("HTTPRequest failed", "snake_case", "http_request_failed"),
        ("step2 done", "camelCase", "step2Done"),
        ("$pageview", "PascalCase", "$pageview"),
        ("!!!", "camelCase", "!!!"),
    ],
)
def test_taxonomy_renames_to_the_chosen_convention(name, convention, expected):
    out = taxonomy.process_event(make_event(name), {"defaultNamingConvention": convention})
    assert out["event"] == expected


def test_downsampling_keeps_the_same_users_and_roughly_the_share_asked():
    ids = [f"user-{n}" for n in range(2000)]
    config = {"percentage": "25", "salt": ""}
    kept = {d for d in ids if downsampling.process_event(make_event(distinct_id=d), config) is not None}
    again = {d for d in ids if downsampling.process_event(make_event("other", distinct_id=d), config) is not None}
    assert kept == again
    assert 400 < len(kept) < 600  # 25% of 2000 = 500, binomial sd about 19
    salted = {
        d for d in ids if downsampling.process_event(make_event(distinct_id=d), {**config, "salt": "x"}) is not None
    }
    assert salted != kept
    assert all(downsampling.process_event(make_event(distinct_id=d), {"percentage": "0"}) is None for d in ids[:50])
    assert all(downsampling.process_event(make_event(distinct_id=d), {"percentage": "100"}) for d in ids[:50])


@pytest.mark.parametrize(
    "properties, config, kept",
    [
        ({"$user_agent": CHROME}, {}, True),
        ({"$user_agent": GOOGLEBOT}, {}, False),
        ({"$raw_user_agent": "UptimeRobot/2.0; http://www.uptimerobot.com/"}, {}, False),
        ({"$raw_user_agent": "python-requests/2.31.0"}, {}, False),
        ({"$user_agent": "Mozilla/5.0 HeadlessChrome/120.0"}, {}, False),
        ({"$user_agent": CHROME + " AcmeMonitor/1.0"}, {"extra_patterns": "acmemonitor, other"}, False),
        ({"$user_agent": CHROME}, {"extra_patterns": "acmemonitor"}, True),
        ({}, {}, True),
        ({}, {"drop_without_user_agent": "Yes"}, False),
        ({"$user_agent": "  "}, {"drop_without_user_agent": "Yes"}, False),
    ],
)
def test_bot_filter(properties, config, kept):
    out = bot_filter.process_event(make_event(**properties), {"drop_without_user_agent": "No", **config})
    assert (out is not None) is kept


SCHEMA = (
    ConfigField(key="name", name="Name", required=True),
    ConfigField(key="mode", name="Mode", type="choice", choices=("a", "b"), default="a"),
    ConfigField(key="rules", name="Rules", type="json", default="[]"),
    ConfigField(key="token", name="Token", secret=True),
)


def test_validate_config_fills_defaults_and_normalises_json():
    assert validate_config(SCHEMA, {"name": "x", "rules": {"k": 1}}) == {
        "name": "x",
        "mode": "a",
        "rules": '{"k": 1}',
        "token": "",
    }


@pytest.mark.parametrize(
    "submitted, attr, code",
    [
        ({}, "config__name", "required"),
        ({"name": ""}, "config__name", "required"),
        ({"name": "x", "mode": "c"}, "config__mode", "invalid_choice"),
        ({"name": "x", "rules": "{nope"}, "config__rules", "invalid_input"),
        ({"name": ["x"]}, "config__name", "invalid_input"),
        ({"name": "x", "colour": "red"}, "config__colour", "invalid_input"),
    ],
)
def test_validate_config_refuses(submitted, attr, code):
    with pytest.raises(ValidationError) as caught:
        validate_config(SCHEMA, submitted)
    assert (caught.value.attr, caught.value.code) == (attr, code)


def test_secrets_are_masked_and_kept_when_left_out():
    stored = {"name": "x", "token": "s3cret"}
    assert mask_config({"token"}, stored) == {"name": "x", "token": SECRET_MASK}
    assert mask_config({"token"}, {"token": ""}) == {"token": ""}
    assert merge_secrets({"token"}, stored, {"name": "y"}) == {"name": "y", "token": "s3cret"}
    assert merge_secrets({"token"}, stored, {"token": SECRET_MASK}) == {"token": "s3cret"}
    assert merge_secrets({"token"}, stored, {"token": None}) == {"token": "s3cret"}
    assert merge_secrets({"token"}, stored, {"token": "new"}) == {"token": "new"}
