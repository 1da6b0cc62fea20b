"""Plugin configs of the demo project: a bot filter and an $ip filter running, a taxonomy config switched off.

The property filter is stored at config schema version 1 on purpose, so ``migrate`` has something to do.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from ..store.activity import log_activity
from ..store.plugin_configs import insert_plugin_config
from .configs import ACTIVITY_SCOPE, create_config
from .property_filter import PLUGIN as PROPERTY_FILTER

__all__ = ["seed_plugin_configs"]


def seed_plugin_configs(conn: sqlite3.Connection, project: dict[str, Any], user: dict[str, Any], now: str) -> None:
    project_id, user_id = int(project["id"]), int(user["id"])
    create_config(
        conn,
        project_id=project_id,
        user_id=user_id,
        fields={"plugin": 4, "order": 1, "enabled": True, "config": {"extra_patterns": "insightlab-monitor"}},
        now=now,
    )
    old_filter = insert_plugin_config(
        conn,
        project_id=project_id,
        plugin_id=PROPERTY_FILTER.id,
        order=2,
        config={"properties": "$ip"},
        config_schema_version=1,
        now=now,
        enabled=True,
        name="Drop IP addresses",
    )
    log_activity(
        conn,
        project_id=project_id,
        scope=ACTIVITY_SCOPE,
        item_id=old_filter,
        activity="created",
        user_id=user_id,
        detail={"name": "Drop IP addresses"},
        now=now,
    )
    create_config(
        conn,
        project_id=project_id,
        user_id=user_id,
        fields={"plugin": 2, "order": 3, "enabled": False, "config": {"defaultNamingConvention": "snake_case"}},
        now=now,
    )
