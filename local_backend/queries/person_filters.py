"""Person property filters (a cohort's rules, the persons list's ``properties``) as SQL over persons.

The operators themselves are compiled by :class:`~local_backend.queries.properties.PropertyCompiler`, the one
place their meaning lives (the same as in trends and funnels, regexes included); the filters are checked to be
about person properties, with well-formed groups, by
:func:`~local_backend.models.property_filters.check_person_filters`, and this module runs them over a row
source where ``e`` is a person (:func:`persons_as_events`).

The persons list and cohort counts read the persons table of the SQLite file directly (persons stay there
whatever the event engine), so their SQL is written in the SQLite store's dialect (:func:`persons_dialect`).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from ..models.property_filters import check_person_filters, on_own_properties
from ..store.engine.interface import Dialect
from ..store.engine.sqlite.event_store import SQLiteEventStore
from .properties import PropertyCompiler

__all__ = [
    "persons_as_events",
    "persons_dialect",
    "person_properties_condition",
]


def persons_dialect(conn: sqlite3.Connection) -> Dialect:
    """The dialect of statements over the persons table of ``conn`` (the SQLite store's; it makes its functions
    available on ``conn``)."""
    return SQLiteEventStore(conn).dialect


def persons_as_events(conn: sqlite3.Connection) -> str:
    """The project's persons (one bound parameter: the project id) shaped like the ``events e`` rows the filter
    compiler expects: ``e.properties`` holds the person's properties and ``e.person_id`` is the person itself."""
    return persons_dialect(conn).persons_as_events()


def person_properties_condition(
    conn: sqlite3.Connection, project_id: int, properties: Any, attr: str
) -> tuple[str, list[Any]]:
    """SQL over :func:`persons_as_events` rows (``e``) holding for persons that match ``properties``; it runs on
    ``conn``, where the functions it calls are registered."""
    dialect = persons_dialect(conn)
    # persons have no hot columns
    compiler = PropertyCompiler(conn=conn, project_id=project_id, dialect=dialect, hot_columns=False)
    return compiler.compile(on_own_properties(check_person_filters(properties, attr)), attr)
