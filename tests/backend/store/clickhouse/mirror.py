"""ClickHouse test databases holding the same events, persons and groups as a SQLite test database.

Calculation tests write their hand-made events through :mod:`tests.factories` into SQLite; :func:`mirror` copies
those rows into a ClickHouse database with the engine's own inserts (``insert_arrow`` into the tables of
:mod:`local_backend.store.engine.clickhouse.schema`), so both engines answer over identical data. The real ingestion
path into ClickHouse is tested where it is built; here only the reads are under test.

chdb allows one session per process: :func:`chdb_client` opens every database in one temporary folder for the
whole run (one session), each test in a database of its own.
"""

from __future__ import annotations

import atexit
import itertools
import shutil
import sqlite3
import tempfile
from typing import Any

import pyarrow as pa

from local_backend.store.engine.clickhouse.client import ChdbClient
from local_backend.store.engine.clickhouse.event_store import ClickHouseEventStore
from local_backend.store.engine.clickhouse.schema import create_tables
from local_backend.store.engine.sqlite.event_store import SQLiteEventStore
from local_backend.store.engine.sqlite.writer import SQLiteEventWriter

__all__ = [
    "chdb_client",
    "mirror",
    "insert_rows",
    "release_database",
    "pooled_database_name",
    "MirroredEngine",
    "MovedEngine",
    "SwitchedEngine",
]

_EVENT_COLUMNS = (
    "project_id", "uuid", "event", "distinct_id", "person_id", "timestamp", "created_at", "properties",
    "elements_chain", "group_0", "group_1", "group_2", "group_3", "group_4",
)  # fmt: skip
_TYPES: dict[str, pa.DataType] = {
    "project_id": pa.int64(),
    "person_id": pa.int64(),
    "old_person_id": pa.int64(),
    "timestamp": pa.int64(),
    "created_at": pa.int64(),
    "id": pa.int64(),
    "version": pa.int64(),
    "group_type_index": pa.uint8(),
}
_numbers = itertools.count(1)
_folder: list[str] = []
_emptied: list[str] = []  # databases a finished test left empty, their tables as made
_layout: dict[str, Any] = {}  # the tables as the engine makes them, see _tables


def _session_folder() -> str:
    """The process's chdb folder: the one already open if another test opened one first (chdb refuses a
    second path in one process)."""
    opened = ChdbClient.open_folder()
    if opened is not None:
        return opened
    if not _folder:
        _folder.append(tempfile.mkdtemp(prefix="insightlab-chdb-"))
        atexit.register(shutil.rmtree, _folder[0], True)
    return _folder[0]


def chdb_client() -> ChdbClient:
    """A client on an empty database holding the engine's tables (one chdb session for the run): one that an
    earlier test emptied when there is one (:func:`release_database`), else a new one. Making the tables takes
    about half a second; emptying them a few milliseconds."""
    reused = bool(_emptied)
    client = ChdbClient.open(_session_folder(), database=pooled_database_name())
    if not reused:
        create_tables(client)
    return client


def pooled_database_name() -> str:
    """The name of an emptied database whose tables are as the engine makes them, or of a new one."""
    return _emptied.pop() if _emptied else f"test_{next(_numbers)}"


def release_database(client: ChdbClient) -> None:
    """The end of a test's database: emptied and kept for the next test while its tables are still exactly as
    the engine makes them, dropped when the test changed them (a materialized column, a staging or rewrite
    table, another statement) or made them some other way."""
    name = client.database
    made = _made_tables(client)
    if _tables(client) == made:
        for table in made:
            client.command(f"TRUNCATE TABLE `{name}`.`{table}`")
        _emptied.append(name)
        return
    client.command(f"DROP DATABASE IF EXISTS `{name}`")


def _made_tables(client: ChdbClient) -> dict[str, Any]:
    """The tables as the engine makes them (see :func:`_tables`), read once from a database made for that."""
    if not _layout:
        reference = ChdbClient.open(_session_folder(), database="made_tables")
        create_tables(reference)
        _layout.update(_tables(reference))
    return _layout


def _tables(client: ChdbClient) -> dict[str, Any]:
    """Each table of the client's database and its layout: engine, keys and columns (name, type, default).

    Read from the system tables' fields rather than each table's CREATE statement, which ClickHouse prints
    anew for every read (measured: 13-20 ms against about 5 ms). Nothing the engine or a test changes is left
    out: no statement of either adds an index, a projection or a table setting."""
    tables = client.query_rows(
        "SELECT name, engine, sorting_key, primary_key, partition_key FROM system.tables WHERE database = {db:String}",
        {"db": client.database},
    )
    columns = client.query_rows(
        "SELECT table, name, type, default_kind, default_expression FROM system.columns"
        " WHERE database = {db:String} ORDER BY table, position",
        {"db": client.database},
    )
    layout: dict[str, Any] = {name: (rest, []) for name, *rest in tables}
    for table, *column in columns:
        layout[table][1].append(tuple(column))
    return {name: (tuple(rest), tuple(found)) for name, (rest, found) in layout.items()}


