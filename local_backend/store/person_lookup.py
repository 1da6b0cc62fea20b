"""Persons as the people lists of calculations show them: id, uuid, distinct ids, properties."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from .event_rows import from_micros

__all__ = ["persons_by_id"]

_CHUNK = 500


def persons_by_id(conn: sqlite3.Connection, project_id: int, person_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
    """``{person_id: person}`` for the ids that exist in the project.

    Each id is looked up by its key (``+project_id`` keeps SQLite from walking every person and distinct id of the
    project through the project's index instead, for each chunk)."""
    found: dict[int, dict[str, Any]] = {}
    for start in range(0, len(person_ids), _CHUNK):
        chunk = list(person_ids[start : start + _CHUNK])
        marks = ",".join("?" for _ in chunk)
        for row in conn.execute(
            f"SELECT id, uuid, properties, is_identified, created_at FROM persons"
            f" WHERE +project_id = ? AND id IN ({marks})",
            [project_id, *chunk],
        ):
            found[row["id"]] = {
                "id": row["id"],
                "uuid": row["uuid"],
                "distinct_ids": [],
                "properties": json.loads(row["properties"]),
                "is_identified": bool(row["is_identified"]),
                "created_at": from_micros(row["created_at"]).isoformat().replace("+00:00", "Z"),
            }
        for row in conn.execute(
            f"SELECT person_id, distinct_id FROM person_distinct_ids WHERE +project_id = ? AND person_id IN ({marks})"
            " ORDER BY distinct_id",
            [project_id, *chunk],
        ):
            if row["person_id"] in found:
                found[row["person_id"]]["distinct_ids"].append(row["distinct_id"])
    return found
