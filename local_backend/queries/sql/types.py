"""Each output column's ClickHouse type, read from the tree (never from values), through subqueries and CTEs.

Both engines answer with these names; the SQLite engine converts values on the way out by them (a
``DateTime64`` travels as UTC microseconds inside SQLite and leaves as ISO text in the project's zone).
"""

from __future__ import annotations

import re

from sqlglot import exp

from ...store.engine.interface.sql_tree import DATE_UNITS, hogql_function_name, trunc_unit

__all__ = [
    "DATETIME",
    "Scopes",
    "column_types",
    "common_type",
    "element_of",
    "is_array",
    "is_datetime",
    "output_columns",
    "type_of",
    "zone_of",
    "zoned",
]

DATETIME = "DateTime"
"""A time shown in the project's zone; ``DateTime64(6, 'Zone')`` (:func:`zoned`) is one shown in another zone."""
_ZONED = re.compile(r"DateTime64\(6, '([^']+)'\)")
_NUMBERS = ("Int64", "UInt64", "Float64")
_EVENT_COLUMNS = {
    "uuid": "UUID",
    "event": "String",
    "timestamp": DATETIME,
    "distinct_id": "String",
    "person_id": "UUID",
    "properties": "String",
    "elements_chain": "String",
    "session_id": "Nullable(String)",
    "created_at": DATETIME,
    "person_properties": "String",
}
_PERSON_COLUMNS = {"id": "UUID", "created_at": DATETIME, "properties": "String", "is_identified": "Bool"}
_GROUP_COLUMNS = {"index": "Int64", "key": "String", "created_at": DATETIME, "properties": "String"}
GROUP_STAR = ("index", "key", "created_at", "properties")
EVENT_STAR = ("uuid", "event", "properties", "timestamp", "distinct_id", "elements_chain", "created_at")
PERSON_STAR = ("id", "created_at", "properties", "is_identified")
_BY_FUNCTION = {
    "count": "UInt64",
    "countif": "UInt64",
    "uniq": "UInt64",
    "uniqexact": "UInt64",
    "avg": "Float64",
    "median": "Float64",
    "quantile": "Float64",
    "tostartofhour": DATETIME,
    "tostartofday": DATETIME,
    "tostartofweek": "Date",
    "tostartofmonth": "Date",
    "todate": "Date",
    "todatetime": DATETIME,
    "datediff": "Int64",
    "now": DATETIME,
    "today": "Date",
    "lower": "String",
    "upper": "String",
    "concat": "String",
    "substring": "String",
    "length": "UInt64",
    "trim": "String",
    "tostring": "String",
    "toint": "Int64",
    "tofloat": "Float64",
    "match": "Bool",
    "has": "Bool",
    "empty": "Bool",
    "notempty": "Bool",
    "hogql_array_empty": "Bool",
    "hogql_array_not_empty": "Bool",
    "indexof": "UInt64",
    "hogql_array_length": "UInt64",
    "arraystringconcat": "String",
    "splitbychar": "Array(String)",
    "hogql_split_by_char": "Array(String)",
    "hogql_property": "Nullable(String)",
    "datetrunc": DATETIME,
    "row_number": "UInt64",
    "rank": "UInt64",
    "dense_rank": "UInt64",
    "floor": "Float64",
}
_SAME_AS_ARGUMENT = {
    "sum", "min", "max", "if", "coalesce", "ifnull", "multiif", "round", "abs", "lag", "lead", "arraysort",
}  # fmt: skip
# functions whose answer is a time in their argument's zone
_ZONE_OF_ARGUMENT = {"tostartofhour", "tostartofday", "datetrunc"}


def zoned(zone: str) -> str:
    """The type of a time shown in ``zone`` (``toTimeZone``'s answer)."""
    return f"DateTime64(6, '{zone}')"


def zone_of(kind: str) -> str | None:
    """The zone a time of type ``kind`` is shown in, None for the project's zone or a type that is no time."""
    match = _ZONED.fullmatch(kind)
    return match.group(1) if match else None


