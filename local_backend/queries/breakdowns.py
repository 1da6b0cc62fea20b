"""Breakdowns: which values a series is split by, and the SQL expression that maps an event to one of them.

A property breakdown (``event``, ``person``, ``group``, ``session``, ``hogql``) keeps the top
``breakdown_limit`` values of the range, ranked by event count, then by value, both descending. Missing and
empty values form the null bucket (``$$_posthog_breakdown_null_$$``); when more values exist, the rest are
collapsed into Other (``$$_posthog_breakdown_other_$$``) and the response's ``next`` pages on (``offset``).
A cohort breakdown has one series per cohort id in ``breakdown`` (``"all"``: everyone).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any

from ..errors import ValidationError
from ..models.hogql import compile_expression
from ..models.property_filters import Property
from ..store.cohorts import get_cohort
from ..store.engine.choice import event_store
from ..store.engine.interface import Dialect, TopValues
from ..store.hot_properties import hot_column
from .base_filter import BaseFilter
from .properties import PropertyCompiler, group_properties_column

__all__ = [
    "OTHER",
    "NULL",
    "OTHER_LABEL",
    "NULL_LABEL",
    "value_label",
    "BreakdownPage",
    "CohortSplit",
    "breakdown_expression",
    "rank_values",
    "rank_counted",
    "page_of",
    "cohort_splits",
    "MAX_OFFSET",
]

OTHER = "$$_posthog_breakdown_other_$$"
NULL = "$$_posthog_breakdown_null_$$"
OTHER_LABEL = "Other (i.e. all remaining values)"
NULL_LABEL = "None (i.e. no value)"
SKIP = "$$_insightlab_earlier_page_$$"
MAX_OFFSET = 10_000
Where = tuple[str, list[Any]]


def breakdown_expression(
    filter: BaseFilter, compiler: PropertyCompiler | None = None, *, dialect: Dialect | None = None
) -> Where:
    """The event's breakdown value as text, NULL when missing or empty, in the compiler's dialect (or
    ``dialect``, given without a compiler); with ``compiler``, read from the project's materialized columns where
    they exist, and counted as a use of the property."""
    if dialect is None:
        if compiler is None:
            raise TypeError("breakdown_expression needs a compiler or a dialect")
        dialect = compiler.dialect
    key = str(filter.breakdown)
    kind = filter.breakdown_type or "event"
    if kind in ("event", "person") and compiler is not None:
        compiler.note_use(kind, key)
    if kind == "event":
        hot = hot_column(key)
        column = f"e.{hot}" if hot else (compiler.event_column(key) if compiler is not None else None)
        return dialect.breakdown_value("e.properties", key, column)
    if kind == "person":
        column = compiler.person_value_column(key) if compiler is not None else None
        return dialect.breakdown_value(dialect.person_properties(), key, column)
    if kind == "group":
        group_column = group_properties_column(dialect, filter.breakdown_group_type_index or 0)
        return dialect.breakdown_value(group_column, key)
    if kind == "session":
        if key != "$session_duration":
            raise ValidationError("Session breakdowns support $session_duration.", attr="breakdown")
        return dialect.to_text(dialect.session_seconds()), []
    sql, params = compile_expression(key, attr="breakdown", dialect=dialect)
    return f"nullif({dialect.to_text(f'({sql})')}, '')", params


def value_label(value: Any) -> str:
    """How a series of breakdown ``value`` is labelled: the null and Other buckets by their labels."""
    if value == NULL:
        return NULL_LABEL
    if value == OTHER:
        return OTHER_LABEL
    return str(value)


@dataclass
class BreakdownPage:
    """The values of one page (``NULL`` for the null bucket), whether Other exists, and the mapping SQL."""

    values: list[str]
    has_more: bool
    group: Where
    earlier: list[str] = field(default_factory=list)


def rank_values(
    conn: sqlite3.Connection,
    *,
    project_id: int,
    lower: int,
    upper: int,
    where: Where,
    expression: Where,
    count: int,
) -> list[str]:
    """The first ``count`` values over [lower, upper] by event count, then value, both descending."""
    request = TopValues(
        project_id=project_id, lower=lower, upper=upper, where=where, value=expression, null_label=NULL, count=count
    )
    return event_store(conn).top_values(request)


def rank_counted(counts: dict[str, int]) -> list[str]:
    """Values ranked as :func:`rank_values` ranks them, from their event counts."""
    return [value for value, _ in sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)]


def page_of(ranked: list[str], expression: Where, *, limit: int, offset: int) -> BreakdownPage:
    """The page at ``offset`` of ranked values, with SQL mapping an event to its value, Other or an earlier page."""
    value_sql, value_params = expression
    earlier, values = ranked[:offset], ranked[offset : offset + limit]
    has_more = len(ranked) > offset + limit
    cases = ["WHEN ? THEN ?" for _ in values] + ["WHEN ? THEN ?" for _ in earlier]
    params: list[Any] = [*value_params, NULL]
    for value in values:
        params += [value, value]
    for value in earlier:
        params += [value, SKIP]
    mapped = f"(CASE coalesce({value_sql}, ?) {' '.join(cases)} ELSE ? END)" if cases else "?"
    params.append(OTHER if has_more else SKIP)
    if not cases:
        params = [OTHER if has_more else SKIP]
    return BreakdownPage(values=values, has_more=has_more, group=(mapped, params), earlier=earlier)


@dataclass(frozen=True)
class CohortSplit:
    value: Any
    label: str
    condition: Where


def cohort_splits(conn: sqlite3.Connection, compiler: PropertyCompiler, filter: BaseFilter) -> list[CohortSplit]:
    """One split per cohort named in ``breakdown`` (``"all"`` first: every person)."""
    raw = filter.breakdown
    items = raw if isinstance(raw, list) else [raw]
    splits: list[CohortSplit] = []
    for index, item in enumerate(items):
        if item == "all" or item == 0:
            splits.append(CohortSplit(value="all", label="all users", condition=("1", [])))
            continue
        try:
            cohort_id = int(item)
        except (TypeError, ValueError):
            raise ValidationError("A cohort breakdown lists cohort ids or 'all'.", attr=f"breakdown__{index}") from None
        cohort = get_cohort(conn, compiler.project_id, cohort_id)
        if cohort is None or cohort["deleted"]:
            raise ValidationError(f"Cohort {cohort_id} does not exist.", attr="breakdown", code="does_not_exist")
        condition = compiler.compile_condition(Property(key="id", value=cohort_id, operator="in", type="cohort"))
        splits.append(CohortSplit(value=cohort_id, label=str(cohort["name"]), condition=condition))
    return splits
