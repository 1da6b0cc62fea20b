"""Pages of persons matching conditions, newest first, shaped as the people lists show them."""

from __future__ import annotations

import sqlite3
from typing import Any

from ..store.ids import parse_id
from ..store.person_lookup import persons_by_id
from ..store.text_search import search_condition
from .person_filters import persons_as_events

__all__ = ["Condition", "list_persons", "person_search_condition", "distinct_id_condition", "find_person"]

Condition = tuple[str, list[Any]]  # SQL over persons ``e``, and its parameters


def person_search_condition(search: str | None) -> Condition:
    """Every term occurs in one of the person's distinct ids or in their email (case-insensitive)."""
    terms = (search or "").split()
    if not terms:
        return "1", []
    clauses: list[str] = []
    params: list[Any] = []
    for term in terms:
        in_ids, id_params = search_condition(["d.distinct_id"], term)
        in_email, email_params = search_condition(["json_extract(e.properties, '$.email')"], term)
        clauses.append(
            f"(EXISTS (SELECT 1 FROM person_distinct_ids d WHERE d.person_id = e.id AND {in_ids}) OR {in_email})"
        )
        params.extend([*id_params, *email_params])
    return "(" + " AND ".join(clauses) + ")", params


def distinct_id_condition(project_id: int, distinct_id: str) -> Condition:
    return (
        "e.id IN (SELECT person_id FROM person_distinct_ids WHERE project_id = ? AND distinct_id = ?)",
        [project_id, distinct_id],
    )


def list_persons(
    conn: sqlite3.Connection, project_id: int, *, where: list[Condition], limit: int, offset: int
) -> tuple[list[dict[str, Any]], int]:
    """One page of the project's persons meeting every condition (newest first) and how many meet them."""
    condition = " AND ".join(["1", *(sql for sql, _ in where)])
    params: list[Any] = [project_id, *(p for _, ps in where for p in ps)]
    persons = persons_as_events(conn)
    total = int(conn.execute(f"SELECT count(*) FROM {persons} e WHERE {condition}", params).fetchone()[0])
    ids = [
        row[0]
        for row in conn.execute(
            f"SELECT e.id FROM {persons} e WHERE {condition} ORDER BY e.created_at DESC, e.id DESC LIMIT ? OFFSET ?",
            [*params, limit, offset],
        )
    ]
    found = persons_by_id(conn, project_id, ids)
    return [found[person_id] for person_id in ids if person_id in found], total


def find_person(conn: sqlite3.Connection, project_id: int, key: str) -> dict[str, Any] | None:
    """A person by integer id or by uuid."""
    person_id = parse_id(key)
    if person_id is None:
        row = conn.execute("SELECT id FROM persons WHERE project_id = ? AND uuid = ?", (project_id, key)).fetchone()
        person_id = row[0] if row else None
    if person_id is None:
        return None
    return persons_by_id(conn, project_id, [person_id]).get(person_id)
