"""Migration: a partial index of the events that may be personless.

A lifecycle leaves out events sent with ``$process_person_profile: false``. Testing that property reads every
event's row and its JSON, five times the cost of the index-only scan the rest of a lifecycle needs. The index
holds only the events whose text names the key, or holds an escaped NUL (read in Python, which decodes a key
written with escapes): every other event has no such property, so the store tests just these
(:mod:`local_backend.store.engine.sqlite.person_spans`). Most projects send none, so the index is nearly empty;
building it reads each event's text once, about a second per million events.
"""

from __future__ import annotations

import sqlite_utils

__all__ = ["apply"]


def apply(db: sqlite_utils.Database) -> None:
    db.conn.execute(
        "CREATE INDEX IF NOT EXISTS idx_events_person_profile ON events (project_id, timestamp)"
        " WHERE (instr(properties, '\"$process_person_profile\"') > 0 OR instr(properties, '\\u0000') > 0)"
    )
