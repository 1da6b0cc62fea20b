"""The demo database: a project, a user with an all-scopes key, content to explore, and the demo dataset.

Seeding is idempotent: a database that already has the demo project is left as it is, and its demo key is
shown again (kept raw for the demo user only, see ``store.accounts.remember_demo_key``): a key exported in a
shell or pasted into a notebook keeps working when the server restarts. A new key is issued only when the
kept one was deleted. The events come from :mod:`local_backend.demo_data` (see docs/loading.md).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from ..clock import Clock, format_instant
from ..plugins.demo import seed_plugin_configs
from ..store.accounts import (
    create_personal_api_key,
    delete_keys_with_label,
    get_or_create_user,
    remember_demo_key,
    stored_demo_key,
)
from ..store.insights import create_insight, set_insight_dashboards
from ..store.projects import create_project, get_project
from . import DEFAULT_DEMO_EVENTS, DEFAULT_DEMO_SEED
from .seed import seed_demo_data

__all__ = ["DemoAccess", "seed_demo", "DEMO_EMAIL", "DEMO_PROJECT_NAME"]

DEMO_EMAIL = "analyst@example.com"
DEMO_PROJECT_NAME = "Demo project"
DEMO_KEY_LABEL = "demo"


@dataclass(frozen=True)
class DemoAccess:
    project: dict[str, Any]
    api_key: str
    seeded_now: bool
    events_loaded: int = 0  # events stored by this call (0 when the project was already seeded)


def seed_demo(
    conn: sqlite3.Connection,
    clock: Clock,
    *,
    events: int = DEFAULT_DEMO_EVENTS,
    seed: int = DEFAULT_DEMO_SEED,
    progress: bool = False,
) -> DemoAccess:
    """Seed the demo project (once per database) with ``events`` demo events; return it with the demo key
    (the one issued before when it still exists, else a new one)."""
    instant = clock.now()
    now = format_instant(instant)
    row = conn.execute("SELECT id FROM projects WHERE is_demo = 1 ORDER BY id LIMIT 1").fetchone()
    seeded_now = row is None
    if row is None:
        project = create_project(conn, name=DEMO_PROJECT_NAME, timezone="UTC", now=now, is_demo=True)
    else:
        project = get_project(conn, row["id"]) or {}
    user = get_or_create_user(conn, email=DEMO_EMAIL, now=now, current_project_id=project["id"])
    loaded = 0
    if seeded_now:
        _seed_content(conn, project, user, now)
        loaded = seed_demo_data(conn, project, user, now=instant, events=events, seed=seed, progress=progress).loaded
    key = stored_demo_key(conn, user_id=user["id"])
    if key is None:
        delete_keys_with_label(conn, user_id=user["id"], label=DEMO_KEY_LABEL)
        key = create_personal_api_key(
            conn, user_id=user["id"], scopes=["*"], scoped_projects=None, label=DEMO_KEY_LABEL, now=now
        )
        remember_demo_key(conn, user_id=user["id"], raw=key, now=now)
    return DemoAccess(project=project, api_key=key, seeded_now=seeded_now, events_loaded=loaded)


def _seed_content(conn: sqlite3.Connection, project: dict[str, Any], user: dict[str, Any], now: str) -> None:
    """Plugin configs, dashboards and saved insights for the demo project."""
    for seed in DEMO_SEEDERS:
        seed(conn, project, user, now)


DEMO_SEEDERS: list[Any] = []


def _seed_plugin_configs(conn: sqlite3.Connection, project: dict[str, Any], user: dict[str, Any], now: str) -> None:
    seed_plugin_configs(conn, project, user, now)


DEMO_SEEDERS.append(_seed_plugin_configs)


def _seed_insights(conn: sqlite3.Connection, project: dict[str, Any], user: dict[str, Any], now: str) -> None:
    """A dashboard holding three saved insights an analyst would start from."""
    cursor = conn.execute(
        "INSERT INTO dashboards (project_id, name, description, filters, deleted, created_by_id, created_at,"
        " updated_at) VALUES (?, 'Product health', 'Traffic, engagement and conversion', ?, 0, ?, ?, ?)",
        (project["id"], json.dumps({"date_from": "-30d"}), user["id"], now, now),
    )
    dashboard_id = int(cursor.lastrowid or 0)
    insights = [
        {
            "name": "Pageviews per day",
            "filters": {"insight": "TRENDS", "events": [{"id": "$pageview", "math": "total"}], "interval": "day",
                        "date_from": "-30d"},
        },
        {
            "name": "Daily active users",
            "filters": {"insight": "TRENDS", "events": [{"id": "$pageview", "math": "dau"}], "interval": "day",
                        "date_from": "-30d", "filter_test_accounts": True},
        },
        {
            "name": "Signup to purchase",
            "filters": {"insight": "FUNNELS",
                        "events": [{"id": "signed_up", "order": 0}, {"id": "purchase", "order": 1}],
                        "funnel_window_interval": 14, "funnel_window_interval_type": "DAY", "date_from": "-30d"},
        },
    ]  # fmt: skip
    for values in insights:
        insight_id = create_insight(
            conn, project_id=project["id"], user_id=user["id"], values={**values, "saved": True}, now=now
        )
        set_insight_dashboards(conn, insight_id, [dashboard_id])


DEMO_SEEDERS.append(_seed_insights)
