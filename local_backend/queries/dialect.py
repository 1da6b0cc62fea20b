"""The SQL dialect the filters compile to: SQLite, with a few registered functions.

Everything engine-specific that the compilers emit goes through :class:`SQLiteDialect`: reading a property out
of a JSON column, the text PostHog compares property values as, numbers, dates, regexes and quantiles.
Property keys are always bound as parameters (JSON paths are built here, escaped), never pasted into SQL.
It also names how an event row ``e`` reaches its person's and groups' properties, its session and its
cohorts: with the event store's statements (:mod:`local_backend.store.sqlite_event_store`) these fragments are
the whole of SQLite's SQL that a calculation uses, and :attr:`EventStore.dialect
<local_backend.store.event_store.EventStore.dialect>` hands them out.

Registered functions (:func:`register_functions`, per connection):

===================  ==============================================================================
``il_regex(t, p)``   1 when RE2 pattern ``p`` occurs in ``t`` (:mod:`.regex`), linear time
``il_float(v)``      ``v`` as a float when it reads as a number (spaces ignored), else NULL
``il_date(v)``       ``v`` read as a date-time: UTC microseconds, else NULL
``il_quantile(v,q)`` aggregate: the linearly interpolated ``q`` quantile of the non-NULL ``v``
===================  ==============================================================================
"""

from __future__ import annotations

import math
import sqlite3
from datetime import UTC, datetime
from typing import Any

from ..store.events import to_micros
from .regex import regex_search

__all__ = ["SQLiteDialect", "DIALECT", "register_functions", "to_float", "quantile"]


def to_float(value: Any) -> float | None:
    """PostHog's ``toFloat64OrNull``: numbers as they are, numeric text read, anything else NULL."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    try:
        number = float(str(value).replace(" ", ""))
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _to_date(value: Any) -> int | None:
    if value is None:
        return None
    text = str(value).strip().replace("Z", "+00:00")
    for candidate in (text, text[:10]):
        try:
            parsed = datetime.fromisoformat(candidate)
        except ValueError:
            continue
        return to_micros(parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC))
    return None


def quantile(values: list[float], level: float) -> float | None:
    """The linearly interpolated quantile (``level`` in 0..1) of ``values``; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    position = level * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


class _Quantile:
    def __init__(self) -> None:
        self.values: list[float] = []
        self.level = 0.5

    def step(self, value: Any, level: float) -> None:
        number = to_float(value)
        if number is not None:
            self.values.append(number)
        self.level = level

    def finalize(self) -> float | None:
        return quantile(self.values, self.level)


def register_functions(conn: sqlite3.Connection) -> None:
    """Make the dialect's functions available on ``conn`` (cheap; call before compiling queries for it)."""
    conn.create_function("il_regex", 2, regex_search, deterministic=True)
    conn.create_function("il_float", 1, to_float, deterministic=True)
    conn.create_function("il_date", 1, _to_date, deterministic=True)
    conn.create_aggregate("il_quantile", 2, _Quantile)  # type: ignore[arg-type]


def json_path(key: str) -> str:
    """The SQLite JSON path of a top-level key (SQLite's quoted labels end at the first ``"``)."""
    return '$."' + key + '"'


class SQLiteDialect:
    """SQL fragments over a JSON column; each returns ``(sql, params)``."""

    def extract(self, column: str, key: str) -> tuple[str, list[Any]]:
        """The JSON value (SQLite types: text, integer, real; true/false as 1/0; NULL for null or missing)."""
        if '"' in key:
            return f"(SELECT value FROM json_each({column}) WHERE key = ?)", [key]
        return f"json_extract({column}, ?)", [json_path(key)]

    def json_type(self, column: str, key: str) -> tuple[str, list[Any]]:
        """``'null'``, ``'true'``, ``'text'``, ... or NULL when the key is missing."""
        if '"' in key:
            return f"(SELECT type FROM json_each({column}) WHERE key = ?)", [key]
        return f"json_type({column}, ?)", [json_path(key)]

    def text(self, column: str, key: str) -> tuple[str, list[Any]]:
        """The value as PostHog compares it: ``''`` when missing, ``true``/``false``/``null``, numbers as text."""
        kind, kind_params = self.json_type(column, key)
        value, value_params = self.extract(column, key)
        sql = (
            f"(CASE {kind} WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'null' THEN 'null'"
            f" ELSE coalesce(CAST({value} AS TEXT), '') END)"
        )
        return sql, [*kind_params, *value_params]

    def breakdown_value(self, column: str, key: str, hot: str | None = None) -> tuple[str, list[Any]]:
        """The value as a breakdown shows it: text, ``true``/``false``, NULL for missing, null or empty.

        ``hot`` names a generated column that already holds ``true``/``false`` for booleans and the extracted
        value otherwise (:mod:`local_backend.store.hot_properties`); reading it alone lets an index cover the
        breakdown.
        """
        if hot is not None:
            return f"nullif(CAST({hot} AS TEXT), '')", []
        kind, kind_params = self.json_type(column, key)
        value, value_params = self.extract(column, key)
        sql = (
            f"(CASE {kind} WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'"
            f" ELSE nullif(CAST({value} AS TEXT), '') END)"
        )
        return sql, [*kind_params, *value_params]

    def regex(self, text_sql: str) -> str:
        return f"il_regex({text_sql}, ?)"

    def number(self, value_sql: str) -> str:
        return f"il_float({value_sql})"

    def date(self, value_sql: str) -> str:
        return f"il_date({value_sql})"

    def quantile(self, value_sql: str, level: float) -> str:
        return f"il_quantile({value_sql}, {float(level)!r})"

    # Where an event row ``e`` reaches its person, groups, session and cohorts: these are this engine's tables.

    def person_properties(self) -> str:
        """The current properties (JSON) of ``e.person_id``."""
        return "(SELECT p.properties FROM persons p WHERE p.id = e.person_id)"

    def group_properties(self, index: int) -> str:
        """The properties (JSON) of the event's group of type ``index`` (0..4, checked by the caller)."""
        return (
            "(SELECT g.properties FROM groups g WHERE g.project_id = e.project_id"
            f" AND g.group_type_index = {int(index)} AND g.group_key = e.group_{int(index)})"
        )

    def session_seconds(self) -> str:
        """The whole duration of the event's session, rounded to whole seconds (first to last event)."""
        return (
            "(SELECT CAST(round((max(s.timestamp) - min(s.timestamp)) / 1000000.0) AS INTEGER) FROM events s"
            " WHERE s.project_id = e.project_id AND s.session_id = e.session_id)"
        )

    def session_having(self, test: str) -> str:
        """True when the event's session passes ``test``, a condition on the session's duration in seconds
        written over ``max(s.timestamp)`` and ``min(s.timestamp)``; NULL for an event without a session."""
        return (
            "e.session_id IN (SELECT s.session_id FROM events s WHERE s.project_id = e.project_id"
            f" AND s.session_id = e.session_id GROUP BY s.session_id HAVING {test})"
        )

    def static_cohort_member(self) -> str:
        """True when ``e.person_id`` is a member of the static cohort whose id is the one bound parameter."""
        return "e.person_id IN (SELECT cp.person_id FROM cohort_people cp WHERE cp.cohort_id = ?)"

    def persons_as_events(self) -> str:
        """The project's persons (bound parameter: the project id) shaped as event rows: ``e.properties`` holds
        the person's properties and ``e.person_id`` is the person itself."""
        return (
            "(SELECT id, id AS person_id, uuid, properties, is_identified, created_at FROM persons"
            " WHERE project_id = ?)"
        )


DIALECT = SQLiteDialect()
