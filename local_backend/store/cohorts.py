"""Cohorts: static member lists (``cohort_people``) and person-property rules, soft-deleted.

A static cohort's members are persons, found from the ids a user gave (distinct ids, person uuids or
emails). A property-based cohort stores only its rules; who is in it is worked out when it is read, from the
persons' current properties.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from .db import transaction
from .text_search import search_condition

__all__ = [
    "create_cohort",
    "get_cohort",
    "list_cohorts",
    "update_cohort",
    "add_cohort_members",
    "resolve_person_ids",
    "move_cohort_members",
]


def _decode(row: sqlite3.Row | None) -> dict[str, Any] | None:
    if row is None:
        return None
    cohort = dict(row)
    cohort["filters"] = json.loads(cohort["filters"])
    cohort["deleted"] = bool(cohort["deleted"])
    cohort["is_static"] = bool(cohort["is_static"])
    return cohort


def resolve_person_ids(
    conn: sqlite3.Connection, project_id: int, id_type: str, ids: Sequence[str]
) -> tuple[set[int], list[str]]:
    """The persons the ids name, and the ids (in the order given, once each) that name nobody."""
    wanted = json.dumps(list(dict.fromkeys(ids)))
    if id_type == "distinct_id":
        sql = (
            "SELECT distinct_id, person_id FROM person_distinct_ids WHERE project_id = ?"
            " AND distinct_id IN (SELECT value FROM json_each(?))"
        )
    elif id_type == "person_id":
        sql = "SELECT uuid, id FROM persons WHERE project_id = ? AND uuid IN (SELECT value FROM json_each(?))"
    else:
        sql = (
            "SELECT json_extract(properties, '$.email'), id FROM persons WHERE project_id = ?"
            " AND json_extract(properties, '$.email') IN (SELECT value FROM json_each(?))"
        )
    found: dict[str, int] = {}
    for key, person_id in conn.execute(sql, (project_id, wanted)):
        found.setdefault(str(key), int(person_id))
    unknown = [value for value in dict.fromkeys(ids) if value not in found]
    return set(found.values()), unknown


def add_cohort_members(conn: sqlite3.Connection, cohort_id: int, person_ids: set[int], *, now: str) -> None:
    with transaction(conn):
        conn.executemany(
            "INSERT OR IGNORE INTO cohort_people (cohort_id, person_id) VALUES (?, ?)",
            [(cohort_id, person_id) for person_id in sorted(person_ids)],
        )
        conn.execute("UPDATE cohorts SET last_calculation = ?, updated_at = ? WHERE id = ?", (now, now, cohort_id))


def create_cohort(
    conn: sqlite3.Connection,
    *,
    project_id: int,
    user_id: int | None,
    values: dict[str, Any],
    members: set[int] | None,
    now: str,
) -> int:
    """Store a cohort and, for a static one, its members: all of it or none of it."""
    with transaction(conn):
        cursor = conn.execute(
            "INSERT INTO cohorts (project_id, name, description, is_static, filters, deleted, created_by_id,"
            " created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)",
            (
                project_id,
                values["name"],
                values.get("description") or "",
                int(bool(values.get("is_static"))),
                json.dumps(values.get("filters") or {}),
                user_id,
                now,
                now,
            ),
        )
        cohort_id = int(cursor.lastrowid or 0)
        if values.get("is_static"):
            add_cohort_members(conn, cohort_id, members or set(), now=now)
    return cohort_id


def get_cohort(conn: sqlite3.Connection, project_id: int, cohort_id: int) -> dict[str, Any] | None:
    """The project's cohort with this id, deleted or not."""
    return _decode(
        conn.execute("SELECT * FROM cohorts WHERE project_id = ? AND id = ?", (project_id, cohort_id)).fetchone()
    )


def list_cohorts(
    conn: sqlite3.Connection, project_id: int, *, search: str | None, limit: int, offset: int
) -> tuple[list[dict[str, Any]], int]:
    """One page of live cohorts, newest first, and their count."""
    condition, params = search_condition(["name", "description"], search)
    where = f"project_id = ? AND deleted = 0 AND {condition}"
    total = int(conn.execute(f"SELECT count(*) FROM cohorts WHERE {where}", [project_id, *params]).fetchone()[0])
    rows = conn.execute(
        f"SELECT * FROM cohorts WHERE {where} ORDER BY id DESC LIMIT ? OFFSET ?", [project_id, *params, limit, offset]
    ).fetchall()
    return [cohort for cohort in map(_decode, rows) if cohort is not None], total


def update_cohort(
    conn: sqlite3.Connection, cohort_id: int, changes: dict[str, Any], *, members: set[int] | None, now: str
) -> None:
    """Write name, description, filters or deleted, and add static members: all of it or none of it."""
    columns: dict[str, Any] = {}
    for field in ("name", "description"):
        if field in changes:
            columns[field] = changes[field]
    if "filters" in changes:
        columns["filters"] = json.dumps(changes["filters"])
    if "deleted" in changes:
        columns["deleted"] = int(bool(changes["deleted"]))
    columns["updated_at"] = now
    assignments = ", ".join(f"{column} = ?" for column in columns)
    with transaction(conn):
        conn.execute(f"UPDATE cohorts SET {assignments} WHERE id = ?", [*columns.values(), cohort_id])
        if members is not None:
            add_cohort_members(conn, cohort_id, members, now=now)


def move_cohort_members(conn: sqlite3.Connection, *, from_person_ids: Sequence[int], to_person_id: int) -> None:
    """Hand static-cohort memberships of persons about to be merged away to the person they merge into.

    ``cohort_people`` references ``persons``, so a merge must call this before deleting the absorbed persons;
    a person already in a cohort stays in it once.
    """
    with transaction(conn):
        for old in from_person_ids:
            conn.execute(
                "INSERT OR IGNORE INTO cohort_people (cohort_id, person_id)"
                " SELECT cohort_id, ? FROM cohort_people WHERE person_id = ?",
                (to_person_id, old),
            )
            conn.execute("DELETE FROM cohort_people WHERE person_id = ?", (old,))
