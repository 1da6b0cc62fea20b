"""The undo record of a ClickHouse write whose SQLite transaction has not committed: SQLite is the commit point.

A capture request or a bulk load batch on a ClickHouse engine writes to two stores: the events (and copies of
persons, groups and merges) into ClickHouse, the persons, distinct ids, groups and definitions into SQLite. The
two cannot commit together, so the SQLite ``COMMIT`` alone decides whether the write happened:

1. Inside the SQLite write transaction, before anything goes to ClickHouse, a :class:`WriteJournal` names the
   write (``batch``: the committed mark + 1) and everything needed to take its ClickHouse rows back: the events'
   uuids (or, for a bulk load, the staging rows it copies) and the versions of the person, group and override
   rows. It is written to ``<db>-clickhouse-journal/<batch>.json`` (a new file, flushed to disk, then renamed
   into place), and written again the same way before each further insert of the transaction.
2. The ClickHouse inserts run.
3. The same SQLite transaction raises the ``clickhouse_batch`` mark (:mod:`local_backend.store.write_marks`) to
   ``batch`` and commits: from here on the write happened, in both stores.
4. The record is removed.

A process killed anywhere in between leaves a record behind. :func:`recover_writes` runs at the start of every
write transaction (and when a load starts), holding SQLite's write lock, so no writer of the same database can be
between steps 1 and 3 meanwhile: a record whose batch is above the mark belongs to a transaction that never
committed, and its ClickHouse rows are deleted (each delete can run again, so a crash during recovery is
recovered next time); a record at or below the mark is only removed. SQLite's own rollback has already taken the
persons and everything else back. So after any crash each write is either in both stores or in neither, and sent
again it is new: its uuids are not stored, so it is not answered as duplicates.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...write_marks import CLICKHOUSE_BATCH, raise_mark, read_mark
from .client import ClickHouseClient

__all__ = ["WriteJournal", "journal_folder", "recover_writes", "undo_write"]

JOURNAL_SUFFIX = "-clickhouse-journal"
_DELETE = " SETTINGS lightweight_deletes_sync = 2"


def journal_folder(db_file: str) -> Path | None:
    """Where the undo records of the SQLite file ``db_file`` live (None for an in-memory database)."""
    return Path(db_file + JOURNAL_SUFFIX) if db_file else None


@dataclass
class WriteJournal:
    """The undo record of one write transaction (see the module docstring)."""

    folder: Path | None
    batch: int
    database: str
    events: dict[str, list[str]] = field(default_factory=dict)  # project id -> uuids inserted
    copies: list[dict[str, Any]] = field(default_factory=list)  # staging rows copied (see add_copy)
    versions: list[int] = field(default_factory=list)  # of person, group and override rows
    written: bool = False  # on disk at least once
    dirty: bool = False  # changed since last written

    @property
    def path(self) -> Path | None:
        return None if self.folder is None else self.folder / f"{self.batch}.json"

    def add_events(self, project_id: int, uuids: list[str]) -> None:
        self.events.setdefault(str(project_id), []).extend(uuids)
        self.dirty = True

    def add_versions(self, versions: list[int]) -> None:
        self.versions.extend(versions)
        self.dirty = True

    def add_copy(self, project_id: int, tables: tuple[str, str, str], first: int, last: int, created_at: int) -> None:
        """A bulk load's copy of its staging rows ``first``..``last`` into ``events``; ``tables`` are the staging
        table, its table of kept rows and its person map, dropped if the write is taken back."""
        table, kept, person_map = tables
        self.copies.append({"project": project_id, "table": table, "kept": kept, "map": person_map, "first": first,
                            "last": last, "created_at": created_at})  # fmt: skip
        self.dirty = True

    def write(self) -> None:
        """Put the record on disk before the inserts it describes (a torn file is never read as a record)."""
        self.written, self.dirty = True, False
        path = self.path
        if path is None:
            return
        path.parent.mkdir(exist_ok=True)
        staged = path.with_suffix(".tmp")
        with open(staged, "w", encoding="utf-8") as handle:
            json.dump(self.record(), handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(staged, path)

    def record(self) -> dict[str, Any]:
        """What :func:`undo_write` reads."""
        return {"batch": self.batch, "database": self.database, "events": self.events, "copies": self.copies,
                "versions": self.versions}  # fmt: skip

    def commit(self, conn: sqlite3.Connection) -> None:
        """Mark the write committed, inside the SQLite transaction that is about to commit."""
        if self.written:
            raise_mark(conn, CLICKHOUSE_BATCH, self.batch)

    def remove(self) -> None:
        path = self.path
        if self.written and path is not None:
            path.unlink(missing_ok=True)


def undo_write(client: ClickHouseClient, record: dict[str, Any]) -> None:
    """Delete the ClickHouse rows of an uncommitted write: its events, then its person, group and override rows,
    then the staging tables of a load it copied from."""
    db = f"`{record['database']}`"
    for project, uuids in record.get("events", {}).items():
        client.command(
            f"DELETE FROM {db}.events WHERE project_id = {{project:Int64}}"
            " AND uuid IN (SELECT arrayJoin(JSONExtract({uuids:String}, 'Array(String)')))" + _DELETE,
            {"project": int(project), "uuids": json.dumps(uuids)},
        )
    for copy in record.get("copies", []):
        if not _exists(client, copy["table"]) or not _exists(client, copy["kept"]):
            continue  # the load dropped its staging table itself, after taking the copy back
        client.command(
            f"DELETE FROM {db}.events WHERE project_id = {{project:Int64}} AND created_at = {{created:Int64}}"
            f" AND uuid IN (SELECT uuid FROM {copy['table']} WHERE row BETWEEN {{first:UInt64}} AND {{last:UInt64}}"
            f" AND row IN (SELECT row FROM {copy['kept']}))" + _DELETE,
            {"project": copy["project"], "created": copy["created_at"], "first": copy["first"],
             "last": copy["last"]},
        )  # fmt: skip
    if record.get("versions"):
        for table in ("person_overrides", "persons", "groups"):
            client.command(
                f"DELETE FROM {db}.{table} WHERE version IN {{versions:Array(Int64)}}" + _DELETE,
                {"versions": record["versions"]},
            )
    for copy in record.get("copies", []):
        for table in (copy["table"], copy["kept"], copy["map"]):
            client.command(f"DROP TABLE IF EXISTS {table}")


def _exists(client: ClickHouseClient, table: str) -> bool:
    database, _, name = table.partition(".")
    rows = client.query_rows(
        "SELECT count() FROM system.tables WHERE database = {database:String} AND name = {name:String}",
        {"database": database.strip("`"), "name": name.strip("`")},
    )
    return bool(int(rows[0][0]))


def recover_writes(conn: sqlite3.Connection, client: ClickHouseClient, db_file: str) -> int:
    """Take back the ClickHouse rows of every write whose SQLite transaction never committed, and remove every
    record; returns how many writes were taken back. The caller holds SQLite's write lock (see the module
    docstring)."""
    folder = journal_folder(db_file)
    if folder is None or not folder.is_dir():
        return 0
    committed = read_mark(conn, CLICKHOUSE_BATCH)
    undone = 0
    for path in sorted(folder.glob("*.json"), key=lambda p: int(p.stem) if p.stem.isdigit() else 0, reverse=True):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            record = None  # never renamed into place whole: nothing was inserted after it
        if isinstance(record, dict) and int(record.get("batch", 0)) > committed:
            undo_write(client, record)
            undone += 1
        path.unlink(missing_ok=True)
    for staged in folder.glob("*.tmp"):
        staged.unlink(missing_ok=True)
    return undone
