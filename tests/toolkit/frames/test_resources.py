"""Record frames (insights, plugin configs, plugins, activity, projects, sharing, persons, events)
against frames built by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.testing import assert_frame_equal

from toolkit import frames

from ..fakes import load

UTC = pd.DatetimeTZDtype("ns", "UTC")


def s(*values):
    return pd.array(list(values), dtype="string")


def i(*values):
    return pd.array(list(values), dtype="Int64")


def b(*values):
    return pd.array(list(values), dtype="boolean")


def t(*values):
    return pd.array([pd.NaT if value is None else pd.Timestamp(value) for value in values], dtype=UTC)


def o(*values):
    array = np.empty(len(values), dtype=object)
    array[:] = list(values)
    return array


def test_insights_frame():
    insight = load("insight.json")
    expected = pd.DataFrame(
        {
            "id": i(42),
            "short_id": s("a1B2c3D4"),
            "name": s("Weekly signups"),
            "derived_name": s(None),
            "description": s("Signups per week"),
            "favorited": b(True),
            "saved": b(True),
            "deleted": b(False),
            "tags": o([]),
            "dashboards": o([3]),
            "filters": o(insight["filters"]),
            "query": o(None),
            "result": o(None),
            "last_refresh": t(None),
            "is_cached": b(False),
            "created_at": t("2026-01-14T08:30:00.123456Z"),
            "created_by": s("ann@example.com"),
            "updated_at": t("2026-01-15T10:00:00Z"),
            "last_modified_at": t("2026-01-15T10:00:00Z"),
            "last_modified_by": s("bo@example.com"),
        }
    )
    assert_frame_equal(frames.insights_frame([insight]), expected)


def test_empty_payload_keeps_columns_and_dtypes():
    empty = frames.insights_frame([])
    assert list(empty.columns) == list(frames.INSIGHT_COLUMNS)
    assert str(empty["created_at"].dtype) == "datetime64[ns, UTC]"
    assert str(empty["id"].dtype) == "Int64"
    assert len(empty) == 0


def test_basic_insight_without_result_fields():
    frame = frames.insights_frame([{"id": 1, "short_id": "abcdefgh", "name": None, "favorited": False}])
    assert frame.loc[0, "short_id"] == "abcdefgh"
    assert frame["name"].isna().all() and frame["last_refresh"].isna().all()


def test_plugin_configs_frame():
    config = load("plugin_config.json")
    expected = pd.DataFrame(
        {
            "id": i(7),
            "plugin": i(2),
            "name": s("Property filter"),
            "description": s("Drop properties before storage"),
            "enabled": b(True),
            "order": i(1),
            "deleted": b(False),
            "config": o(config["config"]),
            "error": o(None),
            "delivery_rate_24h": np.array([0.995]),
            "team_id": i(1),
            "created_at": t("2026-01-10T12:00:00Z"),
            "updated_at": t("2026-01-12T12:00:00Z"),
        }
    )
    assert_frame_equal(frames.plugin_configs_frame([config]), expected)


def test_delivery_rate_without_traffic_is_nan():
    frame = frames.plugin_configs_frame([{"id": 1, "delivery_rate_24h": None}])
    assert np.isnan(frame.loc[0, "delivery_rate_24h"])


def test_plugins_frame():
    schema = [{"key": "properties", "type": "string", "required": True}]
    jobs = {"reprocess": {"type": "object"}}
    records = [
        {
            "id": 1,
            "name": "Property filter",
            "description": "Drop properties",
            "url": "builtin://property-filter",
            "plugin_type": "local",
            "config_schema": schema,
            "public_jobs": jobs,
            "icon": None,
        },
    ]
    expected = pd.DataFrame(
        {
            "id": i(1),
            "name": s("Property filter"),
            "description": s("Drop properties"),
            "url": s("builtin://property-filter"),
            "plugin_type": s("local"),
            "config_schema": o(schema),
            "public_jobs": o(jobs),
        }
    )
    assert_frame_equal(frames.plugins_frame(records), expected)


def test_activity_frame():
    entries = load("insight_activity.json")["results"]
    change = {"type": "Insight", "action": "changed", "field": "name", "before": "Signups", "after": "Weekly signups"}
    expected = pd.DataFrame(
        {
            "id": s("018d0c2e-9999-7000-8000-000000000002", "018d0c2e-9999-7000-8000-000000000001"),
            "created_at": t("2026-01-15T10:00:00Z", "2026-01-14T08:30:00Z"),
            "user": s("ann@example.com", "System"),
            "activity": s("updated", "created"),
            "scope": s("Insight", "Insight"),
            "item_id": s("42", "42"),
            "name": s("Weekly signups", "Signups"),
            "short_id": s("a1B2c3D4", "a1B2c3D4"),
            "changes": o([change], None),
        }
    )
    assert_frame_equal(frames.activity_frame(entries), expected)


def test_projects_frame():
    records = [
        {
            "id": 1,
            "uuid": "u-1",
            "organization": "o-1",
            "api_token": "phc_x",
            "name": "Shop",
            "timezone": "Europe/Paris",
            "is_demo": False,
            "ingested_event": True,
            "completed_snippet_onboarding": False,
        },
    ]
    expected = pd.DataFrame(
        {
            "id": i(1),
            "uuid": s("u-1"),
            "name": s("Shop"),
            "api_token": s("phc_x"),
            "timezone": s("Europe/Paris"),
            "is_demo": b(False),
            "ingested_event": b(True),
        }
    )
    assert_frame_equal(frames.projects_frame(records), expected)


def test_sharing_frame():
    record = {"access_token": "tok_30_characters_long_abcdefg", "created_at": "2026-01-15T12:00:00Z", "enabled": True}
    expected = pd.DataFrame(
        {
            "insight_id": i(42),
            "enabled": b(True),
            "access_token": s("tok_30_characters_long_abcdefg"),
            "created_at": t("2026-01-15T12:00:00Z"),
        }
    )
    assert_frame_equal(frames.sharing_frame(record, 42), expected)


def test_persons_frame_prefers_uuid():
    people = load("legacy_funnel_people.json")["results"][0]["people"]
    people.append(
        {
            "id": 77,
            "name": None,
            "distinct_ids": ["x"],
            "properties": {},
            "is_identified": False,
            "created_at": "2026-01-11T00:00:00+01:00",
        }
    )
    expected = pd.DataFrame(
        {
            "id": s("018d0c2e-7a10-7000-8000-000000000001", "77"),
            "name": s("ann@example.com", None),
            "distinct_ids": o(["ann", "anon-1"], ["x"]),
            "properties": o({"email": "ann@example.com"}, {}),
            "is_identified": b(True, False),
            "created_at": t("2026-01-10T09:00:00Z", "2026-01-10T23:00:00Z"),
        }
    )
    assert_frame_equal(frames.persons_frame(people), expected)


def test_events_frame():
    records = [
        {
            "id": "0190-e1",
            "distinct_id": "ann",
            "properties": {"$browser": "Chrome"},
            "event": "$pageview",
            "timestamp": "2026-01-15T11:59:59.5+00:00",
            "person": None,
            "elements": [],
            "elements_chain": "",
        },
    ]
    expected = pd.DataFrame(
        {
            "id": s("0190-e1"),
            "event": s("$pageview"),
            "distinct_id": s("ann"),
            "timestamp": t("2026-01-15T11:59:59.500Z"),
            "properties": o({"$browser": "Chrome"}),
        }
    )
    assert_frame_equal(frames.events_frame(records), expected)
