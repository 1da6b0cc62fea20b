"""Writes: what ingestion, bulk loads, plugin jobs and materialized columns ask of an engine (:class:`EventWriter`).

Contracts: ``docs/storage.md`` ("Writes").
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Literal, Protocol

__all__ = [
    "EVENT_ROW_COLUMNS",
    "EventRow",
    "TransactionWrites",
    "EventRewrite",
    "StoredRow",
    "Rewritten",
    "RewriteJudge",
    "EventWriter",
]

EVENT_ROW_COLUMNS = ("uuid", "project_id", "event", "distinct_id", "person_id", "timestamp", "properties",
                     "group_0", "group_1", "group_2", "group_3", "group_4", "created_at")  # fmt: skip
"""The fields of an :data:`EventRow`, in order."""

EventRow = tuple[Any, ...]
"""An event as ingestion writes it: the values of :data:`EVENT_ROW_COLUMNS` (times in UTC microseconds, the
properties as JSON text, the person the event's person now, after the transaction's merges)."""


class TransactionWrites(Protocol):
    """The event writes of one ingestion write transaction (a group of capture requests, a bulk-load batch).

    They are made inside the SQLite write transaction, whose ``COMMIT`` is the commit point of every store: an
    engine that keeps events elsewhere writes them before it and takes them back if it never happens
    (``docs/ingestion.md``, "A write that spans ClickHouse and SQLite"). Persons, distinct ids, groups and
    definitions are written to SQLite by ingestion itself; an engine that keeps copies of persons, groups and
    merges is handed them with the events.
    """

    def stored_uuids(self, project_id: int, uuids: Sequence[str]) -> set[str]:
        """Those of ``uuids`` already stored in the project, this transaction's own events included."""
        ...

    def add_events(
        self,
        project_id: int,
        rows: Sequence[EventRow],
        *,
        persons: Sequence[tuple[int, str, str, int]] = (),
        merges: Sequence[tuple[int, int]] = (),
        groups: Sequence[tuple[int, str, str, int]] = (),
    ) -> None:
        """Store ``rows``; ``persons`` ``(id, uuid, properties, created_at)`` created or changed, ``merges``
        ``(surviving person, person merged away)`` and ``groups`` ``(type index, key, properties, created_at)``
        are what the transaction wrote to SQLite, for an engine that keeps copies of them."""
        ...

    def mark(self) -> Any:
        """A point to come back to when one request of a group fails (its SQLite savepoint is rolled back)."""
        ...

    def rollback_to(self, mark: Any) -> None:
        """Forget what was added after ``mark``."""
        ...

    def before_commit(self) -> bool:
        """Write what is still held, just before SQLite commits; True when the commit makes a write final (the
        crash points of a write, ``local_backend/crash_points.py``, are passed only then)."""
        ...

    def after_commit(self) -> None:
        """SQLite committed: forget how to take the write back."""
        ...


@dataclass(frozen=True)
class EventRewrite:
    """A project's stored events of ``[lower, upper]`` (inclusive), rewritten all or none.

    ``batch_size``: events read at once by a store that reads them in storage order; ``day_batch_size``: events
    read at once by a store that reads whole days (about that many, in time order).
    """

    project_id: int
    lower: int
    upper: int
    batch_size: int
    day_batch_size: int


@dataclass(frozen=True)
class StoredRow:
    """One stored event as a rewrite hands it to its judge; ``properties`` the stored JSON text."""

    project_id: int
    uuid: str
    event: str
    distinct_id: str
    properties: str
    timestamp: int


@dataclass(frozen=True)
class Rewritten:
    """What one stored event becomes: ``event`` and ``properties`` (JSON text) are its new values when changed;
    ``unchanged`` and ``failed`` leave it as stored."""

    kind: Literal["changed", "dropped", "unchanged", "failed"]
    event: str = ""
    properties: str = ""


class RewriteJudge(Protocol):
    """Decides each stored event of a rewrite (a plugin job), whatever the engine."""

    def judge(self, row: StoredRow) -> Rewritten:
        """The event's outcome."""
        ...

    def note_renamed(self, project_id: int, name: str, timestamp: int) -> None:
        """An event was renamed to ``name`` at ``timestamp`` (also by an earlier rewrite finished now)."""
        ...


class EventWriter(Protocol):
    """Writes of events. Contracts: ``docs/storage.md`` ("The event store interface", writes)."""

    def transaction_writes(self) -> AbstractContextManager[TransactionWrites]:
        """The writes of the SQLite write transaction open on the connection (its write lock held); if the
        block raises, what it wrote is taken back."""
        ...

    def rewrite_events(self, request: EventRewrite, judge: RewriteJudge) -> None:
        """Run every event of the range through ``judge`` and store the outcome: all of it or, on a failure
        before anything is applied, none of it."""
        ...

    def add_property_column(self, column: str, key: str) -> None:
        """A materialized event property ``key`` as the stored column ``column`` (filled for stored events)."""
        ...

    def drop_property_column(self, column: str) -> None:
        """The stored column of a materialized property goes (no error when absent)."""
        ...
