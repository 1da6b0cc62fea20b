"""A checked HogQL tree printed as SQLite SQL over this project's rows only.

Every ``events`` / ``persons`` reference (not a CTE of the query's own) becomes a subquery of this project's
rows, so no shape of query (join, alias, subquery, union) reaches another project or another table. Functions
are written with SQLite's own or with :mod:`.hogql_times`, :mod:`.hogql_numbers` and :mod:`.hogql_arrays`
(arrays are JSON text); the project id is a bound parameter, as are the node's values and the query's clock.

What a query does not read costs nothing: the events source joins the persons table only for a query that
reads a person column (``person_id``, ``person.properties``); an event whose person row is missing is kept,
its person columns NULL, as a left join keeps it (PostHog's events stand without their person). Property reads
are SQLite's JSON functions or a hot column (:mod:`.hogql_properties`), and the calendar in a zone is
arithmetic on the zone's offsets (:mod:`.hogql_offsets`), each with the Python function behind it where it
would answer differently. A query that reads nothing of an event but what ``idx_events_browser`` holds, and
reads ``$browser`` or ``$os`` from it, is pinned to that index (SQLite would read each row to compute the
VIRTUAL column); persons counted distinct or grouped are told apart by their rowid, cheaper to sort than uuids.
"""

from __future__ import annotations

from sqlglot import exp

from ...hot_properties import HOT_PROPERTIES
from ..interface.sql_tree import DATE_UNITS, NAMED, hogql_function_name, reads_persons, transform_up, trunc_unit
from .hogql_offsets import date_sql, start_sql
from .hogql_properties import (
    HOT_PREFIX,
    RAW_ALIAS,
    RAW_EVENTS,
    ROW_COLUMN,
    WITH_NUL,
    WITH_NUL_MARK,
    events_source_of,
    property_read,
)

__all__ = ["print_sqlite", "events_source", "PERSONS_SOURCE", "GROUPS_SOURCE"]

_EVENT_COLUMNS = (
    "SELECT e.uuid AS uuid, e.event AS event, e.timestamp AS timestamp, e.distinct_id AS distinct_id,"
    " e.properties AS properties, e.elements_chain AS elements_chain, e.session_id AS session_id,"
    f" e.created_at AS created_at, e.id AS {ROW_COLUMN}, "
    + ", ".join(f"e.{column} AS {HOT_PREFIX}{column}" for column in HOT_PROPERTIES.values())
)
PERSON_KEY = "__hogql_person_key"
_PERSON_COLUMNS = f", p.uuid AS person_id, p.properties AS person_properties, p.id AS {PERSON_KEY}"


def events_source(*, persons: bool, index: str | None = None) -> str:
    """This project's events; with ``persons``, beside each its person's uuid and properties (NULL for an
    event whose person row is missing); read through ``index`` when given."""
    table = f"events AS e INDEXED BY {index}" if index else "events AS e"
    if not persons:
        return f"{_EVENT_COLUMNS} FROM {table} WHERE e.project_id = :hogql_project"
    return (
        # the project named again: a person id handed out anew after its row went could be another project's
        f"{_EVENT_COLUMNS}{_PERSON_COLUMNS} FROM {table} LEFT JOIN persons AS p ON p.id = e.person_id"
        " AND p.project_id = :hogql_project WHERE e.project_id = :hogql_project"
    )


PERSONS_SOURCE = (
    "SELECT uuid AS id, created_at AS created_at, properties AS properties, is_identified AS is_identified"
    " FROM persons WHERE project_id = :hogql_project"
)
GROUPS_SOURCE = (
    'SELECT group_type_index AS "index", group_key AS "key", created_at AS created_at, properties AS properties'
    " FROM groups WHERE project_id = :hogql_project"
)
_HOT_INDEXED = frozenset({f"{HOT_PREFIX}v_browser", f"{HOT_PREFIX}v_os"})
_INDEXED = frozenset({*_HOT_INDEXED, "event", "timestamp", "person_id", PERSON_KEY, ROW_COLUMN})
"""The events source's columns that ``idx_events_browser`` holds (with the rowid); ``person_id`` is the
person's uuid, looked up by the event's ``person_id``, which the index holds."""
_KEYWORDS = frozenset({"index", "key", "order", "group", "table", "values", "default", "check", "column", "limit"})
_STARTS = {"tostartofhour": "hour", "tostartofday": "day"}
_START_DATES = {"tostartofweek": "week", "tostartofmonth": "month"}
_ZONED = frozenset({*_STARTS, *_START_DATES, "todate", "todatetime"})


