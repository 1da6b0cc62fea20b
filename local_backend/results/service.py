"""Serve a calculation by refresh mode: from the cache, computed now, or started in the background.

The decision, for a mode and what the cache holds:

=====================  ======================  =====================================================
mode                   fresh cached result     stale or no cached result
=====================  ======================  =====================================================
force_cache (default)  cached                  cached (stale) or nothing
blocking               cached                  computed now
async / lazy_async     cached                  cached (or nothing) + a background run (query_status)
force_blocking / true  computed now            computed now
force_async            background run          background run
=====================  ======================  =====================================================

``lazy_async`` accepts older results before calling them stale.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import uuid
from datetime import datetime
from typing import Any

from ..clock import format_instant, parse_instant
from ..errors import QueryCancelled
from ..guard import CalculationGuard
from ..store.query_results import drop_cached_results_before, get_cached_result, get_query_status
from .modes import ExecutionMode
from .runner import Calculation, CalculationCancelled, QueryRunner
from .staleness import CACHE_TTL, MIN_CLIENT_REFRESH, cache_target_age, is_stale

__all__ = ["cache_key_for", "serve_calculation", "query_status_body", "nothing_cached", "QueryCancelled"]


def cache_key_for(project_id: int, kind: str, normalized_filter: dict[str, Any], timezone: str) -> str:
    """The cache key (PostHog's ``filters_hash``) of a normalized filter in a project."""
    canonical = json.dumps([project_id, kind, timezone, normalized_filter], sort_keys=True, separators=(",", ":"))
    return "cache_" + hashlib.sha256(canonical.encode()).hexdigest()[:32]


def nothing_cached(query_status: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "result": None,
        "last_refresh": None,
        "is_cached": False,
        "cache_target_age": None,
        "next_allowed_client_refresh": None,
        "timezone": None,
        "hogql": None,
        "types": None,
        "columns": None,
        "hasMore": None,
        "query_status": query_status,
    }


def _package(payload: dict[str, Any], *, last_refresh: str, calc: Calculation, is_cached: bool, lazy: bool) -> dict:
    refreshed = parse_instant(last_refresh)
    return {
        "result": payload.get("result"),
        "last_refresh": last_refresh,
        "is_cached": is_cached,
        "cache_target_age": format_instant(cache_target_age(calc.interval, refreshed, lazy=lazy)),
        "next_allowed_client_refresh": format_instant(refreshed + MIN_CLIENT_REFRESH),
        "timezone": payload.get("timezone"),
        "hogql": payload.get("hogql"),
        "types": payload.get("types"),
        "columns": payload.get("columns"),
        "hasMore": payload.get("hasMore"),
        "query_status": None,
        "extra": {k: v for k, v in payload.items() if k not in ("result", "timezone", "hogql", "types", "columns")},
    }


def query_status_body(status: dict[str, Any]) -> dict[str, Any]:
    """The ``query_status`` object clients poll."""
    return {
        "id": status["id"],
        "team_id": status["project_id"],
        "insight_id": status["insight_id"],
        "query_async": True,
        "complete": bool(status["complete"]),
        "error": bool(status["error"]),
        "error_message": status["error_message"],
        "results": status["results"],
        "start_time": status["start_time"],
        "end_time": status["end_time"],
        "expiration_time": status["expiration_time"],
        "task_id": None,
        "query_progress": None,
    }


def serve_calculation(
    conn: sqlite3.Connection,
    runner: QueryRunner,
    calc: Calculation,
    *,
    mode: ExecutionMode,
    project_id: int,
    user_id: int | None,
    now: datetime,
    client_query_id: str | None = None,
    insight_id: int | None = None,
    guard: CalculationGuard | None = None,
) -> dict[str, Any]:
    """The result package for ``calc`` under ``mode`` (see the module docstring).

    ``guard`` watches a calculation computed now (the request's, cancelled when its client disconnects); by
    default the runner makes one with its time limit.
    """
    drop_cached_results_before(conn, format_instant(now - CACHE_TTL))
    cached = get_cached_result(conn, project_id, calc.cache_key)
    query_id = client_query_id or uuid.uuid4().hex

    def background() -> dict[str, Any]:
        runner.submit(conn, project_id=project_id, user_id=user_id, query_id=query_id, calc=calc, insight_id=insight_id)
        status = get_query_status(conn, project_id, query_id)
        assert status is not None
        return query_status_body(status)

    if cached is not None and not mode.always_calculates:
        stale = is_stale(
            interval=cached["interval"],
            last_refresh=parse_instant(cached["last_refresh"]),
            date_to=parse_instant(cached["date_to"]) if cached["date_to"] else None,
            now=now,
            lazy=mode.lazy,
        )
        package = _package(
            cached["payload"], last_refresh=cached["last_refresh"], calc=calc, is_cached=True, lazy=mode.lazy
        )
        if not stale or mode is ExecutionMode.CACHE_ONLY_NEVER_CALCULATE:
            return package
        if mode.is_async:
            package["query_status"] = background()
            return package
    elif cached is None and mode is ExecutionMode.CACHE_ONLY_NEVER_CALCULATE:
        return nothing_cached()
    if mode.is_async:
        return nothing_cached(background())
    try:
        payload, last_refresh = runner.run_blocking(
            conn, project_id=project_id, query_id=query_id, calc=calc, guard=guard
        )
    except CalculationCancelled:
        raise QueryCancelled() from None
    return _package(payload, last_refresh=last_refresh, calc=calc, is_cached=False, lazy=False)
