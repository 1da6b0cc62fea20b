"""The SQL dialect the filters compile to, and SQLite's implementation of it.

Everything engine-specific that the compilers emit goes through a :class:`Dialect`: reading a property out of
a JSON column, the text PostHog compares property values as, numbers, dates, regexes, quantiles, text
functions, and how an event row ``e`` reaches its person's and groups' properties, its session and its
cohorts. The compilers write only portable SQL themselves (``AND``/``OR``/``NOT``, comparisons, ``IN``,
``CASE``, ``coalesce``, ``nullif``, ``count``/``sum``/``avg``/``min``/``max``, ``?`` placeholders) around
what the dialect returns. They never pick a dialect: each is handed the one of the event store it will run on
(:attr:`EventStore.dialect <local_backend.store.engine.interface.EventStore.dialect>`); :class:`SQLiteDialect` is
the SQLite store's. Property keys and every user value are bound as parameters, never pasted into SQL; a
method returning ``(sql, params)`` gives the parameters its ``?`` marks take, in order, and a method whose
line says "binds one ``?``" returns SQL whose one placeholder the caller fills.

Registered functions of :class:`SQLiteDialect` (:func:`register_functions`, per connection):

===================  ==============================================================================
``il_regex(t, p)``   1 when RE2 pattern ``p`` occurs in ``t`` (:mod:`local_backend.safe_regex`), linear time
``il_float(v)``      ``v`` as a float when it reads as a number (ASCII, spaces ignored), else NULL
``il_date(v)``       ``v`` read as a date-time (:mod:`local_backend.iso_dates`): UTC microseconds, else NULL
``il_quantile(v,q)`` aggregate: the linearly interpolated ``q`` quantile of the non-NULL ``v``
``il_json_*(d, k)``  key ``k`` of a properties text ``d`` holding an escaped NUL (:mod:`local_backend.json_values`)
===================  ==============================================================================

A key is read with ``json_extract``/``json_type`` and a bound path ``$."key"`` when it is printable ASCII
without ``"`` or ``\\``: SQLite 3.40 compares a quoted label with the key's text as stored, escapes and all,
so any other key (a quote, a backslash, a control character; non-ASCII, which capture stores raw and a
plugin's reprocessing as ``\\u`` escapes) is looked up by its decoded name in ``json_each``. A text holding
``\\u0000`` is read in Python, as SQLite's JSON functions end a string at it.

A person-property condition (:meth:`SQLiteDialect.person_condition`) is evaluated once per person of the
project, not once per event: SQLite builds the set of persons it holds for, and the set it fails for, once per
statement (``LIST SUBQUERY``), and an event is looked up in them by its ``person_id``. An event whose person is
in neither (the condition is NULL for that person, or the person row is gone) is tested on its own, as before.
"""

from __future__ import annotations

import math
import re
import sqlite3
import weakref
from collections.abc import Sequence
from typing import Any

from ....iso_dates import read_date
from ....json_values import NUL_ESCAPE, json_property, json_text, json_type, json_value
from ....safe_regex import regex_search
from ..interface import HOGQL_SCALARS, PersonTest, Sql
from .hogql_arrays import register_array_functions
from .hogql_numbers import register_number_functions
from .hogql_times import register_time_functions

__all__ = ["SQLiteDialect", "DIALECT", "register_functions", "to_float", "quantile"]


def to_float(value: Any) -> float | None:
    """PostHog's ``toFloat64OrNull``: numbers as they are, numeric text read, anything else NULL."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    text = str(value).replace(" ", "")
    if not text.isascii():
        return None  # float() also reads other scripts' digits and spaces, which toFloat64OrNull does not
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


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


_REGISTERED: weakref.WeakSet[sqlite3.Connection] = weakref.WeakSet()


def register_functions(conn: sqlite3.Connection) -> None:
    """Make the dialect's functions available on ``conn`` (call before compiling queries for it); once per
    connection, as a calculation asks for its event store many times."""
    try:
        if conn in _REGISTERED:
            return
        _REGISTERED.add(conn)
    except TypeError:  # a plain sqlite3.Connection takes no weak reference: registered each time
        pass
    conn.create_function("il_regex", 2, regex_search, deterministic=True)
    conn.create_function("il_float", 1, to_float, deterministic=True)
    conn.create_function("il_date", 1, read_date, deterministic=True)
    conn.create_aggregate("il_quantile", 2, _Quantile)  # type: ignore[arg-type]
    conn.create_function("il_json_value", 2, json_value, deterministic=True)
    conn.create_function("il_json_type", 2, json_type, deterministic=True)
    conn.create_function("il_json_text", 2, json_text, deterministic=True)
    conn.create_function("il_json_property", 2, json_property, deterministic=True)
    register_time_functions(conn)  # those of HogQL queries (queries/sql)
    register_number_functions(conn)
    register_array_functions(conn)


_PATH_KEY = re.compile(r"[ !#-\[\]-~]*")
"""Keys a quoted path label reaches: printable ASCII but ``"`` and ``\\`` (see the module docstring)."""


