"""``insightlab migrate-events --db PATH --to ENGINE``: move a database's events to another engine.

Copies every event of the database from its recorded engine to ``ENGINE`` in batches, with the persons they
belong to now (a ClickHouse source applies its merge overrides on the way), copies the persons and groups a
ClickHouse engine keeps versions of, checks the counts, and records ``ENGINE`` as the database's engine. The
target must hold none of the database's events yet. A SQLite source's events are deleted once the copy is
checked (the file would otherwise keep serving them to code that reads SQLite); a ClickHouse source keeps its
copy (drop its database when done).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path
from typing import Any

from .errors import APIError
from .ingestion.writer import write_transaction
from .store.db import transaction
from .store.engine.choice import holds_events
from .store.engine.clickhouse.client import ClickHouseClient, require
from .store.engine.clickhouse.clients import open_client
from .store.engine.clickhouse.writer import EVENT_COLUMNS, event_table, next_version
from .store.engine.spec import ENGINE_HELP, Engine, database_file, recorded_engine

__all__ = ["add_parser", "run", "migrate_events", "BATCH"]

BATCH = 200_000
_ROW_COLUMNS = ", ".join(EVENT_COLUMNS)


def add_parser(commands: Any, engine_type: Any) -> None:
    """Register the ``migrate-events`` command on the CLI's subparsers."""
    parser = commands.add_parser("migrate-events", help="copy the database's events to another engine")
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--to", type=engine_type, required=True, help=f"the engine to move to: {ENGINE_HELP}")


def run(args: argparse.Namespace, conn: sqlite3.Connection) -> int:
    source = recorded_engine(conn)
    moved = migrate_events(conn, args.to)
    print(f"Moved {moved} events from {source.describe()} to {args.to.describe()}.", flush=True)
    return 0


def migrate_events(conn: sqlite3.Connection, target: Engine) -> int:
    """Move every event of ``conn``'s database to ``target`` and record it; returns how many moved."""
    source = recorded_engine(conn)
    if target == source:
        raise APIError(f"The events are already in {target.describe()}.", attr="to")
    if target.kind != "sqlite" and source.kind != "sqlite":
        raise APIError("Move the events between two ClickHouse engines through sqlite.", attr="to")
    if _target_holds_events(conn, target):
        raise APIError(f"{target.describe()} already holds events of this database.", attr="to")
    if source.kind == "sqlite":
        moved = _sqlite_to_clickhouse(conn, open_client(target, database_file(conn)))
    else:
        moved = _clickhouse_to_sqlite(conn, open_client(source, database_file(conn)))
    with transaction(conn):
        conn.execute(
            "INSERT INTO event_engine (id, spec, chosen_at) VALUES (1, ?, strftime('%Y-%m-%dT%H:%M:%fZ','now'))"
            " ON CONFLICT (id) DO UPDATE SET spec = excluded.spec, chosen_at = excluded.chosen_at",
            (target.spec,),
        )
        if source.kind == "sqlite":
            conn.execute("DELETE FROM events")
    return moved


def _target_holds_events(conn: sqlite3.Connection, target: Engine) -> bool:
    if target.kind == "sqlite":
        return conn.execute("SELECT 1 FROM events LIMIT 1").fetchone() is not None
    return holds_events(conn, target)


def _sqlite_to_clickhouse(conn: sqlite3.Connection, client: ClickHouseClient) -> int:
    pa = require("pyarrow")
    db = f"`{client.database}`"
    version = next_version()
    persons = conn.execute("SELECT project_id, id, uuid, properties, created_at FROM persons").fetchall()
    if persons:
        columns = list(zip(*persons, strict=True))
        client.insert_arrow(f"{db}.persons", pa.table({
            "project_id": pa.array(columns[0], pa.int64()), "id": pa.array(columns[1], pa.int64()),
            "uuid": pa.array(columns[2], pa.string()), "properties": pa.array(columns[3], pa.string()),
            "created_at": pa.array(columns[4], pa.int64()), "version": pa.array([version] * len(persons), pa.int64()),
        }))  # fmt: skip
    groups = conn.execute(
        "SELECT project_id, group_type_index, group_key, properties, created_at FROM groups"
    ).fetchall()
    if groups:
        columns = list(zip(*groups, strict=True))
        client.insert_arrow(f"{db}.groups", pa.table({
            "project_id": pa.array(columns[0], pa.int64()), "group_type_index": pa.array(columns[1], pa.uint8()),
            "group_key": pa.array(columns[2], pa.string()), "properties": pa.array(columns[3], pa.string()),
            "created_at": pa.array(columns[4], pa.int64()), "version": pa.array([version] * len(groups), pa.int64()),
        }))  # fmt: skip
    cursor = conn.execute(f"SELECT {_ROW_COLUMNS}, elements_chain FROM events ORDER BY id")
    moved = 0
    while rows := cursor.fetchmany(BATCH):
        table = event_table([row[:-1] for row in rows])
        table = table.set_column(table.schema.get_field_index("elements_chain"), "elements_chain",
                                 pa.array([row[-1] or "" for row in rows], pa.string()))  # fmt: skip
        client.insert_arrow(f"{db}.events", table)
        moved += len(rows)
    stored = int(client.query_rows(f"SELECT count() FROM {db}.events")[0][0])
    if stored != moved:
        raise APIError(f"Copied {moved} events but {stored} are in the target: the source is left as it was.")
    return moved


def _clickhouse_to_sqlite(conn: sqlite3.Connection, client: ClickHouseClient) -> int:
    db = f"`{client.database}`"
    total = int(client.query_rows(f"SELECT count() FROM {db}.events")[0][0])
    moved = 0
    marks = ", ".join("?" * (len(EVENT_COLUMNS) + 1))
    with write_transaction(conn):  # one transaction: all of them or none
        for offset in range(0, total, BATCH):
            table = client.query_arrow(
                f"SELECT e.uuid, e.project_id, e.event, e.distinct_id,"
                f" if(o.person_id != 0, o.person_id, e.person_id) AS person_id, e.timestamp, e.properties,"
                f" e.group_0, e.group_1, e.group_2, e.group_3, e.group_4, e.created_at, e.elements_chain"
                f" FROM {db}.events AS e LEFT JOIN (SELECT project_id, old_person_id,"
                f" argMax(person_id, version) AS person_id FROM {db}.person_overrides"
                f" GROUP BY project_id, old_person_id) AS o"
                f" ON e.project_id = o.project_id AND e.person_id = o.old_person_id"
                f" ORDER BY e.timestamp, e.uuid LIMIT {{limit:UInt64}} OFFSET {{offset:UInt64}}",
                {"limit": BATCH, "offset": offset},
            )
            rows = list(zip(*(column.to_pylist() for column in table.columns), strict=True))
            conn.executemany(f"INSERT INTO events ({_ROW_COLUMNS}, elements_chain) VALUES ({marks})", rows)
            moved += len(rows)
        if moved != total:
            raise APIError(f"Read {moved} of {total} events: nothing was moved.")
    print(f"{moved} events copied; the chdb folder keeps its copy.", file=sys.stderr)
    return moved
