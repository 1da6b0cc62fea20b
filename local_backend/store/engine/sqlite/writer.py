"""Writes of events on the SQLite engine: the events table of the SQLite file, in the caller's transaction.

One store and one transaction per write: a capture group, a bulk-load batch or a plugin job's rewrite is
stored by SQLite's ``COMMIT`` or not at all, so nothing needs taking back and :meth:`before_commit` always
answers True (every crash point of a write is passed).

A materialized property's column of ``events`` (its triggers, its index, the backfill) belongs to the metadata
(:mod:`local_backend.store.materialized`), which makes it whatever the engine; there is nothing more to store
here.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..interface import EventRewrite, EventRow, RewriteJudge, StoredRow

__all__ = ["SQLiteEventWriter", "SQLiteTransactionWrites", "STORED_EVENTS_SQL"]

_INSERT = (
    "INSERT INTO events (uuid, project_id, event, distinct_id, person_id, timestamp, properties,"
    " group_0, group_1, group_2, group_3, group_4, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)

# The next batch of a range's events, in id order. NOT INDEXED walks the table by id from the last one read,
# so a rewrite reads each row once; left to itself SQLite picked an index on project_id, read every row of the
# project for each batch and sorted them by id (97 s of a 150 s job over 1M events).
STORED_EVENTS_SQL = (
    "SELECT id, uuid, event, distinct_id, properties, timestamp FROM events NOT INDEXED WHERE project_id = ?"
    " AND timestamp BETWEEN ? AND ? AND id > ? ORDER BY id LIMIT ?"
)


class SQLiteTransactionWrites:
    """The events of one write transaction, inserted as they come (SQLite's savepoints undo a failed request)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def stored_uuids(self, project_id: int, uuids: Sequence[str]) -> set[str]:
        """Content uuids lead with the event's time, so a batch of a file in time order spans a range no stored
        event falls in, and one probe of the uuid index settles the whole batch."""
        probe = self.conn.execute(
            "SELECT 1 FROM events WHERE project_id = ? AND uuid BETWEEN ? AND ? LIMIT 1",
            (project_id, min(uuids), max(uuids)),
        ).fetchone()
        if probe is None:
            return set()
        return {
            row[0]
            for row in self.conn.execute(
                "SELECT uuid FROM events WHERE project_id = ? AND uuid IN (SELECT value FROM json_each(?))",
                (project_id, json.dumps(list(uuids))),
            )
        }

    def add_events(
        self,
        project_id: int,
        rows: Sequence[EventRow],
        *,
        persons: Sequence[tuple[int, str, str, int]] = (),
        merges: Sequence[tuple[int, int]] = (),
        groups: Sequence[tuple[int, str, str, int]] = (),
    ) -> None:
        # persons, merges and groups are SQLite's own rows already (the person rules moved the events of a
        # merged person in the same transaction)
        self.conn.executemany(_INSERT, rows)

    def mark(self) -> None:
        return None

    def rollback_to(self, mark: Any) -> None:
        pass  # the request's savepoint took its rows back

    def before_commit(self) -> bool:
        return True

    def after_commit(self) -> None:
        pass


class SQLiteEventWriter:
    """Event writes on the SQLite engine (see the module docstring)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    @contextmanager
    def transaction_writes(self) -> Iterator[SQLiteTransactionWrites]:
        yield SQLiteTransactionWrites(self.conn)

    def rewrite_events(self, request: EventRewrite, judge: RewriteJudge) -> None:
        """Rewritten in the caller's transaction, in batches of ``batch_size`` rows in id order."""
        conn, last_id = self.conn, 0
        while True:
            rows = conn.execute(
                STORED_EVENTS_SQL, (request.project_id, request.lower, request.upper, last_id, request.batch_size)
            ).fetchall()
            if not rows:
                return
            last_id = rows[-1][0]
            renames: list[tuple[str, str, int]] = []
            updates: list[tuple[str, int]] = []
            deletes: list[tuple[int]] = []
            for row_id, event_uuid, event, distinct_id, properties, timestamp in rows:
                stored = StoredRow(request.project_id, event_uuid, event, distinct_id, properties, timestamp)
                outcome = judge.judge(stored)
                if outcome.kind == "dropped":
                    deletes.append((row_id,))
                elif outcome.kind == "changed" and outcome.event != event:
                    renames.append((outcome.event, outcome.properties, row_id))
                elif outcome.kind == "changed":
                    updates.append((outcome.properties, row_id))
            # the name only where it changed: setting it rewrites every index that holds it, even to the same name
            conn.executemany("UPDATE events SET event = ?, properties = ? WHERE id = ?", renames)
            conn.executemany("UPDATE events SET properties = ? WHERE id = ?", updates)
            conn.executemany("DELETE FROM events WHERE id = ?", deletes)

    def add_property_column(self, column: str, key: str) -> None:
        pass  # the column of ``events`` is the metadata's (see the module docstring)

    def drop_property_column(self, column: str) -> None:
        pass
