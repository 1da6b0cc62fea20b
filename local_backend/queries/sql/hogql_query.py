"""A HogQLQuery node answered: parse, check, rewrite, run on the project's event store, type the answer.

Reading order: :mod:`.parse` (text to tree, bounds), :mod:`.allowlist` (what may be named), :mod:`.rewrite`
(property access, ``*``, time literals, values, LIMIT), :mod:`.zones` (``toTimeZone`` and the calendar in its
zone), :mod:`.arrays` (array reads checked by type), :mod:`.types` (each column's type from the tree), then
the store's ``run_sql`` prints the tree in its engine's SQL over this project's rows only.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import ValidationError as PydanticError
from sqlglot import exp

from ...errors import ValidationError, from_pydantic
from ...models.sql_query import MAX_ROWS, HogQLQueryNode, HogQLQueryResponse
from ...store.engine.choice import event_store
from ...store.engine.interface import SqlRun
from .allowlist import check_tree
from .arrays import rewrite_arrays
from .parse import parse_hogql
from .rewrite import (
    DEFAULT_LIMIT,
    apply_limit,
    bind_values,
    expand_stars,
    own_limit,
    read_time_literals,
    rewrite_properties,
)
from .types import DATETIME, element_of, is_array, output_columns, zone_of
from .zones import rewrite_zones

__all__ = ["read_hogql_node", "run_hogql_query"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def read_hogql_node(body: dict[str, Any]) -> HogQLQueryNode:
    try:
        return HogQLQueryNode.model_validate(body)
    except PydanticError as error:
        raise from_pydantic(error.errors()) from None


def _micros(moment: datetime) -> int:
    return (moment - _EPOCH) // timedelta(microseconds=1)


def _time_text(value: Any, zone: ZoneInfo) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
    elif isinstance(value, int | float):
        moment = _EPOCH + timedelta(microseconds=int(value))
    else:
        return str(value)
    return moment.astimezone(zone).isoformat()


def _convert(value: Any, kind: str, zone: ZoneInfo) -> Any:
    base = kind.removeprefix("Nullable(").removesuffix(")") if kind.startswith("Nullable(") else kind
    if value is None:
        return None
    if is_array(base):  # a list from ClickHouse, JSON text from SQLite
        items = json.loads(value) if isinstance(value, str | bytes) else list(value)
        return [_convert(item, element_of(base), zone) for item in items]
    if base == DATETIME:
        return _time_text(value, zone)
    if zone_of(base):
        return _time_text(value, ZoneInfo(str(zone_of(base))))
    if base == "Date":
        return value.isoformat() if isinstance(value, date) else str(value)
    if base == "Bool":
        return bool(value)
    if base in ("UInt64", "Int64") and isinstance(value, float) and value.is_integer():
        return int(value)
    if base == "Float64" and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if base in ("String", "UUID") and not isinstance(value, str):
        return str(value)
    return value


def _type_name(kind: str, timezone: str) -> str:
    return (
        kind.replace(DATETIME, f"DateTime64(6, '{timezone}')")
        if DATETIME in kind and "DateTime64" not in kind
        else kind
    )


def _column_name(expression: exp.Expression) -> str:
    """A column's name as PostHog gives it: the alias, a field's last name, or the expression's HogQL."""
    if isinstance(expression, exp.Alias):
        return expression.alias
    if isinstance(expression, exp.Column):
        return expression.name
    return expression.sql(dialect="clickhouse")


def _has_stars(tree: exp.Query) -> bool:
    """Whether a SELECT of ``tree`` names ``*`` or ``x.*`` among its columns (which naming them writes out)."""
    return any(
        isinstance(e, exp.Star) or (isinstance(e, exp.Column) and e.is_star)
        for select in tree.find_all(exp.Select)
        for e in select.expressions
    )


def _offset_of(tree: exp.Query) -> int:
    offset = tree.args.get("offset")
    if isinstance(offset, exp.Offset) and isinstance(offset.expression, exp.Literal):
        return int(offset.expression.this)
    return 0


def run_hogql_query(
    conn: sqlite3.Connection, project: dict[str, Any], node: HogQLQueryNode, now: datetime
) -> dict[str, Any]:
    """PostHog's HogQLQueryResponse for ``node`` over ``project``'s events and persons."""
    timezone = str(project.get("timezone") or "UTC")
    zone = ZoneInfo(timezone)
    tree = parse_hogql(node.query)
    check_tree(tree)
    cap = node.limit or DEFAULT_LIMIT
    shown, kept = apply_limit(tree, cap)
    hogql = shown.sql(dialect="clickhouse")
    own = own_limit(tree)
    # the query's own LIMIT within the cap leaves nothing past it to tell of; else one row more tells hasMore
    own_limit_smaller = own is not None and own <= kept
    run_tree = shown  # printed already: its LIMIT is the one run (a copy of the tree is a third of a parse)
    run_tree.args["limit"].set(
        "expression", exp.Literal.number(kept if own_limit_smaller else min(kept + 1, MAX_ROWS + 1))
    )
    names = [_column_name(e) for e in (expand_stars(run_tree.copy()) if _has_stars(run_tree) else run_tree).selects]
    run_tree = read_time_literals(expand_stars(rewrite_properties(run_tree)))
    run_tree = rewrite_arrays(rewrite_zones(run_tree))
    params = bind_values(run_tree, node.values)
    columns = output_columns(run_tree)
    if len(names) == len(columns):
        columns = [(name, kind) for name, (_, kind) in zip(names, columns, strict=True)]
    ctes = frozenset(cte.alias_or_name.lower() for cte in run_tree.find_all(exp.CTE))
    store = event_store(conn)
    request = SqlRun(
        project_id=int(project["id"]),
        timezone=timezone,
        now_us=_micros(now),
        tree=run_tree,
        ctes=ctes,
        params=params,
        max_rows=kept + 1,
    )
    try:
        answer = store.run_sql(request)
    except ValueError as error:
        raise ValidationError(str(error), attr="query") from None
    rows = answer.rows
    has_more = not own_limit_smaller and len(rows) > kept
    rows = rows[:kept]
    results = [[_convert(value, kind, zone) for value, (_, kind) in zip(row, columns, strict=False)] for row in rows]
    response = HogQLQueryResponse(
        results=results,
        columns=[name for name, _ in columns],
        types=[[name, _type_name(kind, timezone)] for name, kind in columns],
        hogql=hogql,
        clickhouse=answer.sql if answer.engine_key == "clickhouse" else None,
        sqlite=answer.sql if answer.engine_key == "sqlite" else None,
        limit=kept,
        offset=_offset_of(tree),
        hasMore=has_more,
        timezone=timezone,
    )
    return response.model_dump()
