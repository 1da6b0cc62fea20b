"""Engine-free rewrites of a checked tree: property access made one call, the default LIMIT, value binding.

``properties.x``, ``properties['x']`` and ``person.properties.x`` (PostHog's implicit person join) become
``hogql_property(<column>, 'x')`` where the column is ``properties`` or ``person_properties`` of the same
table; each engine's printer writes that call as its JSON read. The key travels as a string literal, which
sqlglot prints escaped; values from the node stay named parameters bound by the engine.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from ...errors import ValidationError

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "PROPERTY_CALL",
    "rewrite_properties",
    "apply_limit",
    "bind_values",
    "own_limit",
]

DEFAULT_LIMIT = 100
MAX_LIMIT = 50_000
PROPERTY_CALL = "hogql_property"


def _property(table: str | None, column: str, key: str) -> exp.Expression:
    source = exp.column(column, table=table) if table else exp.column(column)
    return exp.Anonymous(this=PROPERTY_CALL, expressions=[source, exp.Literal.string(key)])


def _rewrite(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.Column):
        parts = [part.name for part in node.parts]
        if len(parts) >= 2 and parts[-2] == "properties" and parts[:-2] in ([], ["person"]):
            return _property(None, "person_properties" if parts[:-2] else "properties", parts[-1])
        if len(parts) >= 3 and parts[-2] == "properties":
            if parts[-3] == "person":
                return _property(parts[0] if len(parts) == 4 else None, "person_properties", parts[-1])
            return _property(parts[-3], "properties", parts[-1])
        if len(parts) == 2 and parts[0] == "person" and parts[1] == "properties":
            return exp.column("person_properties")
        if parts[-1] == "$session_id":
            return exp.column("session_id", table=parts[-2] if len(parts) > 1 else None)
        return node
    if isinstance(node, exp.Bracket):
        target = node.this
        keys = node.expressions
        if isinstance(target, exp.Column) and target.name == "properties" and len(keys) == 1:
            if not (isinstance(keys[0], exp.Literal) and keys[0].is_string):
                raise ValidationError("A property name in brackets must be a string literal.", attr="query")
            table = target.table or None
            column = "person_properties" if table == "person" else "properties"
            return _property(None if table == "person" else table, column, keys[0].this)
        return node  # an array's element: checked and rewritten with the arrays (:mod:`.arrays`)
    return node


def rewrite_properties(tree: exp.Query) -> exp.Query:
    return tree.transform(_rewrite)


def own_limit(tree: exp.Query) -> int | None:
    """The query's own outermost LIMIT, None when it has none; a 400 for a LIMIT that is no whole number."""
    limit = tree.args.get("limit")
    if limit is None:
        return None
    if isinstance(limit, exp.Limit) and isinstance(limit.expression, exp.Literal) and not limit.expression.is_string:
        return int(limit.expression.this)
    raise ValidationError("LIMIT must be a whole number.", attr="query")


def apply_limit(tree: exp.Query, cap: int) -> tuple[exp.Query, int]:
    """The tree with ``cap`` as its LIMIT where it has none, its own LIMIT up to :data:`MAX_LIMIT` (as PostHog:
    the default of 100 rows stands only for a query without a LIMIT), and the limit kept."""
    own = own_limit(tree)
    kept = cap if own is None else min(own, MAX_LIMIT)
    return tree.limit(exp.Literal.number(kept), copy=True), kept  # a literal: an int would be parsed


def bind_values(tree: exp.Query, values: dict[str, Any]) -> dict[str, Any]:
    """The parameters of the tree's placeholders, each from ``values``; a 400 for a placeholder without one."""
    params: dict[str, Any] = {}
    for placeholder in tree.find_all(exp.Placeholder):
        name = placeholder.name
        if name not in values:
            raise ValidationError(f"No value for the placeholder {{{name}}}.", attr="values")
        value = values[name]
        if not isinstance(value, str | int | float | bool) and value is not None:
            raise ValidationError(f"The value of {{{name}}} must be a string, number, boolean or null.", attr="values")
        params["v_" + name] = value
        placeholder.set("this", exp.var("v_" + name))
    return params


