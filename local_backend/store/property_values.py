"""The values an event property has taken, most frequent first: the suggestions of a filter's value field.

PostHog answers ``/events/values/?key=...`` from recent events; here the newest `VALUES_SAMPLE` events of the
project (of the given event names, when some are given) are read. Missing, null and empty values are left out;
``true``/``false`` read as text, numbers as their text.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from .event_store import event_store

__all__ = ["VALUES_LIMIT", "VALUES_SAMPLE", "event_property_values"]

VALUES_LIMIT = 10
"""Values returned at most (PostHog's suggestion list is as short)."""
VALUES_SAMPLE = 10_000
"""Newest events read to find them: enough for suggestions, bounded on a project of millions of events."""


def event_property_values(
    conn: sqlite3.Connection,
    project_id: int,
    key: str,
    *,
    event_names: Sequence[str] = (),
    search: str | None = None,
    limit: int = VALUES_LIMIT,
) -> list[str]:
    """Distinct values of event property ``key``, most frequent first (ties by value), containing ``search``
    (case-insensitive) when given."""
    dialect = event_store(conn).dialect
    value_sql, value_params = dialect.text("recent.properties", key)
    where = ["project_id = ?"]
    params: list[object] = [project_id]
    if event_names:
        where.append(f"event IN ({', '.join('?' for _ in event_names)})")
        params.extend(event_names)
    sample = f"SELECT properties FROM events WHERE {' AND '.join(where)} ORDER BY timestamp DESC LIMIT {VALUES_SAMPLE}"
    matching = f"AND {dialect.find('value')}" if search else ""
    sql = (
        f"SELECT value, count(*) AS seen FROM (SELECT {value_sql} AS value FROM ({sample}) AS recent)"
        f" WHERE value NOT IN ('', 'null') {matching} GROUP BY value ORDER BY seen DESC, value LIMIT ?"
    )
    rows = conn.execute(sql, [*value_params, *params, *([search] if search else []), limit]).fetchall()
    return [str(row[0]) for row in rows]
