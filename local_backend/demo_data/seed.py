"""Putting the demo dataset into the demo project: events through ingestion, then actions and cohorts.

Events go through :func:`local_backend.ingestion.ingest_events` like captured ones, so persons are merged on
``$identify``, groups are typed (``company`` is group type 0, ``team`` 1) and the demo's plugins run: the bot
filter drops the crawler pageviews and the property filter removes ``$ip``.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from typing import Any

from ..clock import format_instant
from ..loading.loader import DEFAULT_BATCH_SIZE, LoadReport, load_records
from ..store.db import transaction
from ..store.projects import update_project
from . import TEST_ACCOUNT_FILTERS, demo_events
from .catalog import HOST, STAFF_DOMAIN

__all__ = ["seed_demo_data", "DEMO_ACTIONS", "DEMO_COHORT_SIZE"]

DEMO_ACTIONS: list[dict[str, Any]] = [
    {
        "name": "Viewed pricing",
        "description": "Any pageview of the pricing page",
        "steps": [{"event": "$pageview", "url": f"https://{HOST}/pricing", "url_matching": "exact"}],
    },
    {
        "name": "Activated",
        "description": "Finished onboarding or created a first project",
        "steps": [{"event": "onboarding_completed"}, {"event": "project_created"}],
    },
]
DEMO_COHORT_SIZE = 40
PAYING_FILTERS = {
    "properties": {
        "type": "OR",
        "values": [
            {
                "type": "AND",
                "values": [
                    {"key": "plan", "type": "person", "operator": "exact", "value": ["starter", "pro", "enterprise"]},
                    {"key": "email", "type": "person", "operator": "not_icontains", "value": f"@{STAFF_DOMAIN}"},
                ],
            }
        ],
    }
}


def seed_demo_data(
    conn: sqlite3.Connection,
    project: dict[str, Any],
    user: dict[str, Any],
    *,
    now: datetime,
    events: int,
    seed: int,
    progress: bool = False,
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> LoadReport:
    """Load ``events`` demo events (ending at ``now``) into ``project``, then its actions and cohorts."""
    stamp = format_instant(now)
    update_project(conn, int(project["id"]), {"test_account_filters": TEST_ACCOUNT_FILTERS}, stamp)
    report = load_records(
        conn,
        project,
        enumerate(demo_events(events=events, seed=seed, end=now), start=1),
        now=now,
        batch_size=batch_size,
        total=events,
        progress=progress,
        description="demo events",
    )
    with transaction(conn):
        _seed_actions(conn, int(project["id"]), int(user["id"]), stamp)
        _seed_cohorts(conn, int(project["id"]), int(user["id"]), stamp)
    return report


def _seed_actions(conn: sqlite3.Connection, project_id: int, user_id: int, now: str) -> None:
    conn.executemany(
        "INSERT INTO actions (project_id, name, description, steps, deleted, created_by_id, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, 0, ?, ?, ?)",
        [
            (project_id, action["name"], action["description"], json.dumps(action["steps"]), user_id, now, now)
            for action in DEMO_ACTIONS
        ],
    )


def _seed_cohorts(conn: sqlite3.Connection, project_id: int, user_id: int, now: str) -> None:
    """A static "Beta testers" cohort of signed-up customers, and a property-based "Paying customers" one."""
    insert = (
        "INSERT INTO cohorts (project_id, name, description, is_static, filters, deleted, created_by_id,"
        " created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)"
    )
    beta = conn.execute(
        insert,
        (project_id, "Beta testers", "Customers who joined the beta programme", 1, "{}", user_id, now, now),
    ).lastrowid
    conn.execute(
        insert,
        (project_id, "Paying customers", "Customers on a paid plan (staff excluded)", 0,
         json.dumps(PAYING_FILTERS), user_id, now, now),
    )  # fmt: skip
    # Every fifth signed-up customer, by the order they were first seen: the same people for the same seed.
    members = conn.execute(
        "SELECT id FROM persons WHERE project_id = ? AND json_extract(properties, '$.email') IS NOT NULL"
        " AND instr(json_extract(properties, '$.email'), ?) = 0 ORDER BY id",
        (project_id, f"@{STAFF_DOMAIN}"),
    ).fetchall()
    chosen = [row[0] for row in members[::5][:DEMO_COHORT_SIZE]]
    conn.executemany("INSERT INTO cohort_people (cohort_id, person_id) VALUES (?, ?)", [(beta, p) for p in chosen])
