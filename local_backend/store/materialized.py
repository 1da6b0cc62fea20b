"""Materialized properties: a property promoted to a column of its own, with an index, as PostHog's ``mat_*``.

A column holds exactly what a hot-property column holds (:mod:`.hot_properties`): ``'true'``/``'false'`` for
JSON booleans, otherwise ``json_extract(properties, '$."<key>"')``; it has no declared type, so it compares
as that value does. The compilers read it only where that cannot change the answer, and only once it holds a
value for every row (``state = 'ready'``).

* An **event** property becomes a real column of ``events`` (``mat_<name>_<hash>``). Triggers fill it for
  every inserted row and every change of ``properties``; existing rows are backfilled by id range in
  :data:`BACKFILL_BATCH` rows per transaction, so capture waits at most one batch. A partial index
  ``(project_id, event, column, timestamp) WHERE column IS NOT NULL`` serves filters on it; built while the
  column is still empty, it holds no entries and costs one read of the table.
* A **person** property becomes a VIRTUAL generated column of ``persons`` (``pmat_<name>_<hash>``) with an
  index ``(project_id, column)``: persons are few, so the index is built in one statement.

The column is shared by every project that materializes the same property; ``materialized_properties`` says
which projects asked for it. Dropping a project's last claim on a column drops the column (and, on a
ClickHouse engine, the events table's stored column: :mod:`.engine.clickhouse.stored_columns`).
"""

from __future__ import annotations

import hashlib
import logging
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import NotFound, ValidationError
from .db import transaction
from .engine.choice import event_writer
from .projects import get_project

__all__ = [
    "BACKFILL_BATCH",
    "MAX_KEY_LENGTH",
    "KINDS",
    "MaterializedColumns",
    "Progress",
    "check_key",
    "column_name",
    "materialized_columns",
    "list_materialized",
    "materialize",
    "backfill",
    "backfill_pending",
    "drop_materialized",
]

log = logging.getLogger("local_backend.store")

BACKFILL_BATCH = 50_000
MAX_KEY_LENGTH = 200
KINDS = ("event", "person")
_SLUG = re.compile(r"[^a-z0-9]+")

Progress = Callable[[int, int], None]
"""Called after each backfill batch with (rows done, rows in all)."""


@dataclass(frozen=True)
class MaterializedColumns:
    """A project's ready columns, by property key: ``event`` on ``events``, ``person`` on ``persons``."""

    event: dict[str, str] = field(default_factory=dict)
    person: dict[str, str] = field(default_factory=dict)


def check_key(key: Any, attr: str = "property") -> str:
    """``key`` when it can name a materialized property; a 400 naming ``attr`` otherwise."""
    if not isinstance(key, str) or not key:
        raise ValidationError("A property name is required.", attr=attr)
    if len(key) > MAX_KEY_LENGTH:
        raise ValidationError(f"A property name has at most {MAX_KEY_LENGTH} characters.", attr=attr)
    if any(ch in key for ch in "\"'\\") or any(ord(ch) < 32 for ch in key):
        raise ValidationError(
            "A materialized property name cannot hold quotes, backslashes or control characters.", attr=attr
        )
    return key


def check_kind(kind: Any, attr: str = "type") -> str:
    if kind not in KINDS:
        raise ValidationError("type must be 'event' or 'person'.", attr=attr)
    return str(kind)


def column_name(kind: str, key: str) -> str:
    """The column for property ``key`` of ``kind``: readable, and unique by a hash of the exact key."""
    slug = _SLUG.sub("_", key.lower()).strip("_")[:40] or "p"
    digest = hashlib.sha1(f"{kind}:{key}".encode()).hexdigest()[:8]
    return f"{'mat' if kind == 'event' else 'pmat'}_{slug}_{digest}"


def _value_sql(source: str, key: str) -> str:
    """The hot-column expression over ``source`` (checked keys only: no quotes reach the literal)."""
    path = f"'$.\"{key}\"'"
    return (
        f"(CASE json_type({source}, {path}) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'"
        f" ELSE json_extract({source}, {path}) END)"
    )


def materialized_columns(conn: sqlite3.Connection, project_id: int) -> MaterializedColumns:
    """The columns a calculation for ``project_id`` may read (backfilled ones only); none on a connection
    without the registry (an events table made by hand), which then reads every property from the JSON."""
    try:
        rows = conn.execute(
            "SELECT p.kind, p.key, c.column_name FROM materialized_properties p JOIN materialized_columns c"
            " ON c.kind = p.kind AND c.key = p.key WHERE p.project_id = ? AND c.state = 'ready'",
            [project_id],
        ).fetchall()
    except sqlite3.OperationalError:
        return MaterializedColumns()
    found = MaterializedColumns()
    for kind, key, column in rows:
        (found.event if kind == "event" else found.person)[key] = column
    return found


