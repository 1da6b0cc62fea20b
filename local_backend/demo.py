"""The demo database: a project, a user with an all-scopes key, and content to explore.

Seeding is idempotent: a database that already has the demo project is left as it is, and only a fresh key
is issued (keys are stored hashed, so the previous one cannot be shown again).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from .clock import Clock, format_instant
from .store.accounts import create_personal_api_key, delete_keys_with_label, get_or_create_user
from .store.projects import create_project

__all__ = ["DemoAccess", "seed_demo", "DEMO_EMAIL", "DEMO_PROJECT_NAME"]

DEMO_EMAIL = "analyst@example.com"
DEMO_PROJECT_NAME = "Demo project"
DEMO_KEY_LABEL = "demo"


@dataclass(frozen=True)
class DemoAccess:
    project: dict[str, Any]
    api_key: str
    seeded_now: bool


def seed_demo(conn: sqlite3.Connection, clock: Clock) -> DemoAccess:
    now = format_instant(clock.now())
    row = conn.execute("SELECT id FROM projects WHERE is_demo = 1 ORDER BY id LIMIT 1").fetchone()
    seeded_now = row is None
    if row is None:
        project = create_project(conn, name=DEMO_PROJECT_NAME, timezone="UTC", now=now, is_demo=True)
    else:
        from .store.projects import get_project

        project = get_project(conn, row["id"]) or {}
    user = get_or_create_user(conn, email=DEMO_EMAIL, now=now, current_project_id=project["id"])
    if seeded_now:
        _seed_content(conn, project, user, now)
    delete_keys_with_label(conn, user_id=user["id"], label=DEMO_KEY_LABEL)
    key = create_personal_api_key(
        conn, user_id=user["id"], scopes=["*"], scoped_projects=None, label=DEMO_KEY_LABEL, now=now
    )
    return DemoAccess(project=project, api_key=key, seeded_now=seeded_now)


def _seed_content(conn: sqlite3.Connection, project: dict[str, Any], user: dict[str, Any], now: str) -> None:
    """Plugin configs, dashboards and saved insights for the demo project."""
    for seed in DEMO_SEEDERS:
        seed(conn, project, user, now)


DEMO_SEEDERS: list[Any] = []


def _seed_plugin_configs(conn: sqlite3.Connection, project: dict[str, Any], user: dict[str, Any], now: str) -> None:
    from .plugins.demo import seed_plugin_configs

    seed_plugin_configs(conn, project, user, now)


DEMO_SEEDERS.append(_seed_plugin_configs)
