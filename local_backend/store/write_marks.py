"""High-water marks of a database's writes: numbers handed out once and never again, even after a rollback.

Two marks, each one row of ``write_marks`` (made on first use), raised inside the transaction that uses them:

- ``person_id``: the largest person id ever handed out. A person merged away or deleted leaves its id behind
  (ClickHouse's ``person_overrides`` still maps it to its survivor), so a new person's id comes after this mark,
  not after the largest id stored now.
- ``clickhouse_batch``: the last ClickHouse write whose SQLite transaction committed (see
  :mod:`local_backend.store.engine.clickhouse.journal`): the commit point of a write that spans both stores.
"""

from __future__ import annotations

import sqlite3

__all__ = ["read_mark", "raise_mark", "PERSON_ID", "CLICKHOUSE_BATCH"]

PERSON_ID = "person_id"
CLICKHOUSE_BATCH = "clickhouse_batch"


def read_mark(conn: sqlite3.Connection, name: str) -> int:
    """The mark ``name`` (0 before its first use)."""
    try:
        row = conn.execute("SELECT value FROM write_marks WHERE name = ?", (name,)).fetchone()
    except sqlite3.OperationalError as error:
        if "no such table" not in str(error):
            raise
        return 0
    return int(row[0]) if row else 0


def raise_mark(conn: sqlite3.Connection, name: str, value: int) -> None:
    """Raise the mark ``name`` to ``value`` (never lowers it), inside the caller's transaction."""
    conn.execute("CREATE TABLE IF NOT EXISTS write_marks (name TEXT PRIMARY KEY, value INTEGER NOT NULL)")
    conn.execute(
        "INSERT INTO write_marks (name, value) VALUES (?, ?)"
        " ON CONFLICT (name) DO UPDATE SET value = max(value, excluded.value)",
        (name, value),
    )
