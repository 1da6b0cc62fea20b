"""Groups (companies, teams, ...) as ingestion stores them: a key per group type, with its properties."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

__all__ = ["group_properties"]


def group_properties(
    conn: sqlite3.Connection, project_id: int, group_type_index: int, keys: Sequence[str]
) -> dict[str, dict[str, Any]]:
    """The stored properties of each of ``keys`` that has a group row (a group never described has none)."""
    marks = ",".join("?" for _ in keys) or "NULL"
    rows = conn.execute(
        f"SELECT group_key, properties FROM groups WHERE project_id = ? AND group_type_index = ?"
        f" AND group_key IN ({marks})",
        [project_id, group_type_index, *keys],
    )
    return {row[0]: json.loads(row[1] or "{}") for row in rows}
