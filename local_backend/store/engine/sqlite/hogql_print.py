"""A checked HogQL tree printed as SQLite SQL over this project's rows only.

Every ``events`` / ``persons`` reference (not a CTE of the query's own) becomes a subquery of this project's
rows, so no shape of query (join, alias, subquery, union) reaches another project or another table. Functions
are written with SQLite's own or with :mod:`.hogql_times`, :mod:`.hogql_numbers` and :mod:`.hogql_arrays`
(arrays are JSON text); the project id is a bound parameter, as are the node's values and the query's clock.
"""

from __future__ import annotations

from sqlglot import exp

from ..interface.sql_tree import DATE_UNITS, NAMED, hogql_function_name, transform_up, trunc_unit

__all__ = ["print_sqlite", "EVENTS_SOURCE", "PERSONS_SOURCE", "GROUPS_SOURCE"]

EVENTS_SOURCE = (
    "SELECT e.uuid AS uuid, e.event AS event, e.timestamp AS timestamp, e.distinct_id AS distinct_id,"
    " p.uuid AS person_id, e.properties AS properties, e.elements_chain AS elements_chain,"
    " e.session_id AS session_id, e.created_at AS created_at, p.properties AS person_properties"
    " FROM events AS e JOIN persons AS p ON p.id = e.person_id WHERE e.project_id = :hogql_project"
)
PERSONS_SOURCE = (
    "SELECT uuid AS id, created_at AS created_at, properties AS properties, is_identified AS is_identified"
    " FROM persons WHERE project_id = :hogql_project"
)
GROUPS_SOURCE = (
    'SELECT group_type_index AS "index", group_key AS "key", created_at AS created_at, properties AS properties'
    " FROM groups WHERE project_id = :hogql_project"
)
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


class SQLitePrinter:
    def __call__(self, node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Identifier) and node.name.lower() in _KEYWORDS:  # groups' index and key
            node.set("quoted", True)
            return node
        if isinstance(node, exp.Add | exp.Sub) and isinstance(node.expression, exp.Interval):
            amount, unit = _interval(node.expression)
            if isinstance(node, exp.Sub):
                amount = exp.Neg(this=amount)
            return _call("il_sql_add", node.this, amount, exp.Literal.string(unit), _tz())
        if isinstance(node, exp.Func):
            return self._function(node)
        return node

    def _function(self, node: exp.Func) -> exp.Expression:
        name = hogql_function_name(node).lower()
        args = list(node.expressions) if isinstance(node, NAMED) else []
        if name == "hogql_property":
            return _call("il_json_property", args[0], args[1])
        if name == "now":
            return exp.Placeholder(this=exp.var("hogql_now"))
        if name == "today":
            return _call("il_sql_date", exp.Placeholder(this=exp.var("hogql_now")), _tz())
        # a second argument is the zone of a toTimeZone value (queries/sql/zones.py), else the project's
        zone = args[1] if len(args) == 2 and name in _ZONED else _tz()
        if name in _STARTS:
            return _call("il_sql_start", exp.Literal.string(_STARTS[name]), args[0], zone)
        if name in _START_DATES:
            return _call("il_sql_start_date", exp.Literal.string(_START_DATES[name]), args[0], zone)
        if isinstance(node, exp.TimestampTrunc | exp.DateTrunc):
            unit = trunc_unit(node)
            start = "il_sql_start_date" if unit in DATE_UNITS else "il_sql_start"
            return _call(start, exp.Literal.string(unit), node.this, node.args.get("zone") or _tz())
        if name == "todate":
            return _call("il_sql_date", args[0], zone)
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
            return exp.Count(this=exp.Distinct(expressions=[value]))
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


def print_sqlite(tree: exp.Query, ctes: set[str]) -> str:
    """``tree`` (checked and rewritten, values as named parameters) as SQLite SQL; binds ``hogql_project``,
    ``hogql_tz`` and ``hogql_now`` besides the node's values."""
    printed = transform_up(tree, SQLitePrinter())
    sources = {"events": f"({EVENTS_SOURCE})", "persons": f"({PERSONS_SOURCE})", "groups": f"({GROUPS_SOURCE})"}
    for table in list(printed.find_all(exp.Table)):
        name = table.name.lower()
        if name in ctes:
            continue
        # a name no query can spell (CTE names are identifiers the query wrote; tables are checked), swapped
        # for the project's rows once printed
        alias = exp.TableAlias(this=exp.to_identifier(table.alias or table.name))
        table.replace(exp.Table(this=exp.to_identifier(f"__hogql_rows_{name}__"), alias=alias))
    text = printed.sql(dialect="sqlite", copy=False)
    for name, source in sources.items():
        text = text.replace(f"__hogql_rows_{name}__", source)
    return text
