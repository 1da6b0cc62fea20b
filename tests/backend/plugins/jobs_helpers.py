"""Reading a test database's events where its engine keeps them, and running the reprocess job over HTTP."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from local_backend.store.engine.clickhouse.engine import client_for
from local_backend.store.engine.spec import recorded_engine

__all__ = ["stored", "stored_twice", "rewrite_tables", "run_job", "trend"]


def stored(conn: sqlite3.Connection, project_id: int) -> list[tuple[str, str, dict[str, Any]]]:
    """``(event, distinct_id, properties)`` of the project's events in time order, from the recorded engine."""
    if recorded_engine(conn).kind == "sqlite":
        rows = conn.execute(
            "SELECT event, distinct_id, properties FROM events WHERE project_id = ? ORDER BY timestamp, id",
            (project_id,),
        ).fetchall()
        return [(r["event"], r["distinct_id"], json.loads(r["properties"])) for r in rows]
    client = client_for(conn)
    rows = client.query_rows(
        f"SELECT event, distinct_id, properties FROM `{client.database}`.events WHERE project_id = {{p:Int64}}"
        " ORDER BY timestamp, uuid",
        {"p": project_id},
    )
    return [(event, distinct_id, json.loads(properties)) for event, distinct_id, properties in rows]


def stored_twice(conn: sqlite3.Connection) -> list[str]:
    """The uuids stored more than once (none, whatever happened)."""
    if recorded_engine(conn).kind == "sqlite":
        return [r[0] for r in conn.execute("SELECT uuid FROM events GROUP BY project_id, uuid HAVING count(*) > 1")]
    client = client_for(conn)
    rows = client.query_rows(
        f"SELECT uuid FROM `{client.database}`.events GROUP BY project_id, uuid HAVING count() > 1"
    )
    return [str(uuid) for (uuid,) in rows]


def rewrite_tables(conn: sqlite3.Connection) -> list[str]:
    """The staged rewrites present in the chdb database (a finished job leaves none)."""
    client = client_for(conn)
    rows = client.query_rows(
        "SELECT name FROM system.tables WHERE database = {db:String} AND startsWith(name, 'rewrite_') ORDER BY name",
        {"db": client.database},
    )
    return [str(name) for (name,) in rows]


def run_job(client: Any, world: Any, config_id: int, date_from: str, date_to: str, project_id: int = 0) -> Any:
    return client.post(
        f"/api/projects/{project_id or world.project_id}/plugin_configs/{config_id}/job/",
        json={"job": {"type": "reprocess_events", "payload": {"date_from": date_from, "date_to": date_to}}},
        headers=world.headers(),
    )


def trend(client: Any, world: Any, event: str, math: str = "total") -> list[float]:
    """The daily values of ``event`` from 2026-01-09 to 2026-01-12 as the trends endpoint answers them."""
    body = {
        "events": [{"id": event, "math": math}],
        "date_from": "2026-01-09",
        "date_to": "2026-01-12",
        "interval": "day",
    }
    response = client.post(f"/api/projects/{world.project_id}/insights/trend/", json=body, headers=world.headers())
    assert response.status_code == 200, response.text
    return list(response.json()["result"][0]["data"])