def json_path(key: str) -> str:
    """The SQLite JSON path of a top-level key matching :data:`_PATH_KEY` (other keys have no path that SQLite
    3.40 matches whatever the stored escapes)."""
    return '$."' + key + '"'


class SQLiteDialect:
    """:class:`Dialect` for SQLite with the functions of :func:`register_functions`; methods as documented there."""

    def _lookup(self, function: str, column: str, key: str) -> Sql:
        """``json_extract`` or ``json_type`` of ``key``, for a text without an escaped NUL."""
        if _PATH_KEY.fullmatch(key):
            return f"{function}({column}, ?)", [json_path(key)]
        field = "value" if function == "json_extract" else "type"
        return f"(SELECT {field} FROM json_each({column}) WHERE key = ?)", [key]

    def _read(self, column: str, key: str, fallback: str, sql: str, params: list[Any]) -> Sql:
        """``sql`` reading ``key`` of ``column``, or where the text holds an escaped NUL ``fallback``: SQL whose
        each ``{args}`` stands for the arguments ``(column, ?)`` of an ``il_json_*`` function, ``?`` the key."""
        python = fallback.format(args=f"({column}, ?)")
        return (
            f"(CASE WHEN instr({column}, '{NUL_ESCAPE}') > 0 THEN {python} ELSE {sql} END)",
            [*([key] * fallback.count("{args}")), *params],
        )

    def extract(self, column: str, key: str) -> Sql:
        sql, params = self._lookup("json_extract", column, key)
        return self._read(column, key, "il_json_value{args}", sql, params)

    def json_type(self, column: str, key: str) -> Sql:
        sql, params = self._lookup("json_type", column, key)
        if _PATH_KEY.fullmatch(key):
            # a key SQLite finds is stored as written, so a text without it quoted holds no such key: the search
            # spares parsing the JSON of every row where the key is absent (most rows, for a rare key)
            sql, params = f"(CASE WHEN instr({column}, ?) = 0 THEN NULL ELSE {sql} END)", [f'"{key}"', *params]
        return self._read(column, key, "il_json_type{args}", sql, params)

    def text(self, column: str, key: str) -> Sql:
        kind, kind_params = self._lookup("json_type", column, key)
        value, value_params = self._lookup("json_extract", column, key)
        sql = (
            f"(CASE {kind} WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'null' THEN 'null'"
            f" ELSE coalesce({self.to_text(value)}, '') END)"
        )
        return self._read(column, key, "il_json_text{args}", sql, [*kind_params, *value_params])

    def breakdown_value(self, column: str, key: str, hot: str | None = None) -> Sql:
        # ``hot``: a generated column holding 'true'/'false' for booleans and the extracted value otherwise
        # (:mod:`local_backend.store.hot_properties`); reading it alone lets an index cover the breakdown
        if hot is not None:
            return f"nullif({self.to_text(hot)}, '')", []
        kind, kind_params = self._lookup("json_type", column, key)
        value, value_params = self._lookup("json_extract", column, key)
        sql = (
            f"(CASE {kind} WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'"
            f" ELSE nullif({self.to_text(value)}, '') END)"
        )
        fallback = "(CASE il_json_type{args} WHEN 'null' THEN NULL ELSE nullif(il_json_text{args}, '') END)"
        return self._read(column, key, fallback, sql, [*kind_params, *value_params])

    def to_text(self, value_sql: str) -> str:
        return f"CAST({value_sql} AS TEXT)"

    def number(self, value_sql: str) -> str:
        return f"il_float({value_sql})"

    def integer(self, value_sql: str) -> str:
        return f"CAST({self.number(value_sql)} AS INTEGER)"

    def date(self, value_sql: str) -> str:
        return f"il_date({value_sql})"

    def divide(self, left: str, right: str) -> str:
        return f"(CAST({left} AS REAL) / nullif({right}, 0))"

    def regex(self, text_sql: str) -> str:
        return f"il_regex({text_sql}, ?)"

    def contains(self, text_sql: str) -> str:
        return f"coalesce({text_sql}, '') LIKE ('%' || ? || '%')"

    def find(self, text_sql: str) -> str:
        return f"instr(lower({text_sql}), lower(?)) > 0"

    def like(self, text_sql: str, pattern_sql: str) -> str:
        # SQLite's LIKE is case blind: GLOB with LIKE's wildcards translated and GLOB's own ones made literal
        escaped = f"replace(replace(replace({pattern_sql}, '[', '[[]'), '*', '[*]'), '?', '[?]')"
        return f"({text_sql} GLOB replace(replace({escaped}, '%', '*'), '_', '?'))"

    def ilike(self, text_sql: str, pattern_sql: str) -> str:
        return f"(lower({text_sql}) LIKE lower({pattern_sql}))"

    def concat(self, parts: Sequence[str]) -> str:
        return "(" + " || ".join(f"coalesce({self.to_text(part)}, '')" for part in parts) + ")"

    def scalar(self, name: str, args: Sequence[str]) -> str:
        if name not in HOGQL_SCALARS:
            raise ValueError(f"{name} is not a HogQL scalar function")
        return f"{name}({', '.join(args)})"

    def text_array(self, parts: Sequence[str]) -> str:
        return "json_array(" + ", ".join(f"coalesce({part}, '')" for part in parts) + ")"

    def quantile(self, value_sql: str, level: float) -> str:
        return f"il_quantile({value_sql}, {float(level)!r})"

    def person_properties(self) -> str:
        return "(SELECT p.properties FROM persons p WHERE p.id = e.person_id)"

    def person_column(self, column: str) -> str:
        return f"(SELECT p.{column} FROM persons p WHERE p.id = e.person_id)"

    def person_condition(self, project_id: int, test: PersonTest) -> Sql:
        # Each person of the project is tested once per statement. An event whose person row is missing (or
        # has no person) reads NULL properties: its answer is the test of NULL, computed once (``missing``).
        # Each event is then looked up in one set, the persons whose answer differs from ``missing`` (for a
        # test-account filter, the few staff), instead of a lookup in the set of everyone else.
        tested, person_params = test("p.properties", lambda column: f"p.{column}")
        on_null, null_params = test("NULL", lambda column: "NULL")
        answer = f"({tested})"  # a condition is 1, 0 or NULL (:class:`Dialect`)
        missing = f"(SELECT {on_null})"
        # ``+p.project_id``: a scan of the persons table in row order reads the pages once; led by the
        # (project_id, uuid) index it would visit them in uuid order, twice as slow on the demo data
        persons = "SELECT p.id FROM persons p WHERE +p.project_id = ? AND"
        sql = (
            f"(CASE WHEN e.person_id IN ({persons} {answer} IS NOT {missing})"
            f" THEN (CASE WHEN {missing} IS NULL THEN e.person_id IN ({persons} {answer} = 1)"
            f" WHEN e.person_id IN ({persons} {answer} IS NULL) THEN NULL ELSE 1 - {missing} END)"
            f" ELSE {missing} END)"
        )
        found_params, missing_params = [project_id, *person_params], null_params
        return sql, [
            *found_params,
            *missing_params,
            *missing_params,
            *found_params,
            *found_params,
            *missing_params,
            *missing_params,
        ]

    def group_properties(self, index: int) -> str:
        return (
            "(SELECT g.properties FROM groups g WHERE g.project_id = e.project_id"
            f" AND g.group_type_index = {int(index)} AND g.group_key = e.group_{int(index)})"
        )

    def session_seconds(self) -> str:
        return (
            "(SELECT CAST(round((max(s.timestamp) - min(s.timestamp)) / 1000000.0) AS INTEGER) FROM events s"
            " WHERE s.project_id = e.project_id AND s.session_id = e.session_id)"
        )

    def session_duration(self) -> str:
        return "((max(s.timestamp) - min(s.timestamp)) / 1000000.0)"

    def session_having(self, test: str) -> str:
        return (
            "e.session_id IN (SELECT s.session_id FROM events s WHERE s.project_id = e.project_id"
            f" AND s.session_id = e.session_id GROUP BY s.session_id HAVING {test})"
        )

    def static_cohort_member(self) -> str:
        return "e.person_id IN (SELECT cp.person_id FROM cohort_people cp WHERE cp.cohort_id = ?)"

    def persons_as_events(self) -> str:
        return (
            "(SELECT id, id AS person_id, uuid, properties, is_identified, created_at FROM persons"
            " WHERE project_id = ?)"
        )


DIALECT = SQLiteDialect()
"""The SQLite event store's dialect (:attr:`SQLiteEventStore.dialect
<local_backend.store.engine.sqlite.event_store.SQLiteEventStore.dialect>`). Compilers never import it: they are handed
the dialect of the store they compile for (``tests/backend/queries/test_dialect_seam.py`` checks)."""
