"""One page of actors as the legacy people lists answer it: persons by id, or groups by key.

``persons/funnel/``, ``persons/trends/``, ``persons/stickiness/``, ``persons/lifecycle/`` and ``persons/paths/``
all answer ``{results: [{people, count}], count, next, previous}`` (:class:`..models.people.ActorsPage`): the
calculation gives the sorted actors; this module reads the page's persons (or groups) and links the next page.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from fastapi import Request

from ..models.persons import person_body
from ..store.engine.choice import event_store
from ..store.person_lookup import persons_by_id
from ..web.pagination import Page, paginated

__all__ = ["actors_page", "people_page", "groups_page"]


def groups_page(
    request: Request, page: Page, conn: sqlite3.Connection, project_id: int, index: int, keys: Sequence[str]
) -> dict[str, Any]:
    """Groups in the people list's place: key, type index, properties (empty for a group never described)."""
    window = list(keys[page.offset : page.offset + page.limit])
    stored = dict(event_store(conn).group_properties(project_id, index, window))
    people = [{"group_key": key, "group_type_index": index, "group_properties": stored.get(key, {})} for key in window]
    envelope = paginated(request, page, len(keys), [{"people": people, "count": len(people)}])
    return {**envelope, "count": len(keys)}


def people_page(
    request: Request, page: Page, conn: sqlite3.Connection, project_id: int, actors: Sequence[int]
) -> dict[str, Any]:
    """Persons by id, in the order given, each named as the persons API names it."""
    window = list(actors[page.offset : page.offset + page.limit])
    persons = persons_by_id(conn, project_id, window)
    people = [person_body(persons[person_id]) for person_id in window if person_id in persons]
    envelope = paginated(request, page, len(actors), [{"people": people, "count": len(people)}])
    return {**envelope, "count": len(actors)}


def actors_page(
    request: Request,
    page: Page,
    conn: sqlite3.Connection,
    project_id: int,
    actors: Sequence[Any],
    group_type_index: int | None,
) -> dict[str, Any]:
    """Persons, or groups of ``group_type_index`` when it is set."""
    if group_type_index is not None:
        return groups_page(request, page, conn, project_id, group_type_index, actors)
    return people_page(request, page, conn, project_id, actors)