def _call(name: str, *args: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=name, expressions=list(args))


def _tz() -> exp.Expression:
    return exp.Placeholder(this=exp.var("hogql_tz"))


def _unit(node: exp.Expression | None) -> str:
    if node is None:
        return "day"
    if isinstance(node, exp.Literal):
        return str(node.this).lower()
    return node.name.lower()


def _interval(node: exp.Interval) -> tuple[exp.Expression, str]:
    amount = node.this
    if isinstance(amount, exp.Literal) and amount.is_string:
        amount = exp.Literal.number(amount.this)
    return amount, _unit(node.args.get("unit"))


def _array_call(node: exp.Func, name: str, args: list[exp.Expression]) -> exp.Expression | None:
    """An array function (queries/sql/arrays.py) over arrays held as JSON text; None for any other call."""
    if isinstance(node, exp.Array):
        return _call("json_array", *node.expressions)
    if name == "grouparray":  # ClickHouse's groupArray leaves NULLs out
        value = args[0]
        where = exp.Where(this=exp.Not(this=exp.Is(this=value.copy(), expression=exp.Null())))
        return exp.Filter(this=_call("json_group_array", value), expression=where)
    if isinstance(node, exp.ArrayContains):
        return exp.Paren(this=exp.GT(this=_call("il_array_index", node.this, node.expression), expression=_zero()))
    if name == "indexof":
        return _call("il_array_index", *args)
    if name == "hogql_array_length":
        return _call("json_array_length", args[0])
    if name in ("hogql_array_empty", "hogql_array_not_empty", "empty", "notempty"):
        length = _call("json_array_length" if name.startswith("hogql") else "length", args[0])
        compare = exp.EQ if name in ("hogql_array_empty", "empty") else exp.GT
        return exp.Paren(this=compare(this=length, expression=_zero()))
    if name == "hogql_array_element":
        return _call("il_array_element", *args)
    if name == "hogql_split_by_char":
        return _call("il_split_by_char", *args)
    if name == "arraystringconcat":
        return _call("il_array_join", args[0], args[1] if len(args) == 2 else exp.Literal.string(""))
    if name == "arraysort":
        return _call("il_array_sort", args[0])
    return None


def _zero() -> exp.Expression:
    return exp.Literal.number(0)


_FRAGMENT = "__HOGQL_FRAGMENT_{}__"  # as sqlglot prints a call's name