def insert_rows(client: ChdbClient, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
    """Insert ``rows`` (values in ``columns`` order, the table's own column order) as one Arrow insert."""
    if not rows:
        return
    arrays = {
        name: pa.array([row[index] for row in rows], type=_TYPES.get(name, pa.string()))
        for index, name in enumerate(columns)
    }
    client.insert_arrow(f"`{client.database}`.{table}", pa.table(arrays))


def mirror(conn: sqlite3.Connection, client: ChdbClient) -> None:
    """Copy every event, person and group of the SQLite database into the (empty) ClickHouse database."""
    events = conn.execute(f"SELECT {', '.join(_EVENT_COLUMNS)} FROM events ORDER BY id").fetchall()
    insert_rows(client, "events", _EVENT_COLUMNS, [tuple(row) for row in events])
    persons = conn.execute("SELECT project_id, id, uuid, properties, created_at, 1 FROM persons").fetchall()
    insert_rows(
        client,
        "persons",
        ("project_id", "id", "uuid", "properties", "created_at", "version"),
        [tuple(row) for row in persons],
    )
    groups = conn.execute(
        "SELECT project_id, group_type_index, group_key, properties, created_at, 1 FROM groups"
    ).fetchall()
    insert_rows(
        client,
        "groups",
        ("project_id", "group_type_index", "group_key", "properties", "created_at", "version"),
        [tuple(row) for row in groups],
    )


def _signature(conn: sqlite3.Connection) -> tuple[Any, ...]:
    """What changes whenever a test writes events, persons or groups (the test data are small)."""
    return (
        conn.execute("SELECT count(*), max(id), total(person_id), total(length(properties)) FROM events").fetchone(),
        conn.execute("SELECT group_concat(id || ':' || properties, ';') FROM persons").fetchone(),
        conn.execute("SELECT group_concat(group_key || ':' || properties, ';') FROM groups").fetchone(),
    )


class MirroredEngine:
    """An open engine (:class:`~local_backend.store.engine.interface.EventEngine`) answering every read of a test
    from ClickHouse: its store reads a ClickHouse database holding a copy of the SQLite file's events, persons
    and groups, copied again whenever the test (or a request it makes) has written more. Writes go to SQLite,
    where the test's factories write too."""

    reads_files = False

    def __init__(self, client: ChdbClient, name: str = "chdb", *, fresh: bool = False) -> None:
        self.client = client
        self.name = name
        self._fresh = fresh  # the client's database is empty (:func:`chdb_client`): the first copy empties nothing
        self._copied: tuple[Any, ...] | None = None

    def store(self, conn: sqlite3.Connection) -> ClickHouseEventStore:
        signature = _signature(conn)
        if signature != self._copied:  # the test wrote since the last copy: copy everything again
            if self._copied is not None or not self._fresh:
                for table in ("events", "persons", "groups", "person_overrides"):
                    self.client.command(f"TRUNCATE TABLE `{self.client.database}`.{table}")
            mirror(conn, self.client)
            self._copied = signature
        return ClickHouseEventStore(conn, self.client)

    def writer(self, conn: sqlite3.Connection) -> SQLiteEventWriter:
        return SQLiteEventWriter(conn)


class MovedEngine:
    """An open engine whose reads stay on SQLite until :meth:`move` copies the events, persons and groups into
    ClickHouse and deletes SQLite's events, as a database on the chdb engine holds none: from then on every read
    answers from ClickHouse, and one that still went to SQLite's events table would find nothing there."""

    reads_files = False
    name = "chdb"

    def __init__(self, client: ChdbClient) -> None:
        self.client = client
        self.moved = False

    def move(self, conn: sqlite3.Connection) -> None:
        mirror(conn, self.client)
        conn.execute("DELETE FROM events")
        self.moved = True

    def store(self, conn: sqlite3.Connection) -> ClickHouseEventStore | SQLiteEventStore:
        return ClickHouseEventStore(conn, self.client) if self.moved else SQLiteEventStore(conn)

    def writer(self, conn: sqlite3.Connection) -> SQLiteEventWriter:
        return SQLiteEventWriter(conn)


class SwitchedEngine:
    """An open engine reading SQLite, or the ClickHouse copy of a :class:`MirroredEngine` while
    :attr:`on_clickhouse` is true: one database whose answers a test compares between the two engines."""

    name = "sqlite or chdb"
    reads_files = False

    def __init__(self, mirrored: MirroredEngine) -> None:
        self.mirrored = mirrored
        self.on_clickhouse = False

    def store(self, conn: sqlite3.Connection) -> ClickHouseEventStore | SQLiteEventStore:
        return self.mirrored.store(conn) if self.on_clickhouse else SQLiteEventStore(conn)

    def writer(self, conn: sqlite3.Connection) -> SQLiteEventWriter:
        return SQLiteEventWriter(conn)
