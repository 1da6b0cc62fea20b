"""The values an event property has taken, most frequent first: the suggestions of a filter's value field.

PostHog answers ``/events/values/?key=...`` from recent events; here the newest `VALUES_SAMPLE` events of the
project (of the given event names, when some are given) are read. Missing, null and empty values are left out;
``true``/``false`` read as text, numbers as their text.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from .engine.choice import event_store
from .engine.interface import PropertyValues

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
    request = PropertyValues(
        project_id, key, limit, VALUES_SAMPLE, event_names=tuple(event_names), search=search or None
    )
    return event_store(conn).property_values(request)
