"""Who is in a cohort now: a static cohort's ``cohort_people``, or the persons whose current properties pass a
property-based cohort's rules (compiled by :mod:`local_backend.queries.person_filters`).

Apart from :mod:`.cohorts` so that the calculation code, which reads cohorts there, can be imported by this.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from ..errors import ValidationError
from .person_filters import person_properties_condition, persons_as_events

__all__ = ["cohort_member_condition", "cohort_count", "cohort_count_or_none"]


def cohort_member_condition(conn: sqlite3.Connection, cohort: dict[str, Any]) -> tuple[str, list[Any]]:
    """SQL over persons ``e`` (see :func:`~local_backend.queries.person_filters.persons_as_events`) holding for
    the cohort's members, run on ``conn``."""
    if cohort["is_static"]:
        return "e.id IN (SELECT person_id FROM cohort_people WHERE cohort_id = ?)", [cohort["id"]]
    rules = cohort["filters"].get("properties")
    return person_properties_condition(conn, int(cohort["project_id"]), rules, "filters__properties")


def cohort_count(conn: sqlite3.Connection, cohort: dict[str, Any]) -> int:
    """How many persons are in the cohort now."""
    if cohort["is_static"]:
        row = conn.execute("SELECT count(*) FROM cohort_people WHERE cohort_id = ?", (cohort["id"],)).fetchone()
        return int(row[0])
    condition, params = cohort_member_condition(conn, cohort)
    persons = persons_as_events(conn)
    row = conn.execute(f"SELECT count(*) FROM {persons} e WHERE {condition}", [cohort["project_id"], *params])
    return int(row.fetchone()[0])


def cohort_count_or_none(conn: sqlite3.Connection, cohort: dict[str, Any]) -> int | None:
    """:func:`cohort_count`, or None for rules stored by an older version that this one cannot evaluate."""
    try:
        return cohort_count(conn, cohort)
    except ValidationError:
        return None
