"""The chdb engine's side of ``scale_bench.py --engine chdb``: its event count, DuckDB loaded with the rows
ClickHouse stored, and the funnel's ``windowFunnel`` levels as a reference number."""

from __future__ import annotations

import sqlite3
from typing import Any

from local_backend.store.engine.choice import event_store
from local_backend.store.engine.clickhouse.params import bind
from local_backend.store.engine.clickhouse.rows import event_rows

__all__ = ["event_count", "load_duckdb_from_chdb", "window_funnel"]


def _query(conn: sqlite3.Connection, project_id: int, select: str, tail: str = "") -> Any:
    """``SELECT {select} FROM <the project's rows e> {tail}`` as Arrow: the person after merges, as every
    calculation reads it."""
    store = event_store(conn)
    rows, params = event_rows(store.dialect, project_id, "")  # type: ignore[attr-defined]
    text, named = bind(f"SELECT {select} FROM {rows} AS e {tail}", params, lambda cohort: [])
    return store.client.query_arrow(text, named)  # type: ignore[attr-defined]


def event_count(conn: sqlite3.Connection, project_id: int) -> int:
    return int(_query(conn, project_id, "count()").column(0)[0].as_py())


def load_duckdb_from_chdb(conn: sqlite3.Connection, project_id: int, extract: tuple[str, ...] = ()) -> Any:
    """DuckDB (in memory) holding table ``ev`` (event, person_id, ts, properties) as ClickHouse stores it.

    With ``extract`` (property names), ``ev`` holds those properties as text columns named after them (``$``
    dropped) instead of the JSON, which 20M events' worth of would not fit in memory beside the rest."""
    import duckdb

    columns = "e.event AS event, e.person_id AS person_id, e.timestamp AS ts"
    values = "".join(
        f", if(JSONType(e.properties, '{key}') = 'String', JSONExtractString(e.properties, '{key}'),"
        f" nullIf(JSONExtractRaw(e.properties, '{key}'), '')) AS {key.lstrip('$')}"
        for key in extract
    )
    table = _query(conn, project_id, columns + (values or ", e.properties"))
    duck = duckdb.connect()
    duck.register("stored", table)
    kept = "".join(f", {key.lstrip('$')}::VARCHAR AS {key.lstrip('$')}" for key in extract) or (
        ", properties::JSON AS properties"
    )
    duck.execute(
        f"CREATE TABLE ev AS SELECT event::VARCHAR AS event, person_id::BIGINT AS person_id, ts::BIGINT AS ts{kept}"
        " FROM stored"
    )
    duck.unregister("stored")
    return duck


def window_funnel(
    conn: sqlite3.Connection, project_id: int, steps: list[str], window_us: int, low: int, high: int
) -> list[int]:
    """Persons reaching each step by ClickHouse's ``windowFunnel`` (default mode: other events may come
    between steps), over rows read as the calculations read them."""
    conditions = ", ".join(f"e.event = '{name}'" for name in steps)
    names = ", ".join(f"'{name}'" for name in steps)
    levels = (
        _query(
            conn,
            project_id,
            f"e.person_id AS p, windowFunnel({window_us})(toUInt64(e.timestamp), {conditions}) AS level",
            f"WHERE e.timestamp >= {low} AND e.timestamp <= {high} AND e.event IN ({names}) GROUP BY p",
        )
        .column("level")
        .to_numpy()
    )
    return [int((levels >= step).sum()) for step in range(1, len(steps) + 1)]
