"""`client.sql(...)`: a HogQL query as a typed frame, every row of it, values bound as placeholders.

The query is sent to ``/api/projects/:id/query/`` as a ``HogQLQuery``. PostHog adds ``LIMIT 100`` to a query
that has none and caps an answer at 50,000 rows (`MAX_ROWS`); ``HogQLQuery`` has no ``limit`` or ``offset``
field. So the toolkit reads pages itself: it sends ``<query> limit <page> offset <n>`` (or, for a query with a
``LIMIT`` or ``UNION`` of its own, ``select * from (<query>) as t limit <page> offset <n>``, its own ``LIMIT``
holding inside) and asks for the next page while a page comes back full, or short with ``hasMore`` set (a
server that answers fewer rows than a page asks for says so).

Values are sent in ``values`` and named in the text as HogQL placeholders (``{name}``): never pasted in.
"""

from __future__ import annotations

import datetime as dt
import re
import warnings
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from .errors import ValidationError
from .frames.sql import sql_frame
from .transport import Transport

__all__ = ["MAX_ROWS", "SqlMixin", "code_outside_literals", "hogql_value", "paged_query", "placeholder_names"]

MAX_ROWS = 50_000
"""The most rows PostHog's query API answers at once (its ``MAX_SELECT_RETURNED_ROWS``); also the page size."""

_PLACEHOLDER = re.compile(r"\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}")
_TOP_ORDER_BY = re.compile(r"\border\s+by\b", re.IGNORECASE)
_OWN_CLAUSES = re.compile(r"\b(?:limit|offset|union|intersect|except|settings)\b", re.IGNORECASE)


def code_outside_literals(query: str) -> str:
    """``query`` with its string literals, quoted identifiers and comments blanked (same length).

    Examples
    --------
    >>> code_outside_literals("select 'a{b}' -- {c}\\nfrom events")
    'select ...... ......\\nfrom events'
    """
    out = list(query)
    index, size = 0, len(query)
    while index < size:
        char = query[index]
        end = index
        if char in "'\"`":
            end = index + 1
            while end < size:
                if query[end] == "\\":
                    end += 2
                    continue
                if query[end] == char:
                    if end + 1 < size and query[end + 1] == char:
                        end += 2
                        continue
                    break
                end += 1
            end = min(end + 1, size)
        elif query.startswith("--", index):
            newline = query.find("\n", index)
            end = size if newline < 0 else newline
        elif query.startswith("/*", index):
            close = query.find("*/", index + 2)
            end = size if close < 0 else close + 2
        if end > index:
            for position in range(index, end):
                if out[position] != "\n":
                    out[position] = "."
            index = end
        else:
            index += 1
    return "".join(out)


def placeholder_names(query: str) -> list[str]:
    """The HogQL placeholders (``{name}``) that ``query`` names outside its literals, in order, once each.

    Examples
    --------
    >>> placeholder_names("select event from events where event = {name} and '{x}' != {name} limit {n}")
    ['name', 'n']
    """
    names: list[str] = []
    for match in _PLACEHOLDER.finditer(code_outside_literals(query)):
        if match.group(1) not in names:
            names.append(match.group(1))
    return names


def _top_level(query: str) -> str:
    """The code of ``query`` outside literals, comments and parentheses (blanked): its outermost clauses."""
    depth, top = 0, []
    for char in code_outside_literals(query):
        depth += (char == "(") - (char == ")")
        top.append(char if depth == 0 and char not in "()" else " ")
    return "".join(top)


def _orders_rows(query: str) -> bool:
    return bool(_TOP_ORDER_BY.search(_top_level(query)))


def paged_query(query: str, *, limit: int, offset: int) -> str:
    """The text of one page of ``query``: ``LIMIT``/``OFFSET`` after it, or around it when it has its own.

    A query whose outermost clauses hold no ``LIMIT``, ``OFFSET``, set operation (a ``UNION``'s limit would
    bind to its last ``select``) or ``SETTINGS`` gets the page's clauses after it; any other is wrapped, its
    own ``LIMIT`` still holding inside. The added clauses stand on a line of their own, so that a trailing
    ``--`` comment cannot swallow them.

    Examples
    --------
    >>> print(paged_query("select event from events order by event;", limit=3, offset=6))
    select event from events order by event
    limit 3 offset 6
    >>> print(paged_query("select event from events limit 10", limit=3, offset=6))
    select * from (
    select event from events limit 10
    ) as t limit 3 offset 6
    """
    body = _body(query)
    if _OWN_CLAUSES.search(_top_level(body)):
        return f"select * from (\n{body}\n) as t limit {int(limit)} offset {int(offset)}"
    return f"{body}\nlimit {int(limit)} offset {int(offset)}"


def _body(query: str) -> str:
    body = query.strip()
    while body.endswith(";") and code_outside_literals(body).endswith(";"):
        body = body[:-1].rstrip()
    return body


