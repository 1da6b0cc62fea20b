"""Cached results by (project, cache key), and background calculation statuses."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from .db import transaction

__all__ = [
    "CachedResult",
    "get_cached_result",
    "put_cached_result",
    "drop_cached_results_before",
    "create_query_status",
    "finish_query_status",
    "get_query_status",
    "mark_query_cancelled",
    "find_running_query_ids",
]

CachedResult = dict[str, Any]  # {payload, last_refresh, interval, date_to}


def get_cached_result(conn: sqlite3.Connection, project_id: int, cache_key: str) -> CachedResult | None:
    row = conn.execute(
        "SELECT payload, last_refresh, interval, date_to FROM query_cache WHERE project_id = ? AND cache_key = ?",
        (project_id, cache_key),
    ).fetchone()
    if row is None:
        return None
    return {
        "payload": json.loads(row["payload"]),
        "last_refresh": row["last_refresh"],
        "interval": row["interval"],
        "date_to": row["date_to"],
    }


def put_cached_result(
    conn: sqlite3.Connection,
    *,
    project_id: int,
    cache_key: str,
    payload: dict[str, Any],
    last_refresh: str,
    interval: str | None,
    date_to: str | None,
) -> None:
    with transaction(conn):
        conn.execute(
            "INSERT OR REPLACE INTO query_cache (project_id, cache_key, payload, last_refresh, interval, date_to)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (project_id, cache_key, json.dumps(payload), last_refresh, interval, date_to),
        )


def drop_cached_results_before(conn: sqlite3.Connection, cutoff: str) -> int:
    with transaction(conn):
        return conn.execute("DELETE FROM query_cache WHERE last_refresh < ?", (cutoff,)).rowcount


def create_query_status(
    conn: sqlite3.Connection,
    *,
    query_id: str,
    project_id: int,
    user_id: int | None,
    cache_key: str,
    insight_id: int | None,
    start_time: str,
    expiration_time: str,
) -> None:
    with transaction(conn):
        conn.execute(
            "INSERT OR REPLACE INTO query_status (id, project_id, user_id, cache_key, insight_id, start_time,"
            " expiration_time) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (query_id, project_id, user_id, cache_key, insight_id, start_time, expiration_time),
        )


def finish_query_status(
    conn: sqlite3.Connection,
    *,
    project_id: int,
    query_id: str,
    end_time: str,
    results: Any = None,
    error_message: str | None = None,
) -> None:
    """Record the end of a run; a cancelled run keeps its cancelled state and stores no results."""
    with transaction(conn):
        conn.execute(
            "UPDATE query_status SET complete = 1, end_time = ?, error = ?, error_message = ?, results = ?"
            " WHERE project_id = ? AND id = ? AND cancelled = 0",
            (
                end_time,
                int(error_message is not None),
                error_message,
                json.dumps(results) if error_message is None else None,
                project_id,
                query_id,
            ),
        )


def mark_query_cancelled(conn: sqlite3.Connection, *, project_id: int, query_id: str, end_time: str) -> bool:
    """Mark a run cancelled; False when there is no such run or it had already finished."""
    with transaction(conn):
        return (
            conn.execute(
                "UPDATE query_status SET cancelled = 1, complete = 1, error = 1, error_message = 'Query cancelled',"
                " end_time = ? WHERE project_id = ? AND id = ? AND complete = 0",
                (end_time, project_id, query_id),
            ).rowcount
            > 0
        )


def get_query_status(conn: sqlite3.Connection, project_id: int, query_id: str) -> dict[str, Any] | None:
    row = conn.execute("SELECT * FROM query_status WHERE project_id = ? AND id = ?", (project_id, query_id)).fetchone()
    if row is None:
        return None
    status = dict(row)
    status["results"] = json.loads(status["results"]) if status["results"] else None
    return status


def find_running_query_ids(conn: sqlite3.Connection, project_id: int) -> list[str]:
    return [
        r[0] for r in conn.execute("SELECT id FROM query_status WHERE project_id = ? AND complete = 0", (project_id,))
    ]
