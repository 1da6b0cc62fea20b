"""Migration: an index on each event's session, for session-duration filters, maths and breakdowns.

A session's duration is the time from its first to its last event; trends read it per event (filters,
breakdowns) or per session (``$session_duration`` math). Without this index every such read scans the
project's events.
"""

from __future__ import annotations

import sqlite_utils

__all__ = ["apply"]


def apply(db: sqlite_utils.Database) -> None:
    db.conn.execute("CREATE INDEX IF NOT EXISTS idx_events_session ON events (project_id, session_id, timestamp)")
