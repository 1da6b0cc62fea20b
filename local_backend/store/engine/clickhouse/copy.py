"""Copying a database's events between the SQLite file and a ClickHouse engine (``insightlab migrate-events``).

:func:`~..choice.move_events` checks the move and records the new engine; this module copies the rows, in
batches of :data:`BATCH` events, with the persons and groups a ClickHouse engine keeps versions of.
"""

from __future__ import annotations

import sqlite3
import sys

from ....errors import APIError
from ...db import transaction
from ..spec import database_file
from .client import ClickHouseClient, require
from .journal import recover_writes
from .pending_writes import EVENT_COLUMNS, event_table, next_version

__all__ = ["BATCH", "copy_from_sqlite", "copy_to_sqlite"]

BATCH = 200_000
_ROW_COLUMNS = ", ".join(EVENT_COLUMNS)


def copy_from_sqlite(conn: sqlite3.Connection, client: ClickHouseClient) -> int:
    """Copy the SQLite file's events, persons and groups into ClickHouse, which holds none of them yet; the
    events' count is checked (the source is left as it was when it differs). Returns how many were copied."""
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


def copy_to_sqlite(conn: sqlite3.Connection, client: ClickHouseClient) -> int:
    """Copy ClickHouse's events into the SQLite file's ``events``, each with its person now (the merge overrides
    applied), in one SQLite transaction: all of them or none. Returns how many were copied."""
    db = f"`{client.database}`"
    total = int(client.query_rows(f"SELECT count() FROM {db}.events")[0][0])
    moved = 0
    marks = ", ".join("?" * (len(EVENT_COLUMNS) + 1))
    with transaction(conn):  # one transaction: all of them or none
        recover_writes(conn, client, database_file(conn))  # rows of a write a crash cut short are not copied
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
