"""A HogQL property read (``properties.key``) written as SQLite's own JSON functions, Python only where they differ.

HogQL reads a property as text: a string as it is, ``true``/``false`` for booleans, a number as SQLite's
``CAST(... AS TEXT)`` prints it, NULL for null or a missing key. :func:`~local_backend.json_values.json_property`
(``il_json_property``) answers that for any text; SQLite's ``json_type``/``json_extract`` answer the same for
most, and cost no Python call a row. Three cases go to the Python function: a text holding an escaped NUL (SQLite
ends a JSON string there), an array or object value (SQLite keeps the stored text's escapes and spacing where
Python writes its own), and a key that SQLite 3.40 cannot name in a path (see :mod:`.dialect`).

An event property with a hot column (:mod:`local_backend.store.hot_properties`) is read from it, so an index
holding the column can answer the query alone. The column does not say whether the value was an array or
object, so a value starting with ``[`` or ``{`` is read again in Python; and the events whose text holds an
escaped NUL are found once per statement through the partial index of migration 0033 (they are in it).
"""

from __future__ import annotations

from sqlglot import exp

from ...hot_properties import hot_column
from ..interface.sql_tree import events_source_of
from .dialect import _PATH_KEY, json_path

__all__ = [
    "HOT_PREFIX",
    "RAW_ALIAS",
    "RAW_EVENTS",
    "ROW_COLUMN",
    "WITH_NUL",
    "WITH_NUL_MARK",
    "events_source_of",
    "property_read",
]

HOT_PREFIX = "__hogql_"
"""The events source names each hot column ``__hogql_<column>``, out of the way of the query's own names."""
ROW_COLUMN = "__hogql_row"
"""The events source's name for the event's rowid."""
RAW_EVENTS = "__hogql_raw_events__"
"""The events table itself, named so that the printer leaves it be (it makes every other ``events`` this
project's rows): a read of one row by its rowid, which the events source gave."""
RAW_ALIAS = "__hogql_x"
_NUL = "\\u0000"
WITH_NUL = "SELECT id FROM events WHERE project_id = :hogql_project AND instr(properties, '\\u0000') > 0"
"""The project's events whose text holds an escaped NUL, read through the partial index of migration 0033."""
WITH_NUL_MARK = "__HOGQL_WITH_NUL__"
"""Where :data:`WITH_NUL` stands in a printed tree (a call of that name, swapped for it once printed)."""


def _call(name: str, *args: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=name, expressions=list(args))


def _as_text(value: exp.Expression) -> exp.Expression:
    """``value || ''``: SQLite's ``CAST(value AS TEXT)`` (numbers printed alike, NULL kept), cheaper to print."""
    return exp.Paren(this=exp.DPipe(this=value, expression=exp.Literal.string("")))


def _text_of(row: exp.Expression) -> exp.Expression:
    """The properties text of the event whose rowid is ``row``, read from the table itself."""
    raw = exp.Table(this=exp.to_identifier(RAW_EVENTS), alias=exp.TableAlias(this=exp.to_identifier(RAW_ALIAS)))
    where = exp.EQ(this=exp.column("id", table=RAW_ALIAS), expression=row)
    return exp.Subquery(this=exp.select(exp.column("properties", table=RAW_ALIAS)).from_(raw).where(where))


def _hot_read(column: exp.Column, key: str, hot: str) -> exp.Expression:
    value = exp.column(HOT_PREFIX + hot, table=column.table or None)
    row = exp.column(ROW_COLUMN, table=column.table or None)
    # GLOB's class [[{]: a value that may be an array or object. The events with an escaped NUL: whether there
    # are any is asked once per statement, so that a project without them costs no lookup per row.
    bracket = exp.Glob(this=value.copy(), expression=exp.Literal.string("[[{]*"))
    marked = exp.Anonymous(this=WITH_NUL_MARK, expressions=[])
    any_nul = exp.Paren(this=exp.Exists(this=marked.copy()))
    with_nul = exp.and_(any_nul, exp.In(this=row.copy(), expressions=[marked]))
    python = _call("il_json_property", _text_of(row), exp.Literal.string(key))
    return exp.Case(
        ifs=[exp.If(this=exp.or_(bracket, with_nul), true=python)],
        default=_as_text(value),
    )


def property_read(column: exp.Column, key: str, ctes: set[str]) -> exp.Expression:
    """``column``'s property ``key`` as HogQL reads it (see the module docstring)."""
    hot = hot_column(key) if column.name == "properties" and events_source_of(column, ctes) else None
    if hot is not None:
        return _hot_read(column, key, hot)
    python = _call("il_json_property", column.copy(), exp.Literal.string(key))
    if not _PATH_KEY.fullmatch(key):
        return python
    path = exp.Literal.string(json_path(key))
    typed = exp.Case(
        this=_call("json_type", column.copy(), path),
        ifs=[
            *(exp.If(this=exp.Literal.string(b), true=exp.Literal.string(b)) for b in ("true", "false")),
            *(exp.If(this=exp.Literal.string(kind), true=python.copy()) for kind in ("array", "object")),
        ],
        default=_as_text(_call("json_extract", column.copy(), path.copy())),
    )
    has_nul = exp.GT(this=_call("instr", column.copy(), exp.Literal.string(_NUL)), expression=exp.Literal.number(0))
    return exp.Case(ifs=[exp.If(this=has_nul, true=python)], default=typed)
