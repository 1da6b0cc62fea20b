"""Property filters compiled to SQL and run: which events (named by their distinct ids) match."""

from __future__ import annotations

from local_backend.queries.base_filter import compiler_for


def matches(conn, project_id, properties) -> list[str]:
    compiler = compiler_for(conn, {"id": project_id})
    sql, params = compiler.compile(properties)
    rows = conn.execute(
        f"SELECT DISTINCT e.distinct_id FROM events e WHERE e.project_id = ? AND {sql} ORDER BY 1",
        [project_id, *params],
    )
    return [row[0] for row in rows]