def list_materialized(conn: sqlite3.Connection, project_id: int) -> list[dict[str, Any]]:
    """The project's materialized properties with their column, state, why, and recorded uses (30 days)."""
    _project(conn, project_id)
    rows = conn.execute(
        "SELECT p.kind, p.key, p.source, p.created_at, c.column_name, c.state, c.backfill_from, c.backfill_to,"
        " (SELECT coalesce(sum(u.uses), 0) FROM property_usage u WHERE u.project_id = p.project_id"
        "  AND u.kind = p.kind AND u.key = p.key AND u.day >= date('now', '-30 days'))"
        " FROM materialized_properties p JOIN materialized_columns c ON c.kind = p.kind AND c.key = p.key"
        " WHERE p.project_id = ? ORDER BY p.kind, p.key",
        [project_id],
    ).fetchall()
    return [
        {
            "property": key,
            "type": kind,
            "column": column,
            "state": state,
            "source": source,
            "created_at": created_at,
            "backfill_remaining": max(0, upto - start) if state == "backfilling" else 0,
            "uses_30_days": int(uses),
        }
        for kind, key, source, created_at, column, state, start, upto, uses in rows
    ]


def _project(conn: sqlite3.Connection, project_id: int) -> None:
    if get_project(conn, project_id) is None:
        raise NotFound(f"Project {project_id} does not exist.")


