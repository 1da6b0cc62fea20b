"""Named, recorded schema migrations.

Each migration is a function that receives a :class:`sqlite_utils.Database` and changes the schema; its name
is stored in ``_migrations`` once it has run, and ``PRAGMA user_version`` holds how many have run. A database
made by an older version opens in a newer one: :func:`migrate` runs only the migrations it has not seen, each
in its own transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import sqlite_utils

from .db import connect, transaction

__all__ = ["MIGRATIONS", "migrate", "applied_migrations"]

Migration = Callable[[sqlite_utils.Database], None]


def _foundation(db: sqlite_utils.Database) -> None:
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


def _events(db: sqlite_utils.Database) -> None:
    """Events, persons and groups, laid out for the trend and funnel scans (see docs/storage.md)."""
    conn = db.conn
    conn.execute(
        """
        CREATE TABLE persons (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects(id),
            uuid TEXT NOT NULL,
            properties TEXT NOT NULL DEFAULT '{}',
            is_identified INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL
        )"""
    )
    conn.execute("CREATE UNIQUE INDEX idx_persons_uuid ON persons (project_id, uuid)")
    conn.execute(
        """
        CREATE TABLE person_distinct_ids (
            project_id INTEGER NOT NULL,
            distinct_id TEXT NOT NULL,
            person_id INTEGER NOT NULL REFERENCES persons(id),
            PRIMARY KEY (project_id, distinct_id)
        ) WITHOUT ROWID"""
    )
    conn.execute("CREATE INDEX idx_pdi_person ON person_distinct_ids (person_id)")
    # timestamp and created_at are UTC microseconds since the epoch; person_id is the person the distinct id
    # belongs to now (rewritten when persons merge); group_0..group_4 are the event's group keys by type index.
    conn.execute(
        """
        CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            uuid TEXT NOT NULL,
            project_id INTEGER NOT NULL,
            event TEXT NOT NULL,
            distinct_id TEXT NOT NULL,
            person_id INTEGER NOT NULL,
            timestamp INTEGER NOT NULL,
            properties TEXT NOT NULL DEFAULT '{}',
            elements_chain TEXT NOT NULL DEFAULT '',
            group_0 TEXT, group_1 TEXT, group_2 TEXT, group_3 TEXT, group_4 TEXT,
            created_at INTEGER NOT NULL,
            session_id TEXT GENERATED ALWAYS AS (json_extract(properties, '$."$session_id"')) VIRTUAL
        )"""
    )
    conn.execute("CREATE UNIQUE INDEX idx_events_uuid ON events (project_id, uuid)")
    conn.execute("CREATE INDEX idx_events_event_ts ON events (project_id, event, timestamp, person_id)")
    conn.execute("CREATE INDEX idx_events_person_ts ON events (project_id, person_id, timestamp, event)")
    conn.execute(
        """
        CREATE TABLE group_type_mappings (
            project_id INTEGER NOT NULL,
            group_type TEXT NOT NULL,
            group_type_index INTEGER NOT NULL CHECK (group_type_index BETWEEN 0 AND 4),
            PRIMARY KEY (project_id, group_type),
            UNIQUE (project_id, group_type_index)
        )"""
    )
    conn.execute(
        """
        CREATE TABLE groups (
            project_id INTEGER NOT NULL,
            group_type_index INTEGER NOT NULL,
            group_key TEXT NOT NULL,
            properties TEXT NOT NULL DEFAULT '{}',
            created_at INTEGER NOT NULL,
            PRIMARY KEY (project_id, group_type_index, group_key)
        )"""
    )
    conn.execute(
        """
        CREATE TABLE event_definitions (
            project_id INTEGER NOT NULL,
            name TEXT NOT NULL,
            volume INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL,
            last_seen_at INTEGER NOT NULL,
            PRIMARY KEY (project_id, name)
        )"""
    )
    conn.execute(
        """
        CREATE TABLE property_definitions (
            project_id INTEGER NOT NULL,
            type INTEGER NOT NULL,
            name TEXT NOT NULL,
            group_type_index INTEGER NOT NULL DEFAULT -1,
            property_type TEXT,
            is_numerical INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (project_id, type, group_type_index, name)
        )"""
    )


def _actions_and_cohorts(db: sqlite_utils.Database) -> None:
    """Actions (named sets of event matchers) and cohorts (static lists or property rules) that filters use."""
    conn = db.conn
    # steps: JSON list of {event, url, url_matching (contains|regex|exact), properties: [filter...]}
    conn.execute(
        """
        CREATE TABLE actions (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects(id),
            name TEXT NOT NULL,
            description TEXT NOT NULL DEFAULT '',
            steps TEXT NOT NULL DEFAULT '[]',
            deleted INTEGER NOT NULL DEFAULT 0,
            created_by_id INTEGER REFERENCES users(id),
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX idx_actions_project ON actions (project_id, deleted)")
    # filters: PostHog's cohort filters, {"properties": {"type": "AND"|"OR", "values": [...]}}; static
    # cohorts list their members in cohort_people instead.
    conn.execute(
        """
        CREATE TABLE cohorts (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects(id),
            name TEXT NOT NULL,
            description TEXT NOT NULL DEFAULT '',
            is_static INTEGER NOT NULL DEFAULT 0,
            filters TEXT NOT NULL DEFAULT '{}',
            deleted INTEGER NOT NULL DEFAULT 0,
            created_by_id INTEGER REFERENCES users(id),
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX idx_cohorts_project ON cohorts (project_id, deleted)")
    conn.execute(
        """
        CREATE TABLE cohort_people (
            cohort_id INTEGER NOT NULL REFERENCES cohorts(id),
            person_id INTEGER NOT NULL REFERENCES persons(id),
            PRIMARY KEY (cohort_id, person_id)
        ) WITHOUT ROWID"""
    )


def _query_results(db: sqlite_utils.Database) -> None:
    """Cached calculation results, and the status of background calculations that clients poll."""
    conn = db.conn
    conn.execute(
        """
        CREATE TABLE query_cache (
            project_id INTEGER NOT NULL,
            cache_key TEXT NOT NULL,
            payload TEXT NOT NULL,
            last_refresh TEXT NOT NULL,
            interval TEXT,
            date_to TEXT,
            PRIMARY KEY (project_id, cache_key)
        ) WITHOUT ROWID"""
    )
    conn.execute(
        """
        CREATE TABLE query_status (
            id TEXT NOT NULL,
            project_id INTEGER NOT NULL,
            user_id INTEGER,
            cache_key TEXT NOT NULL,
            insight_id INTEGER,
            complete INTEGER NOT NULL DEFAULT 0,
            error INTEGER NOT NULL DEFAULT 0,
            cancelled INTEGER NOT NULL DEFAULT 0,
            error_message TEXT,
            results TEXT,
            start_time TEXT NOT NULL,
            end_time TEXT,
            expiration_time TEXT NOT NULL,
            PRIMARY KEY (project_id, id)
        ) WITHOUT ROWID"""
    )


def _plugin_metrics(db: sqlite_utils.Database) -> None:
    """How many events each plugin config processed and failed on, per UTC hour (hours since the epoch)."""
    db.conn.execute(
        """
        CREATE TABLE plugin_config_metrics (
            plugin_config_id INTEGER NOT NULL REFERENCES plugin_configs(id),
            hour INTEGER NOT NULL,
            successes INTEGER NOT NULL DEFAULT 0,
            failures INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (plugin_config_id, hour)
        ) WITHOUT ROWID"""
    )


def _analysis(db: sqlite_utils.Database) -> None:
    """Timing reports clients send about insights (``insights/timing/``), kept as sent."""
    db.conn.execute(
        """
        CREATE TABLE insight_timings (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects(id),
            user_id INTEGER REFERENCES users(id),
            report TEXT NOT NULL,
            created_at TEXT NOT NULL
        )"""
    )
    db.conn.execute("CREATE INDEX idx_insight_timings_project ON insight_timings (project_id, id)")


MIGRATIONS: list[tuple[str, Migration]] = [
    ("0001_foundation", _foundation),
    ("0002_events", _events),
    ("0003_actions_cohorts", _actions_and_cohorts),
    ("0004_plugin_metrics", _plugin_metrics),
    ("0010_query_results", _query_results),
    ("0011_analysis", _analysis),
]


def applied_migrations(conn: sqlite3.Connection) -> list[str]:
    conn.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    return [row[0] for row in conn.execute("SELECT name FROM _migrations ORDER BY rowid")]


def migrate(path: Path | str) -> list[str]:
    """Bring the database at ``path`` up to date; returns the names of the migrations that ran now."""
    conn = connect(path)
    try:
        done = set(applied_migrations(conn))
        ran: list[str] = []
        for name, migration in MIGRATIONS:
            if name in done:
                continue
            with transaction(conn):
                migration(sqlite_utils.Database(conn))
                conn.execute(
                    "INSERT INTO _migrations (name, applied_at) VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ','now'))",
                    (name,),
                )
                conn.execute(f"PRAGMA user_version = {len(done) + len(ran) + 1}")
            ran.append(name)
        return ran
    finally:
        conn.close()
