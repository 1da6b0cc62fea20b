"""Migration: events, persons and groups, laid out for the trend and funnel scans (see docs/storage.md)."""

from __future__ import annotations

import sqlite_utils

__all__ = ["apply"]


def apply(db: sqlite_utils.Database) -> None:
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
