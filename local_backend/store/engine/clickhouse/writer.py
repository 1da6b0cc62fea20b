"""Writes of events on a ClickHouse engine: journaled transaction writes, rewrites, stored property columns.

A write transaction's events (and copies of persons, groups and merges) are gathered by
:class:`~.pending_writes.PendingWrites` and inserted just before the SQLite ``COMMIT``, the commit point of both
stores; an undo record (:mod:`.journal`) takes them back if it never happens, here at once when the block
fails, or by the next write transaction after a crash (``docs/ingestion.md``). A plugin job's rewrite is staged
and applied all at once (:mod:`.rewrite`); a materialized property is also a stored column of the events table
(:mod:`.stored_columns`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from ...write_marks import CLICKHOUSE_BATCH, read_mark
from ..interface import EventRewrite, RewriteJudge, StoredRow
from ..spec import database_file
from . import stored_columns
from .client import ClickHouseClient
from .journal import WriteJournal, journal_folder, recover_writes, undo_write
from .pending_writes import PendingWrites
from .rewrite import StagedRewrite, finish_rewrites, stored_event_batches

__all__ = ["ClickHouseEventWriter", "interrupted_writes"]


def interrupted_writes(db_file: str) -> bool:
    """Whether a crash may have left ClickHouse rows of a write that never committed (an undo record on disk);
    answered from the folder alone, without opening the engine."""
    folder = journal_folder(db_file)
    return folder is not None and any(folder.glob("*.json"))


class ClickHouseEventWriter:
    """Event writes on the ClickHouse engine of ``conn``'s database, through ``client``."""

    def __init__(self, conn: sqlite3.Connection, client: ClickHouseClient) -> None:
        self.conn = conn
        self.client = client

    @contextmanager
    def transaction_writes(self) -> Iterator[PendingWrites]:
        """Inside the SQLite write transaction (its write lock held): a write cut short by a crash is taken back
        first, then this one's inserts are journaled, and taken back if the block raises."""
        conn, client, db_file = self.conn, self.client, database_file(self.conn)
        recover_writes(conn, client, db_file)
        journal = WriteJournal(journal_folder(db_file), read_mark(conn, CLICKHOUSE_BATCH) + 1, client.database)
        pending = PendingWrites(client, journal, conn=conn)
        try:
            yield pending
        except BaseException:
            if journal.written:  # SQLite rolls back: take the ClickHouse rows back too
                try:
                    undo_write(client, journal.record())
                except Exception:  # the record stays on disk, and the next write transaction takes the rows back
                    pass
                else:
                    journal.remove()
            raise

    def rewrite_events(self, request: EventRewrite, judge: RewriteJudge) -> None:
        """Staged, then applied at once (:mod:`.rewrite` says what happens when it is interrupted); each batch
        holds whole days, about ``day_batch_size`` events."""
        for project, name, last in finish_rewrites(self.client):  # a rewrite an earlier job left half-applied
            judge.note_renamed(project, name, last)
        with StagedRewrite(self.client) as rewrite:
            batches = stored_event_batches(
                self.client,
                project_id=request.project_id,
                start=request.lower,
                end=request.upper,
                batch_size=request.day_batch_size,
            )
            for batch in batches:
                columns = {name: batch[name].to_pylist() for name in ("uuid", "event", "distinct_id", "properties")}
                timestamps = [int(value) for value in batch["timestamp"].to_pylist()]
                changed: dict[int, tuple[str, str]] = {}
                dropped: list[int] = []
                for index, timestamp in enumerate(timestamps):
                    stored = StoredRow(
                        request.project_id,
                        columns["uuid"][index],
                        columns["event"][index],
                        columns["distinct_id"][index],
                        columns["properties"][index],
                        timestamp,
                    )
                    outcome = judge.judge(stored)
                    if outcome.kind == "dropped":
                        dropped.append(index)
                    elif outcome.kind == "changed":
                        changed[index] = (outcome.event, outcome.properties)
                rewrite.add(batch, changed, dropped)

    def add_property_column(self, column: str, key: str) -> None:
        stored_columns.add_property_column(self.client, column, key)

    def drop_property_column(self, column: str) -> None:
        stored_columns.drop_property_column(self.client, column)