class SQLitePrinter:
    """Each node of a tree (children first) as SQLite reads it; SQL written as text (the calendar's offset
    searches) is held in :attr:`fragments`, each under a mark that :func:`print_sqlite` swaps for it."""

    def __init__(self, *, timezone: str, now_us: int, ctes: set[str]) -> None:
        self.timezone = timezone
        self.now_us = now_us
        self.ctes = ctes
        self.fragments: dict[str, str] = {}

    def _fragment(self, sql: str) -> exp.Expression:
        mark = _FRAGMENT.format(len(self.fragments))
        self.fragments[mark] = sql
        return exp.Anonymous(this=mark, expressions=[])

    def _calendar(self, kind: str, unit: str, value: exp.Expression, zone: exp.Expression) -> exp.Expression | None:
        """The start (``kind`` "start") or first day ("date") of the ``unit`` holding time ``value`` as offset
        arithmetic (:mod:`.hogql_offsets`), for a column in a zone known here; None otherwise."""
        if not isinstance(value, exp.Column):  # the arithmetic names its time a dozen times: a column only
            return None
        if isinstance(zone, exp.Literal) and zone.is_string:
            tz = str(zone.this)
        elif isinstance(zone, exp.Placeholder) and zone.name == "hogql_tz":
            tz = self.timezone
        else:
            return None
        time_sql, zone_sql = value.sql(dialect="sqlite"), zone.sql(dialect="sqlite")
        write = date_sql if kind == "date" else start_sql
        try:
            sql = write(time_sql, zone_sql, tz, self.now_us, unit)
        except (KeyError, ValueError):  # a zone the database lacks: Python's functions answer as they always did
            return None
        return None if sql is None else self._fragment(sql)

    def __call__(self, node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Identifier) and node.name.lower() in _KEYWORDS:  # groups' index and key
            node.set("quoted", True)
            return node
        if isinstance(node, exp.Add | exp.Sub) and isinstance(node.expression, exp.Interval):
            amount, unit = _interval(node.expression)
            if isinstance(node, exp.Sub):
                amount = exp.Neg(this=amount)
            return _call("il_sql_add", node.this, amount, exp.Literal.string(unit), _tz())
        if isinstance(node, exp.Group) or (isinstance(node, exp.Distinct) and isinstance(node.parent, exp.Count)):
            node.set("expressions", [self._person_key(value) for value in node.expressions])
            return node
        if isinstance(node, exp.Func):
            return self._function(node)
        return node

    def _person_key(self, value: exp.Expression) -> exp.Expression:
        """An event's ``person_id`` counted distinct or grouped by: the person's rowid, which tells persons
        apart as their uuid does (NULL alike for a missing row), and is cheaper to sort than the uuid text."""
        if isinstance(value, exp.Column) and value.name == "person_id" and events_source_of(value, self.ctes):
            return exp.column(PERSON_KEY, table=value.table or None)
        return value

    def _function(self, node: exp.Func) -> exp.Expression:
        name = hogql_function_name(node).lower()
        args = list(node.expressions) if isinstance(node, NAMED) else []
        if name == "hogql_property":
            column, key = args
            if isinstance(column, exp.Column):
                return property_read(column, str(key.this), self.ctes)
            return _call("il_json_property", column, key)
        if name == "now":
            return exp.Placeholder(this=exp.var("hogql_now"))
        if name == "today":
            return _call("il_sql_date", exp.Placeholder(this=exp.var("hogql_now")), _tz())
        # a second argument is the zone of a toTimeZone value (queries/sql/zones.py), else the project's
        zone = args[1] if len(args) == 2 and name in _ZONED else _tz()
        if name in _STARTS:
            written = self._calendar("start", _STARTS[name], args[0], zone)
            return written or _call("il_sql_start", exp.Literal.string(_STARTS[name]), args[0], zone)
        if name in _START_DATES:
            written = self._calendar("date", _START_DATES[name], args[0], zone)
            return written or _call("il_sql_start_date", exp.Literal.string(_START_DATES[name]), args[0], zone)
        if isinstance(node, exp.TimestampTrunc | exp.DateTrunc):
            unit = trunc_unit(node)
            zone = node.args.get("zone") or _tz()
            kind, start = ("date", "il_sql_start_date") if unit in DATE_UNITS else ("start", "il_sql_start")
            written = self._calendar(kind, unit, node.this, zone)
            return written or _call(start, exp.Literal.string(unit), node.this, zone)
        if name == "todate":
            return self._calendar("date", "day", args[0], zone) or _call("il_sql_date", args[0], zone)
        if name == "todatetime":
            return _call("il_sql_datetime", args[0], zone)
        if name == "totimezone":  # the same moment (UTC microseconds); the answer shows it in the zone of its type
            return args[0]
        array = _array_call(node, name, args)
        if array is not None:
            return array
        if isinstance(node, exp.DateDiff):
            unit = _unit(node.args.get("unit"))
            return _call("il_sql_diff", exp.Literal.string(unit), node.expression, node.this, _tz())
        if name in ("uniq", "uniqexact"):
            value = node.this if not isinstance(node, NAMED) else args[0]
            return exp.Count(this=exp.Distinct(expressions=[self._person_key(value)]))
        if isinstance(node, exp.Quantile):
            return _call("il_quantile", node.this, node.args["quantile"])
        if isinstance(node, exp.Median):
            return _call("il_quantile", node.this, exp.Literal.number(0.5))
        if name == "multiif":
            ifs = [exp.If(this=args[i], true=args[i + 1]) for i in range(0, len(args) - 1, 2)]
            return exp.Case(ifs=ifs, default=args[-1])
        if name == "ifnull":
            return exp.Coalesce(this=args[0], expressions=args[1:])
        if name == "tostring":
            return exp.Cast(this=args[0], to=exp.DataType.build("TEXT"))
        if name == "toint":
            return _call("il_sql_to_int", args[0])
        if name == "tofloat":
            return _call("il_sql_to_float", args[0])
        if isinstance(node, exp.RegexpLike):
            return _call("il_regex", node.this, node.expression)
        if isinstance(node, exp.Floor):
            return exp.Cast(this=exp.Anonymous(this="floor", expressions=[node.this]), to=exp.DataType.build("REAL"))
        return node


