"""The HogQLQuery node of ``POST /api/projects/:id/query/`` and its answer (PostHog's HogQLQueryResponse)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["HogQLQueryNode", "HogQLQueryResponse", "MAX_ROWS"]

MAX_ROWS = 50_000


class HogQLQueryNode(BaseModel):
    """A SQL query in HogQL; ``values`` fill its ``{name}`` placeholders, bound, never pasted."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["HogQLQuery"]
    query: str = Field(min_length=1)
    values: dict[str, Any] = Field(default_factory=dict)
    limit: int | None = Field(
        None, ge=1, le=MAX_ROWS, description="Rows per answer when the query has no smaller LIMIT"
    )


class HogQLQueryResponse(BaseModel):
    results: list[list[Any]]
    columns: list[str]
    types: list[list[str]]
    hogql: str
    clickhouse: str | None
    sqlite: str | None
    limit: int
    offset: int
    hasMore: bool
    is_cached: bool = False
    timezone: str
    error: str | None = None