def _columns_of(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_xinfo({table})")}


def materialize(
    conn: sqlite3.Connection, project_id: int, key: str, *, kind: str = "event", source: str = "manual", now: str
) -> str:
    """Claim ``key`` for ``project_id``, adding its column, triggers and index when new; returns the column.

    An event column starts ``backfilling``: call :func:`backfill` (it is safe to call again after a crash).
    """
    key, kind = check_key(key), check_kind(kind)
    if not (key.isascii() and key.isprintable()):
        # SQLite compares a quoted path label with the key as spelt in the stored text, and other characters
        # are spelt raw by capture and as \u escapes by a plugin's reprocessing: the column would miss some
        # rows (the queries' dialect reads such keys by their decoded name)
        raise ValidationError(
            "A materialized property name holds printable ASCII only (a key in another script stays read from"
            " the JSON).",
            attr="property",
        )
    _project(conn, project_id)
    column = column_name(kind, key)
    with transaction(conn):
        exists = conn.execute("SELECT 1 FROM materialized_columns WHERE column_name = ?", [column]).fetchone()
        claimed = conn.execute(
            "SELECT 1 FROM materialized_properties WHERE project_id = ? AND kind = ? AND key = ?",
            [project_id, kind, key],
        ).fetchone()
        if not exists:
            if kind == "event":
                _add_event_column(conn, column, key)
            else:
                _add_person_column(conn, column, key)
        conn.execute(
            "INSERT INTO materialized_properties (project_id, kind, key, source, created_at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (project_id, kind, key) DO UPDATE SET source = CASE WHEN excluded.source = 'manual'"
            " THEN 'manual' ELSE source END",
            [project_id, kind, key, source, now],
        )
    if kind == "event":
        try:
            _store_in_engine(conn, column, key)
        except Exception:
            # the engine has no column for it: a claim left behind would be listed ready and read by name
            if not claimed:
                _withdraw(conn, project_id, kind, key, column)
            raise
    return column


def _withdraw(conn: sqlite3.Connection, project_id: int, kind: str, key: str, column: str) -> None:
    """Take back a claim :func:`materialize` just made, the column with it when no other project claims it."""
    if _remove_claim(conn, project_id, kind, key, column):
        try:
            _drop_in_engine(conn, column)
        except Exception:  # noqa: BLE001 - the failure being undone is the one to report
            log.warning("materialized column %s could not be dropped from the event engine", column)


def _store_in_engine(conn: sqlite3.Connection, column: str, key: str) -> None:
    """The property as a stored column of the event engine's events too (on ClickHouse, PostHog's mat_*)."""
    event_writer(conn).add_property_column(column, key)


def _add_event_column(conn: sqlite3.Connection, column: str, key: str) -> None:
    if column not in _columns_of(conn, "events"):
        conn.execute(f"ALTER TABLE events ADD COLUMN {column}")  # no type: no affinity, compares as the JSON does
    value = _value_sql("NEW.properties", key)
    # an event without the key keeps NULL, which is its value: only events carrying the key pay for an update
    conn.execute(
        f"CREATE TRIGGER IF NOT EXISTS {column}_insert AFTER INSERT ON events"
        f" WHEN json_type(NEW.properties, '$.\"{key}\"') IS NOT NULL"
        f" BEGIN UPDATE events SET {column} = {value} WHERE id = NEW.id; END"
    )
    conn.execute(
        f"CREATE TRIGGER IF NOT EXISTS {column}_update AFTER UPDATE OF properties ON events"
        f" BEGIN UPDATE events SET {column} = {value} WHERE id = NEW.id; END"
    )
    conn.execute(
        f"CREATE INDEX IF NOT EXISTS idx_{column} ON events (project_id, event, {column}, timestamp)"
        f" WHERE {column} IS NOT NULL"
    )
    # rows up to today's last id are the backfill's; every later row is filled by the insert trigger
    last = conn.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()[0]
    conn.execute(
        "INSERT INTO materialized_columns (column_name, kind, key, state, backfill_from, backfill_to)"
        " VALUES (?, 'event', ?, ?, 0, ?)",
        [column, key, "backfilling" if last else "ready", last],
    )


def _add_person_column(conn: sqlite3.Connection, column: str, key: str) -> None:
    if column not in _columns_of(conn, "persons"):
        value = _value_sql("properties", key)
        conn.execute(f"ALTER TABLE persons ADD COLUMN {column} GENERATED ALWAYS AS {value} VIRTUAL")
    conn.execute(f"CREATE INDEX IF NOT EXISTS idx_{column} ON persons (project_id, {column})")
    conn.execute(
        "INSERT INTO materialized_columns (column_name, kind, key, state) VALUES (?, 'person', ?, 'ready')",
        [column, key],
    )


def backfill(
    conn: sqlite3.Connection, column: str, *, batch: int = BACKFILL_BATCH, progress: Progress | None = None
) -> int:
    """Fill ``column`` for the rows that existed when it was added, ``batch`` ids per transaction; returns
    the rows updated. Between batches no lock is held, so capture goes on; then the column is ``ready``."""
    row = conn.execute(
        "SELECT key, state, backfill_from, backfill_to FROM materialized_columns WHERE column_name = ?", [column]
    ).fetchone()
    if row is None or row[1] == "ready":
        return 0
    key, _, start, upto = row
    value = _value_sql("properties", key)
    done = 0
    total = max(0, upto - start)
    while start < upto:
        end = min(start + batch, upto)
        with transaction(conn):
            cursor = conn.execute(f"UPDATE events SET {column} = {value} WHERE id > ? AND id <= ?", [start, end])
            conn.execute("UPDATE materialized_columns SET backfill_from = ? WHERE column_name = ?", [end, column])
        done += cursor.rowcount
        if progress is not None:
            progress(total - (upto - end), total)
        start = end
    with transaction(conn):
        conn.execute("UPDATE materialized_columns SET state = 'ready' WHERE column_name = ?", [column])
    return done


def backfill_pending(conn: sqlite3.Connection) -> int:
    """Fill every column still backfilling (each resumes where it stopped); returns the rows updated."""
    pending = [row[0] for row in conn.execute("SELECT column_name FROM materialized_columns WHERE state != 'ready'")]
    return sum(backfill(conn, column) for column in pending)


def drop_materialized(conn: sqlite3.Connection, project_id: int, key: str, *, kind: str = "event") -> None:
    """Withdraw the project's claim; the column, its triggers and index go when no project claims it (on a
    ClickHouse engine, the events table's stored column too)."""
    key, kind = check_key(key), check_kind(kind)
    _project(conn, project_id)
    column = column_name(kind, key)
    if _remove_claim(conn, project_id, kind, key, column):
        # after the registry: from here no calculation names the column, so none reads it while it goes
        _drop_in_engine(conn, column)


def _remove_claim(conn: sqlite3.Connection, project_id: int, kind: str, key: str, column: str) -> bool:
    """Delete the project's claim, and the column with its triggers and index when it was the last claim;
    True when an event column went (the engine's stored column is the caller's to drop)."""
    with transaction(conn):
        gone = conn.execute(
            "DELETE FROM materialized_properties WHERE project_id = ? AND kind = ? AND key = ?", [project_id, kind, key]
        ).rowcount
        if not gone:
            raise NotFound(f"Property '{key}' is not materialized in project {project_id}.")
        others = conn.execute(
            "SELECT 1 FROM materialized_properties WHERE kind = ? AND key = ?", [kind, key]
        ).fetchone()
        if others:
            return False
        table = "events" if kind == "event" else "persons"
        conn.execute(f"DROP TRIGGER IF EXISTS {column}_insert")
        conn.execute(f"DROP TRIGGER IF EXISTS {column}_update")
        conn.execute(f"DROP INDEX IF EXISTS idx_{column}")
        conn.execute("DELETE FROM materialized_columns WHERE column_name = ?", [column])
        if column in _columns_of(conn, table):
            conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    return kind == "event"


def _drop_in_engine(conn: sqlite3.Connection, column: str) -> None:
    """The property's stored column of the event engine's events goes too."""
    event_writer(conn).drop_property_column(column)