def _covered_by(printed: exp.Expression) -> bool:
    """Whether the printed tree reads nothing of an event but what ``idx_events_browser`` holds, and reads a
    hot column it holds (``$browser``, ``$os``): then reading the index alone answers it, where SQLite would
    read each row to compute the VIRTUAL column. A name the query gave (an alias) is no column of the events;
    a name this cannot place keeps SQLite's own choice. The index changes the plan, never the rows."""
    names: set[str] = set()
    aliases: set[str] = set()
    for node in printed.walk():
        if isinstance(node, exp.Column) and node.table != RAW_ALIAS:
            names.add(node.name)
        elif isinstance(node, exp.Alias | exp.TableAlias):
            aliases.add(node.alias if isinstance(node, exp.Alias) else node.name)
        elif isinstance(node, exp.Star) and not isinstance(node.parent, exp.Count):
            return False
    names -= aliases
    return bool(names & _HOT_INDEXED) and names <= _INDEXED


def print_sqlite(
    tree: exp.Query, ctes: set[str], *, timezone: str, now_us: int, browser_index: str | None = None
) -> str:
    """``tree`` (checked and rewritten, values as named parameters) as SQLite SQL for a project in ``timezone``
    queried at ``now_us``; binds ``hogql_project``, ``hogql_tz`` and ``hogql_now`` besides the node's values.
    ``browser_index``: the name of ``idx_events_browser`` where the database has it (a bulk load drops it)."""
    persons = reads_persons(tree)
    printer = SQLitePrinter(timezone=timezone, now_us=now_us, ctes=ctes)
    printed = transform_up(tree, printer)
    index = browser_index if browser_index and _covered_by(printed) else None
    sources = {
        "events": f"({events_source(persons=persons, index=index)})",
        "persons": f"({PERSONS_SOURCE})",
        "groups": f"({GROUPS_SOURCE})",
    }
    for table in list(printed.find_all(exp.Table)):
        name = table.name.lower()
        if name in ctes or name == RAW_EVENTS:
            continue
        # a name no query can spell (CTE names are identifiers the query wrote; tables are checked), swapped
        # for the project's rows once printed
        alias = exp.TableAlias(this=exp.to_identifier(table.alias or table.name))
        table.replace(exp.Table(this=exp.to_identifier(f"__hogql_rows_{name}__"), alias=alias))
    text = printed.sql(dialect="sqlite", copy=False)
    for name, source in sources.items():
        text = text.replace(f"__hogql_rows_{name}__", source)
    for mark, fragment in [*printer.fragments.items(), (WITH_NUL_MARK, WITH_NUL)]:
        text = text.replace(f"{mark}()", fragment)
    return text.replace(RAW_EVENTS, "events")
