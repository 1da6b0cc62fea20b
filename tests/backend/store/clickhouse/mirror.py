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
from local_backend.store.engine.clickhouse.schema import create_tables

__all__ = [
    "chdb_client",
    "mirror",
    "insert_rows",
    "release_database",
    "pooled_database_name",
    "use_clickhouse",
    "move_events_to_clickhouse",
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
_layout: dict[str, str] = {}  # the tables as the engine makes them, see _tables


def _session_folder() -> str:
    """The process's chdb folder: the one already open if another test opened one first (chdb refuses a
    second path in one process)."""
    opened = next(iter(ChdbClient._sessions), None)
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


def _made_tables(client: ChdbClient) -> dict[str, str]:
    """The tables as the engine makes them (see :func:`_tables`), read once from a database made for that."""
    if not _layout:
        reference = ChdbClient.open(_session_folder(), database="made_tables")
        create_tables(reference)
        _layout.update(_tables(reference))
    return _layout


def _tables(client: ChdbClient) -> dict[str, str]:
    """Each table of the client's database and its definition, the database's own name taken out."""
    rows = client.query_rows(
        "SELECT name, create_table_query FROM system.tables WHERE database = {db:String}", {"db": client.database}
    )
    return {name: query.replace(client.database, "{db}") for name, query in rows}


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
    """Answers every calculation of a test from ClickHouse: ``event_store(conn)`` gives a ClickHouse store
    whose database holds a copy of the SQLite file's events, persons and groups, copied again whenever the
    test (or a request it makes) has written more."""

    def __init__(self, client: ChdbClient) -> None:
        self.client = client
        self._copied: tuple[Any, ...] | None = None

    def event_store(self, conn: sqlite3.Connection) -> Any:
        from local_backend.store.engine.clickhouse.event_store import ClickHouseEventStore

        signature = _signature(conn)
        if signature != self._copied:  # the test wrote since the last copy: copy everything again
            for table in ("events", "persons", "groups", "person_overrides"):
                self.client.command(f"TRUNCATE TABLE `{self.client.database}`.{table}")
            mirror(conn, self.client)
            self._copied = signature
        return ClickHouseEventStore(conn, self.client)


def _patch_event_store(monkeypatch: Any, replacement: Any) -> None:
    """Make every ``event_store(conn)`` of the backend (each module holds its own reference to the function)
    call ``replacement`` instead, for the rest of the test."""
    import sys

    import local_backend.app  # noqa: F401 - imports every module a request can reach
    from local_backend.store.engine import choice as module

    original = module.event_store
    for name, loaded in list(sys.modules.items()):
        if name.startswith("local_backend") and getattr(loaded, "event_store", None) is original:
            monkeypatch.setattr(loaded, "event_store", replacement)


def use_clickhouse(monkeypatch: Any, client: ChdbClient) -> MirroredEngine:
    """Make every ``event_store(conn)`` of the backend return the ClickHouse store of :class:`MirroredEngine`,
    for the rest of the test."""
    engine = MirroredEngine(client)
    _patch_event_store(monkeypatch, engine.event_store)
    return engine


def move_events_to_clickhouse(monkeypatch: Any, conn: sqlite3.Connection, client: ChdbClient) -> None:
    """Copy the SQLite database's events, persons and groups into ClickHouse, then delete SQLite's events, as a
    database on the chdb engine holds none: every ``event_store(conn)`` answers from ClickHouse, and a read
    that still goes to SQLite's events table finds nothing there."""
    from local_backend.store.engine.clickhouse.event_store import ClickHouseEventStore

    mirror(conn, client)
    conn.execute("DELETE FROM events")
    _patch_event_store(monkeypatch, lambda connection: ClickHouseEventStore(connection, client))