def hogql_value(value: Any) -> Any:
    """A Python value as the JSON that ``values`` carries for a placeholder.

    Times are sent as ISO 8601 text (a tz-aware time with its offset), dates as ``YYYY-MM-DD``; tuples,
    sets, arrays and Series as lists; NumPy scalars as their Python value; missing values as null.

    Examples
    --------
    >>> hogql_value(pd.Timestamp("2026-01-05 10:00", tz="Europe/Berlin")), hogql_value(dt.date(2026, 1, 5))
    ('2026-01-05T10:00:00+01:00', '2026-01-05')
    >>> hogql_value(("signup", np.int64(3)))
    ['signup', 3]
    """
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, bool | str | int):
        return value
    if isinstance(value, float):
        return None if np.isnan(value) else value
    if isinstance(value, np.generic):
        return hogql_value(value.item())
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dt.datetime):
        return pd.Timestamp(value).isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(key): hogql_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset | np.ndarray | pd.Series | pd.Index):
        items = sorted(value) if isinstance(value, set | frozenset) else list(value)
        return [hogql_value(item) for item in items]
    raise TypeError(f"a placeholder value must be text, a number, a bool, a time, a date or a list, not {value!r}")


class SqlMixin(Transport):
    """The SQL call of `toolkit.Client`."""

    def sql(
        self,
        query: str,
        /,
        *,
        limit: int | None = None,
        page_size: int = MAX_ROWS,
        progress: bool = True,
        values: Mapping[str, Any] | None = None,
        **placeholders: Any,
    ) -> pd.DataFrame:
        """Run a HogQL ``select`` and return every row as a typed frame.

        Parameters
        ----------
        query : str
            A HogQL ``select`` (``events``, ``persons``, ``sessions``, ... as PostHog names them). Name values
            as placeholders, ``{name}``, never paste them into the text.
        limit : int, optional
            At most this many rows; all of them when omitted (PostHog's ``LIMIT 100`` does not apply: the
            toolkit reads page after page). A ``LIMIT`` in the query holds too.
        page_size : int
            Rows asked per request, at most `MAX_ROWS` (50,000, PostHog's cap).
        progress : bool
            Show a tqdm progress bar once a second page is needed.
        values : Mapping, optional
            Placeholder values by name, for names that are not Python identifiers or clash with the
            parameters here (``limit``); merged with ``**placeholders``.
        **placeholders
            Placeholder values: text, numbers, bools, times (sent as ISO 8601), dates, lists.

        Returns
        -------
        pandas.DataFrame
            One column per selected column, typed by its ClickHouse type (`toolkit.frames.sql`): ``string``,
            ``Int64``, ``Float64``, ``boolean``, dates as ``datetime64[ns]``, times tz-aware in the project
            timezone, arrays as lists. ``attrs`` holds ``hogql``, the SQL the server ran (``clickhouse`` or
            ``sqlite``), ``timezone`` and ``types``.

        Raises
        ------
        ValidationError
            The query does not parse or names what does not exist (the server's ``detail`` says which).
        ValueError
            For an empty query, a ``limit`` below 0 or a ``page_size`` outside 1..50,000.

        Examples
        --------
        >>> client.sql(  # doctest: +SKIP
        ...     "select event, count() as c from events where timestamp >= {since} group by event order by c desc",
        ...     since=pd.Timestamp("2026-01-01", tz="UTC"),
        ... )
        """
        if not isinstance(query, str) or not _body(query):
            raise ValueError("sql() needs the text of a select")
        if limit is not None and limit < 0:
            raise ValueError(f"limit must be 0 or more, got {limit}")
        if not 1 <= page_size <= MAX_ROWS:
            raise ValueError(f"page_size must be between 1 and {MAX_ROWS:,} (PostHog's cap), got {page_size}")
        bound = {**dict(values or {}), **placeholders}
        sent = {str(name): hogql_value(value) for name, value in bound.items()}
        rows: list[list[Any]] = []
        first: dict[str, Any] | None = None
        bar: tqdm | None = None
        try:
            while True:
                wanted = page_size if limit is None else min(page_size, limit - len(rows))
                answer = self._hogql(paged_query(query, limit=max(wanted, 0), offset=len(rows)), sent)
                page = list(answer.get("results") or [])[: max(wanted, 0)]
                first = first or answer
                rows.extend(page)
                if bar is not None:
                    bar.update(len(page))
                # A short page ends the rows, unless the server says it cut the page short itself (hasMore).
                cut_short = bool(answer.get("hasMore")) and bool(page)
                if (len(page) < wanted and not cut_short) or wanted <= 0 or (limit is not None and len(rows) >= limit):
                    break
                if bar is None:
                    if not _orders_rows(query):
                        warnings.warn(
                            "the query has more than one page of rows and no ORDER BY: pages read by offset "
                            "may miss or repeat rows; order the rows to read them all",
                            UserWarning,
                            stacklevel=2,
                        )
                    bar = tqdm(total=limit, initial=len(rows), unit="row", desc="sql", disable=not progress)
        finally:
            if bar is not None:
                bar.close()
        return sql_frame(first or {}, rows)

    def _hogql(self, query: str, values: Mapping[str, Any]) -> dict[str, Any]:
        node: dict[str, Any] = {"kind": "HogQLQuery", "query": query}
        if values:
            node["values"] = dict(values)
        answer = self.request("POST", self.project_path("query/"), json={"query": node, "refresh": "blocking"})
        answer = answer if isinstance(answer, dict) else {}
        if answer.get("error"):
            raise ValidationError(400, code="query_error", detail=str(answer["error"]))
        return answer
