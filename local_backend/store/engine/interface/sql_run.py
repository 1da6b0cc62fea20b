"""A HogQL query handed to an event store: the checked tree, the project it reads, and its clock and zone."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

__all__ = ["SqlRun", "SqlAnswer"]


@dataclass(frozen=True)
class SqlRun:
    """A checked, rewritten HogQL tree (only ``events``/``persons`` and the query's own CTEs, the allowed
    functions, ``hogql_property`` calls, node values as named parameters in ``params``) to run over one
    project's rows. ``max_rows`` bounds how many rows the store reads back."""

    project_id: int
    timezone: str
    now_us: int
    tree: exp.Query
    ctes: frozenset[str]
    params: dict[str, Any] = field(default_factory=dict)
    max_rows: int = 50_001


@dataclass(frozen=True)
class SqlAnswer:
    """The rows (tuples, DateTimes as UTC microseconds or aware datetimes) and the SQL the engine ran, named
    by ``engine_key`` (``sqlite`` or ``clickhouse``, the response's key for it)."""

    engine_key: str
    sql: str
    rows: list[tuple[Any, ...]]