def is_datetime(kind: str) -> bool:
    return kind == DATETIME or zone_of(kind) is not None


def is_array(kind: str) -> bool:
    return kind.startswith("Array(")


def element_of(kind: str) -> str:
    """The type of an array's elements (``Nothing`` for the empty literal ``[]``)."""
    return kind[len("Array(") : -1]


def _not_null(kind: str) -> str:
    return kind[len("Nullable(") : -1] if kind.startswith("Nullable(") else kind


def common_type(kinds: list[str]) -> str | None:
    """The type values of ``kinds`` share in one array (ClickHouse's supertype, within the types HogQL queries
    have here); None when they share none (text beside numbers, a time beside text, arrays of arrays)."""
    present = [kind for kind in kinds if kind not in ("Nullable(Nothing)", "Nothing")]
    if not present:
        return "Nullable(Nothing)" if kinds else "Nothing"
    nullable = len(present) < len(kinds) or any(kind.startswith("Nullable(") for kind in present)
    bases = {"String" if _not_null(kind) == "UUID" else _not_null(kind) for kind in present}
    if any(is_array(kind) for kind in bases):
        return None
    if bases <= set(_NUMBERS):
        base = "Float64" if "Float64" in bases else "Int64" if "Int64" in bases else "UInt64"
    elif len(bases) == 1:
        base = bases.pop()
    else:
        return None
    if nullable and base in ("String", *_NUMBERS):
        return f"Nullable({base})"
    return base


def _name(node: exp.Expression) -> str:
    return hogql_function_name(node).lower() if isinstance(node, exp.Func) else ""


def type_of(node: exp.Expression, scope: dict[str, str]) -> str:
    """The ClickHouse type of ``node`` with the columns of ``scope`` (name -> type) in reach."""
    if isinstance(node, exp.Alias | exp.Paren):
        return type_of(node.this, scope)
    if isinstance(node, exp.Column):
        return scope.get(node.name, "String")
    if isinstance(node, exp.Literal):
        if node.is_string:
            return "String"
        return "Float64" if "." in str(node.this) else "Int64"
    if isinstance(node, exp.Boolean) or isinstance(node, exp.Predicate | exp.Not | exp.And | exp.Or):
        return "Bool"
    if isinstance(node, exp.Null):
        return "Nullable(Nothing)"
    if isinstance(node, exp.Window):
        return type_of(node.this, scope)
    if isinstance(node, exp.Neg):
        kind = type_of(node.this, scope)
        return "Int64" if kind == "UInt64" else kind
    if isinstance(node, exp.Array):
        return f"Array({common_type([type_of(e, scope) for e in node.expressions]) or 'String'})"
    if isinstance(node, exp.Bracket):
        kind = type_of(node.this, scope)
        return element_of(kind) if is_array(kind) else "String"
    if isinstance(node, exp.Div):
        return "Float64"
    if isinstance(node, exp.Sub | exp.Add) and isinstance(node.expression, exp.Interval):
        return type_of(node.this, scope)
    if isinstance(node, exp.Binary):
        left, right = type_of(node.left, scope), type_of(node.right, scope)
        return "Float64" if "Float64" in (left, right) else "Int64"
    if isinstance(node, exp.Cast):
        return "String"
    if isinstance(node, exp.Case):
        first = node.args.get("ifs") or []
        return type_of(first[0].args["true"], scope) if first else "String"
    name = _name(node)
    arguments = [node.this] if node.this is not None and isinstance(node.this, exp.Expression) else []
    arguments += list(node.expressions) if not arguments else []
    if name == "totimezone":
        zone = node.expressions[1] if len(node.expressions) == 2 else None
        return zoned(str(zone.this)) if isinstance(zone, exp.Literal) and zone.is_string else DATETIME
    if name == "grouparray" and node.expressions:
        return f"Array({_not_null(type_of(node.expressions[0], scope))})"
    if name in ("hogql_array_element",):
        kind = type_of(node.expressions[0], scope)
        return element_of(kind) if is_array(kind) else "String"
    if name in _ZONE_OF_ARGUMENT and arguments:
        kind = type_of(arguments[0], scope)
        if name == "datetrunc" and trunc_unit(node) in DATE_UNITS:
            return "Date"
        return kind if zone_of(kind) else DATETIME
    if name == "datetrunc":
        return "Date" if trunc_unit(node) in DATE_UNITS else DATETIME
    if name in _BY_FUNCTION:
        return _BY_FUNCTION[name]
    if name in _SAME_AS_ARGUMENT:
        argument = node.args.get("true") if name == "if" else (arguments or [None])[0]
        if name == "multiif" and len(node.expressions) > 1:
            argument = node.expressions[1]
        kind = type_of(argument, scope) if argument is not None else "String"
        return "Int64" if name == "sum" and kind in ("Int64", "UInt64", "Bool") else kind
    return "String"