def _sources(select: exp.Select) -> list[exp.Expression]:
    """The sources of ``select``: its FROM, then each join."""
    return [select.args["from_"].this, *(join.this for join in select.args.get("joins") or [])]


def _name_columns(query: exp.Expression) -> None:
    """Each unnamed expression among the columns of ``query`` (a star's source) named as its answer names it
    (its ClickHouse text), so that the star's columns reach it by that name on every engine: unnamed, SQLite
    names it by its own printed text, and a name it does not hold reads as a text literal there."""
    while isinstance(query, exp.Subquery):
        query = query.this
    if isinstance(query, exp.Union):  # a union's columns are named by its first query
        _name_columns(query.left)
        return
    if not isinstance(query, exp.Select):
        return
    query.set(
        "expressions",
        [
            expression
            if isinstance(expression, exp.Alias | exp.Column | exp.Star)
            else exp.alias_(expression, expression.sql("clickhouse"), quoted=True)
            for expression in query.expressions
        ],
    )


def expand_stars(tree: exp.Query) -> exp.Query:
    """``*`` written out as the columns of the FROM source, and ``x.*`` as those of the source named ``x``:
    PostHog's event or person columns, or a subquery's / CTE's own."""
    from .types import star_names

    ctes = {cte.alias_or_name.lower(): cte.this for cte in tree.find_all(exp.CTE)}
    for select in list(tree.find_all(exp.Select)):
        stars = [e for e in select.expressions if isinstance(e, exp.Star) or (isinstance(e, exp.Column) and e.is_star)]
        if not stars or not select.args.get("from_"):
            continue
        sources = _sources(select)
        for each in sources:
            _name_columns(ctes.get(each.name.lower(), each) if isinstance(each, exp.Table) else each)
        source = sources[0]
        by_name = {each.alias_or_name.lower(): each for each in sources if each.alias_or_name}  # for x.*
        # beside a join, * is the FROM source's columns, named through its alias so no column is ambiguous
        qualifier = (source.alias_or_name or None) if select.args.get("joins") else None
        expanded: list[exp.Expression] = []
        for expression in select.expressions:
            if isinstance(expression, exp.Star):
                expanded.extend(exp.column(name, table=qualifier) for name in star_names(source, ctes))
            elif isinstance(expression, exp.Column) and expression.is_star:
                named = by_name.get(expression.table.lower())
                if named is None:
                    raise ValidationError(
                        f"{expression.sql('clickhouse')} names no table of its FROM or JOIN", attr="query"
                    )
                expanded.extend(exp.column(name, table=expression.table) for name in star_names(named, ctes))
            else:
                expanded.append(expression)
        select.set("expressions", expanded)
    return tree


_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


def _reads_as_time(node: exp.Expression) -> bool:
    return (isinstance(node, exp.Literal) and node.is_string) or isinstance(node, exp.Placeholder)


def _as_time(side: exp.Expression, kind: str) -> exp.Expression:
    from .types import zone_of

    zone = zone_of(kind)
    arguments = [side.copy(), exp.Literal.string(zone)] if zone else [side.copy()]
    return exp.Anonymous(this="toDateTime", expressions=arguments)


def read_time_literals(tree: exp.Query) -> exp.Query:
    """A text or a placeholder compared with a DateTime read as a time in the project's zone, as HogQL does
    (``timestamp >= '2024-01-01'``, ``timestamp >= {since}``): it becomes ``toDateTime(...)``. Compared with
    a ``toTimeZone`` value, it is read in that value's zone (as ClickHouse reads it)."""
    from .types import Scopes, is_datetime

    scopes = Scopes(tree)
    for node in list(tree.find_all(*_COMPARISONS, exp.Between)):
        if isinstance(node, exp.Between):
            kind = scopes.type_of(node.this)
            if is_datetime(kind):
                for key in ("low", "high"):
                    side = node.args[key]
                    if _reads_as_time(side):
                        side.replace(_as_time(side, kind))
            continue
        for this, other in ((node.left, node.right), (node.right, node.left)):
            kind = scopes.type_of(other)
            if _reads_as_time(this) and is_datetime(kind):
                this.replace(_as_time(this, kind))
    return tree
