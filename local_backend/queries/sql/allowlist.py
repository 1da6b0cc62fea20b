"""What a HogQL query may name: PostHog's tables of this project, their columns, and the listed functions.

The check walks the whole tree (subqueries, joins, CTEs, unions alike). A table is ``events``, ``persons`` or a
name the query's own ``WITH`` defines; no database or catalog prefix, no table function, no statement but
SELECT, no ``SETTINGS``. A function outside :data:`FUNCTIONS` is a 400 naming it and where it stands.
"""

from __future__ import annotations

from sqlglot import exp

from ...errors import ValidationError
from ...store.engine.interface.sql_tree import NAMED, hogql_function_name

__all__ = ["TABLES", "FUNCTIONS", "check_tree"]

TABLES: dict[str, tuple[str, ...]] = {
    "events": (
        "uuid",
        "event",
        "timestamp",
        "distinct_id",
        "person_id",
        "properties",
        "elements_chain",
        "$session_id",
        "created_at",
    ),
    "persons": ("id", "created_at", "properties", "is_identified"),
    "groups": ("index", "key", "created_at", "properties"),
}

FUNCTIONS = frozenset(
    {
        "count",
        "countif",
        "uniq",
        "uniqexact",
        "sum",
        "avg",
        "min",
        "max",
        "median",
        "quantile",
        "tostartofhour",
        "tostartofday",
        "tostartofweek",
        "tostartofmonth",
        "todate",
        "todatetime",
        "datediff",
        "datetrunc",
        "now",
        "today",
        "if",
        "multiif",
        "coalesce",
        "ifnull",
        "lower",
        "upper",
        "concat",
        "substring",
        "length",
        "trim",
        "tostring",
        "toint",
        "tofloat",
        "round",
        "floor",
        "abs",
        "like",
        "ilike",
        "match",
        "array",
        "grouparray",
        "has",
        "indexof",
        "empty",
        "notempty",
        "splitbychar",
        "arraystringconcat",
        "arraysort",
        "totimezone",
    }
)
# how many arguments each call written by name takes (sqlglot checks the arity of the calls it knows itself)
ARITY: dict[str, tuple[int, int]] = {
    "uniqexact": (1, 1), "tostartofhour": (1, 1), "tostartofday": (1, 1), "tostartofweek": (1, 1),
    "tostartofmonth": (1, 1), "todate": (1, 1), "todatetime": (1, 1), "today": (0, 0),
    "multiif": (3, 99), "ifnull": (2, 2), "tostring": (1, 1), "toint": (1, 1), "tofloat": (1, 1),
    "now": (0, 0), "uniq": (1, 1), "median": (1, 1), "count": (0, 1), "countif": (1, 1),
    "grouparray": (1, 1), "indexof": (2, 2), "empty": (1, 1), "notempty": (1, 1), "arraystringconcat": (1, 2),
    "arraysort": (1, 1), "totimezone": (2, 2),
}  # fmt: skip
_ALLOWED_NODES = (
    exp.Select,
    exp.Union,
    exp.Subquery,
    exp.From,
    exp.Join,
    exp.Where,
    exp.Group,
    exp.Having,
    exp.Order,
    exp.Ordered,
    exp.Limit,
    exp.Offset,
    exp.Distinct,
    exp.With,
    exp.CTE,
    exp.TableAlias,
    exp.Alias,
    exp.Column,
    exp.Identifier,
    exp.Star,
    exp.Literal,
    exp.Null,
    exp.Boolean,
    exp.Paren,
    exp.Binary,
    exp.Unary,
    exp.In,
    exp.Between,
    exp.Case,
    exp.Interval,
    exp.Var,
    exp.Placeholder,
    exp.Bracket,
    exp.Window,
    exp.Tuple,
    exp.DataType,
    exp.Cast,
    exp.Table,
    exp.Func,
)
_WINDOW_FUNCTIONS = frozenset({"row_number", "rank", "dense_rank", "lag", "lead"})


def _where(node: exp.Expression) -> str:
    meta = node.meta if hasattr(node, "meta") else {}
    line, col = meta.get("line"), meta.get("col")
    return f" (line {line}, column {col})" if line is not None else ""


def check_tree(tree: exp.Expression) -> None:
    """Raise a 400 for the first thing in ``tree`` a HogQL query may not do here."""
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    if any(node.args.get("settings") or node.args.get("format") for node in tree.find_all(exp.Query)):
        raise ValidationError("SETTINGS are not allowed in a query.", attr="query")
    for node in tree.walk():
        if isinstance(node, exp.Table):
            if not isinstance(node.this, exp.Identifier):
                raise ValidationError("Table functions are not allowed; query events or persons.", attr="query")
            name = node.name.lower()
            if node.args.get("db") or node.args.get("catalog"):
                raise ValidationError(f"Unknown table {node.sql('clickhouse')!r}{_where(node.this)}.", attr="query")
            if name not in TABLES and name not in ctes:
                raise ValidationError(f"Unknown table {node.name!r}{_where(node.this)}.", attr="query")
            continue
        if isinstance(node, exp.Func) and not isinstance(node, exp.Binary | exp.Unary | exp.Case | exp.Cast):
            name = hogql_function_name(node)
            if name.lower() not in FUNCTIONS and not (
                node.find_ancestor(exp.Window) and name.lower() in _WINDOW_FUNCTIONS
            ):
                if not (isinstance(node.parent, exp.Window) and name.lower() in _WINDOW_FUNCTIONS):
                    shown = _as_written(node, name)
                    raise ValidationError(f"Unsupported function {shown}{_where(node)}.", attr="query")
            bounds = ARITY.get(name.lower())
            if bounds and isinstance(node, NAMED):
                low, high = bounds
                if not low <= len(node.expressions) <= high:
                    wanted = str(low) if low == high else f"{low} to {high}"
                    raise ValidationError(f"{name} takes {wanted} arguments{_where(node)}.", attr="query")
            if name.lower() == "multiif" and len(node.expressions) % 2 == 0:
                raise ValidationError(
                    f"multiIf takes pairs of condition and value, then a default{_where(node)}.", attr="query"
                )
            continue
        if not isinstance(node, _ALLOWED_NODES):
            raise ValidationError(f"{node.key.upper()} is not allowed in a query{_where(node)}.", attr="query")


def _as_written(node: exp.Func, name: str) -> str:
    """The function's name as HogQL spells it (``arrayMap``, where the parser's own name is ``TRANSFORM``)."""
    head = node.sql(dialect="clickhouse").split("(", 1)[0].strip()
    return head if head.replace("_", "").isalnum() else name
