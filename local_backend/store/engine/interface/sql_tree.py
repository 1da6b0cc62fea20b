"""What the checker and each engine's printer read alike in a sqlglot tree: a function node's HogQL name, the
source a column reads, and whether a query reads an event's person."""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

__all__ = [
    "NAMED",
    "DATE_UNITS",
    "PERSON_READS",
    "events_source_of",
    "hogql_function_name",
    "reads_persons",
    "transform_up",
    "trunc_unit",
]

NAMED = (exp.Anonymous, exp.AnonymousAggFunc)
"""Calls sqlglot keeps by their written name, arguments in ``expressions``."""

# sqlglot's node classes for functions it reads by name, with the HogQL spelling the allowlist knows
_KNOWN: dict[type[exp.Expression], str] = {
    exp.Count: "count",
    exp.CountIf: "countIf",
    exp.ApproxDistinct: "uniq",
    exp.Sum: "sum",
    exp.Avg: "avg",
    exp.Min: "min",
    exp.Max: "max",
    exp.Quantile: "quantile",
    exp.Median: "median",
    exp.TimestampTrunc: "dateTrunc",
    exp.DateTrunc: "dateTrunc",
    exp.DateDiff: "dateDiff",
    exp.If: "if",
    exp.Coalesce: "coalesce",
    exp.Lower: "lower",
    exp.Upper: "upper",
    exp.Length: "length",
    exp.Trim: "trim",
    exp.Substring: "substring",
    exp.Concat: "concat",
    exp.Round: "round",
    exp.Floor: "floor",
    exp.RegexpLike: "match",
    exp.CurrentTimestamp: "now",
    exp.CurrentDate: "today",
    exp.Abs: "abs",
    exp.RowNumber: "row_number",
    exp.Array: "array",
    exp.ArrayContains: "has",
    exp.Split: "splitByChar",
}


def hogql_function_name(node: exp.Func) -> str:
    if isinstance(node, NAMED):
        return str(node.name)
    return _KNOWN.get(type(node)) or node.sql_name()


DATE_UNITS = frozenset({"week", "month", "quarter", "year"})
"""Truncation units whose result is a Date (``toStartOfWeek``, ``toStartOfMonth``, ...); others give a DateTime."""


def trunc_unit(node: exp.Expression) -> str:
    """The unit of a ``dateTrunc`` / ``toStartOf...`` node, lower case."""
    unit = node.args.get("unit")
    if unit is None:
        return "day"
    return str(unit.this).lower() if isinstance(unit, exp.Literal) else unit.name.lower()


def transform_up(tree: exp.Expression, change: Callable[[exp.Expression], exp.Expression]) -> exp.Expression:
    """``tree`` with ``change`` applied to every node, each node's children before it (so a call built from
    its arguments sees them already changed)."""
    for node in reversed(list(tree.walk(bfs=False))):
        changed = change(node)
        if changed is node:
            continue
        if node is tree:
            tree = changed
        else:
            node.replace(changed)
    return tree


PERSON_READS = frozenset({"person_id", "person_properties"})
"""The columns of the events source that need the event's person (``person.properties`` is rewritten to
``person_properties``)."""


def reads_persons(tree: exp.Expression) -> bool:
    """Whether the query reads an event's person (``person_id``, ``person.properties``), or may (a ``t.*``):
    each printer joins the persons to the events only then."""
    for node in tree.walk():
        if isinstance(node, exp.Column) and node.name in PERSON_READS:
            return True
        if isinstance(node, exp.Star) and not isinstance(node.parent, exp.Count):
            return True
    return False


def events_source_of(column: exp.Column, ctes: set[str]) -> bool:
    """Whether ``column`` reads the ``events`` table itself (not a CTE or subquery): qualified by the alias of
    an ``events`` source of its SELECT, or unqualified in a SELECT reading nothing else."""
    select = column.find_ancestor(exp.Select)
    if select is None:
        return False
    sources = [select.args["from_"].this] if select.args.get("from_") else []
    sources += [join.this for join in select.args.get("joins") or []]
    if column.table:
        sources = [source for source in sources if source.alias_or_name == column.table]
    elif len(sources) != 1:
        return False
    return (
        len(sources) == 1
        and isinstance(sources[0], exp.Table)
        and sources[0].name.lower() == "events"
        and "events" not in ctes
    )
