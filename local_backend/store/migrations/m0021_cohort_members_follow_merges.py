"""Migration: static-cohort memberships follow persons through merges and never block deleting a person.

When a merge moves a distinct id to the person it keeps, the absorbed person's memberships are copied to
that person; when a person row is deleted, its memberships go with it. Merge code therefore needs no
knowledge of cohorts, and ``cohort_people``'s reference to ``persons`` can never fail a merge.
"""

from __future__ import annotations

import sqlite_utils

__all__ = ["apply"]


def apply(db: sqlite_utils.Database) -> None:
    """Static-cohort memberships follow persons through merges and never block deleting a person."""
    conn = db.conn
    conn.execute(
        """
        CREATE TRIGGER cohort_people_follow_distinct_id
        AFTER UPDATE OF person_id ON person_distinct_ids
        WHEN OLD.person_id IS NOT NEW.person_id
        BEGIN
            INSERT OR IGNORE INTO cohort_people (cohort_id, person_id)
            SELECT cohort_id, NEW.person_id FROM cohort_people WHERE person_id = OLD.person_id;
        END"""
    )
    conn.execute(
        """
        CREATE TRIGGER cohort_people_leave_with_person
        BEFORE DELETE ON persons
        BEGIN
            DELETE FROM cohort_people WHERE person_id = OLD.id;
        END"""
    )