def _source_columns(source: exp.Expression, ctes: dict[str, exp.Query]) -> dict[str, str]:
    if isinstance(source, exp.Table):
        name = source.name.lower()
        if name in ctes:
            return dict(output_columns(ctes[name], ctes))
        return dict({"events": _EVENT_COLUMNS, "persons": _PERSON_COLUMNS, "groups": _GROUP_COLUMNS}[name])
    if isinstance(source, exp.Subquery):
        return dict(output_columns(source.this, ctes))
    return {}


def column_types(select: exp.Select, ctes: dict[str, exp.Query]) -> dict[str, str]:
    """The columns in reach of ``select``'s expressions: those of its FROM and JOIN sources."""
    scope: dict[str, str] = {}
    sources = [select.args["from_"].this] if select.args.get("from_") else []
    sources += [join.this for join in select.args.get("joins") or []]
    for source in sources:
        for name, kind in _source_columns(source, ctes).items():
            scope.setdefault(name, kind)
    return scope


def star_names(source: exp.Expression, ctes: dict[str, exp.Query]) -> list[str]:
    if isinstance(source, exp.Table) and source.name.lower() not in ctes:
        return list({"events": EVENT_STAR, "persons": PERSON_STAR, "groups": GROUP_STAR}[source.name.lower()])
    return list(_source_columns(source, ctes))


def output_columns(query: exp.Query, ctes: dict[str, exp.Query] | None = None) -> list[tuple[str, str]]:
    """(name, type) of each column ``query`` answers with, ``*`` expanded."""
    ctes = dict(ctes or {})
    for cte in query.find_all(exp.CTE):
        ctes.setdefault(cte.alias_or_name.lower(), cte.this)
    if isinstance(query, exp.Union):
        return output_columns(query.left, ctes)
    if isinstance(query, exp.Subquery):
        return output_columns(query.this, ctes)
    assert isinstance(query, exp.Select)
    scope = column_types(query, ctes)
    columns: list[tuple[str, str]] = []
    for expression in query.expressions:
        if isinstance(expression, exp.Star) or (isinstance(expression, exp.Column) and expression.is_star):
            source = query.args["from_"].this
            for name in star_names(source, ctes):
                columns.append((name, scope.get(name, "String")))
            continue
        name = (
            expression.alias_or_name if isinstance(expression, exp.Alias | exp.Column) else expression.sql("clickhouse")
        )
        columns.append((name, type_of(expression, scope)))
    return columns


class Scopes:
    """The column types in reach of each SELECT, read once per SELECT."""

    def __init__(self, tree: exp.Query) -> None:
        self.ctes = {cte.alias_or_name.lower(): cte.this for cte in tree.find_all(exp.CTE)}
        self._seen: dict[int, dict[str, str]] = {}

    def type_of(self, node: exp.Expression) -> str:
        select = node.find_ancestor(exp.Select)
        if select is None:
            return type_of(node, {})
        if id(select) not in self._seen:
            scope = column_types(select, self.ctes)
            self._seen[id(select)] = scope
            # an alias of the select list names its value where the query reads it again (HogQL's aliases)
            for expression in select.expressions:
                if isinstance(expression, exp.Alias) and expression.alias not in scope:
                    scope[expression.alias] = type_of(expression.this, scope)
        return type_of(node, self._seen[id(select)])
