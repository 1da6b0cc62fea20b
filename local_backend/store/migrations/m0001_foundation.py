"""Migration: organizations, projects, users, keys, plugin configs, insights, dashboards, sharing, activity."""

from __future__ import annotations

import sqlite_utils

__all__ = ["apply"]


def apply(db: sqlite_utils.Database) -> None:
    db["organizations"].create(
        {"id": int, "uuid": str, "name": str, "created_at": str}, pk="id", not_null={"uuid", "name"}
    )
    db["projects"].create(
        {
            "id": int,
            "uuid": str,
            "organization_id": int,
            "name": str,
            "api_token": str,
            "timezone": str,
            "week_start_day": int,
            "test_account_filters": str,
            "is_demo": int,
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
        not_null={"uuid", "organization_id", "name", "api_token", "timezone", "test_account_filters"},
        defaults={"timezone": "UTC", "test_account_filters": "[]", "is_demo": 0},
        foreign_keys=[("organization_id", "organizations", "id")],
    )
    db["projects"].create_index(["api_token"], unique=True)
    db["users"].create(
        {
            "id": int,
            "uuid": str,
            "distinct_id": str,
            "email": str,
            "first_name": str,
            "last_name": str,
            "is_email_verified": int,
            "hedgehog_config": str,
            "current_project_id": int,
            "created_at": str,
        },
        pk="id",
        not_null={"uuid", "distinct_id", "email", "first_name", "last_name"},
        defaults={"first_name": "", "last_name": "", "is_email_verified": 0},
    )
    db["users"].create_index(["email"], unique=True)
    db["personal_api_keys"].create(
        {
            "id": int,
            "user_id": int,
            "label": str,
            "secure_value": str,
            "mask_value": str,
            "scopes": str,
            "scoped_projects": str,
            "created_at": str,
            "last_used_at": str,
        },
        pk="id",
        not_null={"user_id", "label", "secure_value", "mask_value", "scopes"},
        foreign_keys=[("user_id", "users", "id")],
    )
    db["personal_api_keys"].create_index(["secure_value"], unique=True)
    db["plugin_configs"].create(
        {
            "id": int,
            "project_id": int,
            "plugin_id": int,
            "enabled": int,
            "order": int,
            "config": str,
            "config_schema_version": int,
            "error": str,
            "name": str,
            "description": str,
            "deleted": int,
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
        not_null={"project_id", "plugin_id", "enabled", "order", "config", "deleted"},
        defaults={"enabled": 0, "config": "{}", "deleted": 0, "config_schema_version": 1},
        foreign_keys=[("project_id", "projects", "id")],
    )
    db["plugin_configs"].create_index(["project_id", "deleted", "order"])
    db["dashboards"].create(
        {
            "id": int,
            "project_id": int,
            "name": str,
            "description": str,
            "filters": str,
            "deleted": int,
            "created_by_id": int,
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
        not_null={"project_id", "filters", "deleted"},
        defaults={"filters": "{}", "deleted": 0, "description": ""},
        foreign_keys=[("project_id", "projects", "id"), ("created_by_id", "users", "id")],
    )
    db["insights"].create(
        {
            "id": int,
            "project_id": int,
            "short_id": str,
            "name": str,
            "derived_name": str,
            "description": str,
            "filters": str,
            "query": str,
            "order": int,
            "deleted": int,
            "favorited": int,
            "saved": int,
            "tags": str,
            "is_sample": int,
            "created_by_id": int,
            "created_at": str,
            "updated_at": str,
            "last_modified_at": str,
            "last_modified_by_id": int,
        },
        pk="id",
        not_null={"project_id", "short_id", "filters", "deleted", "favorited", "saved", "tags", "is_sample"},
        defaults={"filters": "{}", "deleted": 0, "favorited": 0, "saved": 0, "tags": "[]", "is_sample": 0},
        foreign_keys=[
            ("project_id", "projects", "id"),
            ("created_by_id", "users", "id"),
            ("last_modified_by_id", "users", "id"),
        ],
    )
    db["insights"].create_index(["project_id", "short_id"], unique=True)
    db["insights"].create_index(["project_id", "deleted", "order"])
    db["dashboard_tiles"].create(
        {"id": int, "dashboard_id": int, "insight_id": int, "deleted": int},
        pk="id",
        not_null={"dashboard_id", "insight_id", "deleted"},
        defaults={"deleted": 0},
        foreign_keys=[("dashboard_id", "dashboards", "id"), ("insight_id", "insights", "id")],
    )
    db["dashboard_tiles"].create_index(["dashboard_id", "insight_id"], unique=True)
    db["dashboard_tiles"].create_index(["insight_id"])
    db["insight_views"].create(
        {"id": int, "project_id": int, "user_id": int, "insight_id": int, "last_viewed_at": str, "view_seq": int},
        pk="id",
        not_null={"project_id", "user_id", "insight_id", "last_viewed_at", "view_seq"},
        foreign_keys=[("user_id", "users", "id"), ("insight_id", "insights", "id")],
    )
    db["insight_views"].create_index(["user_id", "insight_id"], unique=True)
    db["sharing_configurations"].create(
        {"id": int, "project_id": int, "insight_id": int, "enabled": int, "access_token": str, "created_at": str},
        pk="id",
        not_null={"project_id", "insight_id", "enabled", "access_token"},
        defaults={"enabled": 0},
        foreign_keys=[("insight_id", "insights", "id")],
    )
    db["sharing_configurations"].create_index(["insight_id"], unique=True)
    db["sharing_configurations"].create_index(["access_token"], unique=True)
    db["activity_log"].create(
        {
            "seq": int,
            "id": str,
            "project_id": int,
            "scope": str,
            "item_id": str,
            "activity": str,
            "user_id": int,
            "is_system": int,
            "detail": str,
            "created_at": str,
        },
        pk="seq",
        not_null={"id", "project_id", "scope", "activity", "detail", "created_at"},
        defaults={"is_system": 0},
    )
    db["activity_log"].create_index(["project_id", "scope", "item_id", "seq"])
