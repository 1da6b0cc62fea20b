"""Which properties recent queries filtered or broke down by, and the automatic choice of what to materialize.

Each compiled filter or breakdown on an event or person property adds one use for that day
(:func:`record_use`, one small upsert, at most once per key per calculation). :func:`auto_materialize` keeps
the ``limit`` most-used properties of the last :data:`USAGE_DAYS` days materialized: it claims those not yet
materialized and withdraws the automatic claims that fell out of the top. Claims made by hand are never
withdrawn by it and do not count against the limit.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass, field
from datetime import date

from ..config import DEFAULT_MATERIALIZE_AUTO_LIMIT as DEFAULT_AUTO_LIMIT
from ..errors import ValidationError
from .materialized import KINDS, MAX_KEY_LENGTH, drop_materialized, materialize

__all__ = ["USAGE_DAYS", "DEFAULT_AUTO_LIMIT", "AutoChoice", "record_use", "most_used", "auto_materialize"]

USAGE_DAYS = 30
_log = logging.getLogger(__name__)


@dataclass
class AutoChoice:
    """What :func:`auto_materialize` did: ``(type, property)`` pairs claimed and withdrawn."""

    added: list[tuple[str, str]] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)
    kept: list[tuple[str, str]] = field(default_factory=list)


def record_use(conn: sqlite3.Connection, project_id: int, kind: str, key: str, day: date) -> None:
    """Count one use of property ``key``; a statistic, so a busy database or an open transaction skips it."""
    if kind not in KINDS or not key or len(key) > MAX_KEY_LENGTH or conn.in_transaction:
        return
    try:
        conn.execute(
            "INSERT INTO property_usage (project_id, kind, key, day, uses) VALUES (?, ?, ?, ?, 1)"
            " ON CONFLICT (project_id, kind, key, day) DO UPDATE SET uses = uses + 1",
            [project_id, kind, key, day.isoformat()],
        )
    except sqlite3.OperationalError as error:  # locked or read only: the use is not counted, the query runs
        _log.debug("property use not recorded: %s", error)


def most_used(conn: sqlite3.Connection, project_id: int, today: date, limit: int) -> list[tuple[str, str, int]]:
    """``(type, property, uses)`` of the last :data:`USAGE_DAYS` days, most used first, ties by name."""
    since = date.fromordinal(today.toordinal() - USAGE_DAYS + 1).isoformat()
    rows = conn.execute(
        "SELECT kind, key, sum(uses) AS n FROM property_usage WHERE project_id = ? AND day >= ?"
        " GROUP BY kind, key ORDER BY n DESC, kind, key LIMIT ?",
        [project_id, since, limit],
    ).fetchall()
    return [(kind, key, int(uses)) for kind, key, uses in rows]


def auto_materialize(conn: sqlite3.Connection, project_id: int, *, limit: int, today: date, now: str) -> AutoChoice:
    """Make the automatic claims the ``limit`` most-used properties (columns still to backfill are left to
    the caller: :func:`local_backend.store.materialized.backfill`)."""
    if limit < 0:
        raise ValidationError("limit cannot be negative.", attr="limit")
    wanted = {(kind, key) for kind, key, _ in most_used(conn, project_id, today, limit)}
    claims = {
        (kind, key): source
        for kind, key, source in conn.execute(
            "SELECT kind, key, source FROM materialized_properties WHERE project_id = ?", [project_id]
        )
    }
    choice = AutoChoice()
    for kind, key in sorted(claims):
        if claims[(kind, key)] == "auto" and (kind, key) not in wanted:
            drop_materialized(conn, project_id, key, kind=kind)
            choice.dropped.append((kind, key))
    for kind, key in sorted(wanted):
        if (kind, key) in claims:
            choice.kept.append((kind, key))
            continue
        try:
            materialize(conn, project_id, key, kind=kind, source="auto", now=now)
        except ValidationError:  # a key no column can hold (quotes): it stays read from the JSON
            continue
        choice.added.append((kind, key))
    return choice
