"""HogQL text to a checked sqlglot tree: ``$`` names quoted, ``{name}`` placeholders made parameters, bounds kept.

HogQL is read as ClickHouse SQL. Two spellings of PostHog's are not ClickHouse's: property names starting with
``$`` (``properties.$browser``) and placeholders ``{name}`` bound from the node's ``values``; both are rewritten
outside string literals before parsing, the names quoted and the placeholders turned into named parameters.
"""

from __future__ import annotations

import functools
import re

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from ...errors import ValidationError

__all__ = ["MAX_QUERY_LENGTH", "MAX_DEPTH", "PARSED_KEPT", "RESERVED_PREFIX", "parse_hogql", "parse_hogql_fresh"]

MAX_QUERY_LENGTH = 20_000
MAX_DEPTH = 64
RESERVED_PREFIX = "__hogql"
PARSED_KEPT = 256
"""How many texts' trees :func:`parse_hogql` keeps (a query's text is at most :data:`MAX_QUERY_LENGTH`)."""
_TOKEN = re.compile(r"'(?:[^'\\]|\\.|'')*'|`[^`]*`|\"[^\"]*\"|\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}|\$[A-Za-z0-9_$]+")


def _prepare(text: str) -> str:
    def swap(match: re.Match[str]) -> str:
        token = match.group(0)
        if match.group(1) is not None:
            return "{" + match.group(1) + ": String}"
        if token.startswith("$"):
            return "`" + token + "`"
        return token

    return _TOKEN.sub(swap, text)


def _depth(node: exp.Expression) -> int:
    deepest = 0
    stack = [(node, 1)]
    while stack:
        current, depth = stack.pop()
        if depth > MAX_DEPTH:
            return depth
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in current.iter_expressions())
    return deepest


def parse_hogql(text: str) -> exp.Query:
    """The one SELECT (or UNION ALL of SELECTs) of ``text``; a 400 naming the problem otherwise. Each call has a
    tree of its own to rewrite: a copy of the one parsed from the same text lately (a copy costs a fraction of a
    parse, and a dashboard or a paging client sends the same text again)."""
    return _kept(text).copy()


def parse_hogql_fresh(text: str) -> exp.Query:
    """:func:`parse_hogql` parsing ``text`` anew, as the first request of a text does (nothing kept)."""
    if not text.strip():
        raise ValidationError("The query is empty.", attr="query")
    if len(text) > MAX_QUERY_LENGTH:
        raise ValidationError(f"The query is longer than {MAX_QUERY_LENGTH} characters.", attr="query")
    if RESERVED_PREFIX in text.lower():  # the printers' own names for the project's rows
        raise ValidationError(f"Names starting with {RESERVED_PREFIX} are reserved.", attr="query")
    try:
        statements = sqlglot.parse(_prepare(text), read="clickhouse")
    except SqlglotError as error:
        raise ValidationError(f"Syntax error: {str(error).splitlines()[0][:300]}", attr="query") from None
    except RecursionError:
        raise ValidationError(f"The query is nested deeper than {MAX_DEPTH} levels.", attr="query") from None
    statements = [statement for statement in statements if statement is not None]
    if len(statements) != 1:
        raise ValidationError("Send exactly one SELECT statement.", attr="query")
    tree = statements[0]
    if not isinstance(tree, exp.Query):
        raise ValidationError(f"Only SELECT queries are allowed, not {tree.key.upper()}.", attr="query")
    if _depth(tree) > MAX_DEPTH:
        raise ValidationError(f"The query is nested deeper than {MAX_DEPTH} levels.", attr="query")
    return tree


_kept = functools.lru_cache(maxsize=PARSED_KEPT)(parse_hogql_fresh)
