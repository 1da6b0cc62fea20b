"""The ClickHouse side of an ingestion write: rows gathered during one SQLite transaction, inserted before it commits.

Ingestion keeps its one writer path (:mod:`local_backend.ingestion.writer`): persons, distinct ids, groups,
definitions and plugin outcomes are decided and written in SQLite as with the SQLite engine. With a ClickHouse
engine the event rows, and a new version of every person and group the transaction created or changed, are
gathered here instead of inserted into SQLite, and :meth:`PendingWrites.flush` inserts them, a few large
inserts per transaction, just before the SQLite ``COMMIT``. So a capture request is answered once its events are
in ClickHouse, and a failed insert rolls the SQLite side back with it (the same uuids arrive again and are new).
Each flush first puts an undo record of its inserts on disk (:mod:`.journal`): the SQLite ``COMMIT`` is the
commit point, and rows of a transaction that never commits, a crash included, are taken back.

A merge does not rewrite events: ``person_overrides`` gets ``(old person -> surviving person)``, and every
override that pointed at the old person is written again pointing at the survivor, so one lookup resolves any
chain of merges. Versions are microseconds of the writer's clock, strictly increasing in this process.

Deduplication (:meth:`PendingWrites.stored_uuids`) asks ClickHouse which of a batch's uuids are stored and adds
the uuids this transaction already holds, so a uuid sent twice is stored once, within a group of requests too.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any

from ....crash_points import crash_point
from ..interface import EVENT_ROW_COLUMNS
from .client import ClickHouseClient, require
from .journal import WriteJournal

__all__ = ["PendingWrites", "EVENT_COLUMNS", "UUID_CHUNK"]

EVENT_COLUMNS = EVENT_ROW_COLUMNS
# uuids per deduplication query: one JSON parameter each, small enough for a URL to a server
UUID_CHUNK = 20_000

_version_guard = threading.Lock()
_last_version = 0


def next_version() -> int:
    """A version for a replacing table: the clock in microseconds, strictly increasing in this process."""
    global _last_version
    with _version_guard:
        _last_version = max(_last_version + 1, time.time_ns() // 1000)
        return _last_version


class PendingWrites:
    """What one SQLite write transaction sends to ClickHouse (see the module docstring)."""

    def __init__(
        self, client: ClickHouseClient, journal: WriteJournal | None = None, *, conn: sqlite3.Connection | None = None
    ) -> None:
        self.client = client
        self.journal = journal  # written before each insert: what to take back if SQLite never commits
        self.conn = conn  # the SQLite connection whose transaction commits the write (records its mark)
        self._events: list[tuple[Any, ...]] = []  # rows in EVENT_COLUMNS order
        self._event_tables: list[Any] = []  # pyarrow tables already in EVENT_COLUMNS order (bulk load)
        self._persons: list[tuple[int, int, str, str, int]] = []  # project, id, uuid, properties, created_at
        self._groups: list[tuple[int, int, str, str, int]] = []  # project, index, key, properties, created_at
        self._overrides: list[tuple[int, int, int]] = []  # project, old person, surviving person
        self._uuids: dict[int, set[str]] = {}  # project -> uuids held by this transaction

    # --- gathering (savepoints: a failed request's rows are taken back) --------------------------------------

    def mark(self) -> tuple[int, int, int, int, int]:
        return len(self._events), len(self._event_tables), len(self._persons), len(self._groups), len(self._overrides)

    def rollback_to(self, mark: tuple[int, int, int, int, int]) -> None:
        events, tables, persons, groups, overrides = mark
        del self._events[events:], self._event_tables[tables:], self._persons[persons:]
        del self._groups[groups:], self._overrides[overrides:]
        self._uuids = {}
        for row in self._events:
            self._uuids.setdefault(row[1], set()).add(row[0])
        for table in self._event_tables:
            for project_id, event_uuid in zip(table["project_id"].to_pylist(), table["uuid"].to_pylist(), strict=True):
                self._uuids.setdefault(project_id, set()).add(event_uuid)

    def add_events(
        self,
        project_id: int,
        rows: Sequence[tuple[Any, ...]],
        *,
        persons: Sequence[tuple[int, str, str, int]] = (),
        merges: Sequence[tuple[int, int]] = (),
        groups: Sequence[tuple[int, str, str, int]] = (),
    ) -> None:
        """Event rows in :data:`EVENT_COLUMNS` order, all of ``project_id``, with the transaction's new versions
        of persons and groups and its merges (which become overrides)."""
        self.add_merges(project_id, merges)
        self.add_persons(project_id, persons)
        self.add_groups(project_id, groups)
        self._events.extend(rows)
        self._uuids.setdefault(project_id, set()).update(row[0] for row in rows)

    def add_event_table(self, project_id: int, table: Any) -> None:
        """A pyarrow table of events with the columns of :data:`EVENT_COLUMNS`, all of ``project_id``."""
        self._event_tables.append(_with_elements(table.select(list(EVENT_COLUMNS))))
        self._uuids.setdefault(project_id, set()).update(table["uuid"].to_pylist())

    def add_persons(self, project_id: int, rows: Iterable[tuple[int, str, str, int]]) -> None:
        """New versions of persons: ``(id, uuid, properties JSON, created_at)``."""
        self._persons.extend((project_id, *row) for row in rows)

    def add_groups(self, project_id: int, rows: Iterable[tuple[int, str, str, int]]) -> None:
        """New versions of groups: ``(type index, key, properties JSON, created_at)``."""
        self._groups.extend((project_id, *row) for row in rows)

    def add_merges(self, project_id: int, moves: Iterable[tuple[int, int]]) -> None:
        """Persons merged away: ``(surviving person, old person)``, as the SQLite side moves them."""
        moves = list(moves)
        if not moves:
            return
        survivor = dict((old, new) for new, old in moves)
        # overrides already pointing at a person merged away now point at its survivor
        chained = self._pointing_at(project_id, list(survivor))
        for old, via in chained:
            survivor.setdefault(old, survivor[via])
        self._overrides.extend((project_id, old, new) for old, new in survivor.items())

    def _pointing_at(self, project_id: int, people: list[int]) -> list[tuple[int, int]]:
        """``(old person, person)`` of the overrides (stored or pending) whose person is one of ``people``."""
        wanted = set(people)
        found = [(old, new) for project, old, new in self._overrides if project == project_id and new in wanted]
        rows = self.client.query_rows(
            f"SELECT old_person_id, argMax(person_id, version) AS person FROM {self._table('person_overrides')}"
            " WHERE project_id = {project:Int64} GROUP BY old_person_id HAVING has({people:Array(Int64)}, person)",
            {"project": project_id, "people": people},
        )
        return found + [(int(old), int(new)) for old, new in rows]

    # --- reading what is stored -----------------------------------------------------------------------------

    def stored_uuids(self, project_id: int, uuids: Sequence[str]) -> set[str]:
        """Which of ``uuids`` are stored in the project, or held by this transaction."""
        held = self._uuids.get(project_id, set())
        found = {event_uuid for event_uuid in uuids if event_uuid in held}
        distinct = list(set(uuids))
        for start in range(0, len(distinct), UUID_CHUNK):
            found.update(
                row[0]
                for row in self.client.query_rows(
                    f"SELECT DISTINCT uuid FROM {self._table('events')} WHERE project_id = {{project:Int64}}"
                    " AND uuid IN (SELECT arrayJoin(JSONExtract({uuids:String}, 'Array(String)')))",
                    {"project": project_id, "uuids": json.dumps(distinct[start : start + UUID_CHUNK])},
                )
            )
        return found

    # --- inserting --------------------------------------------------------------------------------------------

    def note_copy(self, project_id: int, tables: tuple[str, str, str], first: int, last: int, created_at: int) -> None:
        """A bulk load's copy from its staging tables that follows the next :meth:`flush` (journaled with it)."""
        if self.journal is not None:
            self.journal.add_copy(project_id, tables, first, last, created_at)

    def _journal(self) -> tuple[int, int, int]:
        """Versions for the overrides, persons and groups about to be inserted, each in the journal with the
        events' uuids; the journal goes to disk before any insert."""
        versions = tuple(next_version() if rows else 0 for rows in (self._overrides, self._persons, self._groups))
        journal = self.journal
        if journal is not None:
            journal.add_versions([version for version in versions if version])
            for row in self._events:
                journal.add_events(row[1], [row[0]])
            for table in self._event_tables:
                for project_id, event_uuid in zip(table["project_id"].to_pylist(), table["uuid"].to_pylist(),
                                                  strict=True):  # fmt: skip
                    journal.add_events(project_id, [event_uuid])
            if journal.dirty:
                journal.write()
                crash_point("clickhouse-journaled")
        return versions  # type: ignore[return-value]

    def flush(self) -> None:
        """Insert everything gathered: overrides, persons and groups first, so no event is read before them."""
        if not (self._events or self._event_tables or self._persons or self._groups or self._overrides):
            if self.journal is not None and self.journal.dirty:  # a bulk load's copy alone follows
                self.journal.write()
                crash_point("clickhouse-journaled")
            return
        pa = require("pyarrow")
        int64, text = pa.int64(), pa.string()
        override_version, person_version, group_version = self._journal()
        if self._overrides:
            version = override_version
            # one version for all: a person merged twice in this transaction keeps only its last survivor
            last = {(project, old): new for project, old, new in self._overrides}
            projects, olds, news = zip(*((project, old, new) for (project, old), new in last.items()), strict=True)
            self._insert("person_overrides", pa.table({
                "project_id": pa.array(projects, int64), "old_person_id": pa.array(olds, int64),
                "person_id": pa.array(news, int64), "version": pa.array([version] * len(olds), int64),
            }))  # fmt: skip
        if self._persons:
            version = person_version
            projects, ids, uuids, properties, created = zip(*self._persons, strict=True)
            self._insert("persons", pa.table({
                "project_id": pa.array(projects, int64), "id": pa.array(ids, int64), "uuid": pa.array(uuids, text),
                "properties": pa.array(properties, text), "created_at": pa.array(created, int64),
                "version": pa.array([version] * len(ids), int64),
            }))  # fmt: skip
        if self._groups:
            version = group_version
            projects, indexes, keys, properties, created = zip(*self._groups, strict=True)
            self._insert("groups", pa.table({
                "project_id": pa.array(projects, int64), "group_type_index": pa.array(indexes, pa.uint8()),
                "group_key": pa.array(keys, text), "properties": pa.array(properties, text),
                "created_at": pa.array(created, int64), "version": pa.array([version] * len(keys), int64),
            }))  # fmt: skip
        crash_point("clickhouse-persons")
        tables = list(self._event_tables)
        if self._events:
            tables.insert(0, event_table(self._events))
        if tables:
            self._insert("events", pa.concat_tables(tables) if len(tables) > 1 else tables[0])
        self.__init__(self.client, self.journal, conn=self.conn)  # type: ignore[misc]  # emptied for the next flush

    # --- committing (:class:`~..interface.TransactionWrites`) ---------------------------------------------------

    def before_commit(self) -> bool:
        """Insert what is held and, when anything went to ClickHouse, record the write's number as committed in
        the SQLite transaction (its commit makes the write final); True then, or without a journal."""
        self.flush()
        journal = self.journal
        if journal is None:
            return True
        if journal.written:
            crash_point("clickhouse-inserted")
            if self.conn is None:
                raise RuntimeError("a journaled write needs the SQLite connection that commits it")
            journal.commit(self.conn)
        return journal.written

    def after_commit(self) -> None:
        """SQLite committed: the undo record is no longer needed."""
        if self.journal is not None:
            self.journal.remove()

    def _insert(self, name: str, table: Any) -> None:
        self.client.insert_arrow(self._table(name), table)

    def _table(self, name: str) -> str:
        return f"`{self.client.database}`.{name}"


def event_table(rows: Sequence[tuple[Any, ...]]) -> Any:
    """Event rows in :data:`EVENT_COLUMNS` order as a pyarrow table of the ``events`` columns."""
    pa = require("pyarrow")
    columns = list(zip(*rows, strict=True))
    types = {"project_id": pa.int64(), "person_id": pa.int64(), "timestamp": pa.int64(), "created_at": pa.int64()}
    arrays = {
        name: pa.array(column, types.get(name, pa.string()))
        for name, column in zip(EVENT_COLUMNS, columns, strict=True)
    }
    return _with_elements(pa.table(arrays))


def _with_elements(table: Any) -> Any:
    """``table`` with an empty ``elements_chain`` (capture keeps autocapture elements in the properties)."""
    pa = require("pyarrow")
    return table.append_column("elements_chain", pa.array([""] * table.num_rows, pa.string()))
