"""Running calculations, in the request or in the background, so that any of them can be cancelled.

Each run is watched by a :class:`..queries.guard.CalculationGuard`: a progress handler on its SQLite
connection aborts the statement in progress as soon as the run is cancelled or out of time
(``Settings.query_timeout_seconds``), so a cancelled calculation stops within a few thousand SQLite steps rather
than running to the end, and one that runs too long answers :class:`..errors.QueryTimeout`. On a ClickHouse
engine each statement is given the time the run has left as its own limit, so the time limit holds there too
(a cancel takes effect between statements). Background runs go
to a small thread pool; their status is stored (``query_status``) so any request can poll it, and a failure is
recorded there, never raised into the server.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from ..clock import Clock, format_instant
from ..config import DEFAULT_QUERY_TIMEOUT_SECONDS
from ..errors import APIError
from ..guard import CalculationCancelled, CalculationGuard
from ..store.engine.choice import open_database
from ..store.engine.interface import EventEngine
from ..store.query_results import (
    create_query_status,
    finish_query_status,
    mark_query_cancelled,
    put_cached_result,
)

__all__ = ["Calculation", "CalculationCancelled", "QueryRunner", "STATUS_LIFETIME", "BACKGROUND_WORKERS"]

log = logging.getLogger("local_backend.results")

STATUS_LIFETIME = timedelta(hours=1)
BACKGROUND_WORKERS = 2


@dataclass(frozen=True)
class Calculation:
    """One calculation: what it is for the cache, and how to compute it from a connection.

    ``compute`` returns the payload to cache: ``{"result": ..., "timezone": ..., ...}``.
    """

    cache_key: str
    interval: str | None
    date_to: str | None
    compute: Callable[[sqlite3.Connection], dict[str, Any]]


class QueryRunner:
    def __init__(
        self,
        *,
        db_path: Path,
        engine: EventEngine,
        clock: Clock,
        workers: int = BACKGROUND_WORKERS,
        timeout_seconds: float = DEFAULT_QUERY_TIMEOUT_SECONDS,
    ) -> None:
        self._db_path = db_path
        self._engine = engine
        self._clock = clock
        self.timeout_seconds = timeout_seconds
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="calculation")
        self._lock = threading.Lock()
        self._guards: dict[tuple[int, str], CalculationGuard] = {}

    def _now(self) -> str:
        return format_instant(self._clock.now())

    def _register(self, project_id: int, query_id: str, guard: CalculationGuard | None = None) -> CalculationGuard:
        guard = guard or CalculationGuard(timeout_seconds=self.timeout_seconds)
        with self._lock:
            self._guards[(project_id, query_id)] = guard
        return guard

    def _forget(self, project_id: int, query_id: str) -> None:
        with self._lock:
            self._guards.pop((project_id, query_id), None)

    def _run(self, conn: sqlite3.Connection, calc: Calculation, guard: CalculationGuard) -> dict[str, Any]:
        with guard.watching(conn):
            return calc.compute(conn)

    def _store(self, conn: sqlite3.Connection, project_id: int, calc: Calculation, payload: dict[str, Any]) -> str:
        last_refresh = self._now()
        put_cached_result(
            conn,
            project_id=project_id,
            cache_key=calc.cache_key,
            payload=payload,
            last_refresh=last_refresh,
            interval=calc.interval,
            date_to=calc.date_to,
        )
        return last_refresh

    def run_blocking(
        self,
        conn: sqlite3.Connection,
        *,
        project_id: int,
        query_id: str,
        calc: Calculation,
        guard: CalculationGuard | None = None,
    ) -> tuple[dict[str, Any], str]:
        """Compute in the calling thread and cache the result; returns (payload, last_refresh).

        Raises :class:`CalculationCancelled` when a client cancels the run meanwhile (or ``guard`` is cancelled,
        e.g. because the client went away) and :class:`..errors.QueryTimeout` when it runs out of time.
        """
        guard = self._register(project_id, query_id, guard)
        try:
            payload = self._run(conn, calc, guard)
            return payload, self._store(conn, project_id, calc, payload)
        finally:
            self._forget(project_id, query_id)

    def submit(
        self,
        conn: sqlite3.Connection,
        *,
        project_id: int,
        user_id: int | None,
        query_id: str,
        calc: Calculation,
        insight_id: int | None = None,
    ) -> None:
        """Start the calculation in the background; its status is readable at once."""
        start = self._clock.now()
        create_query_status(
            conn,
            query_id=query_id,
            project_id=project_id,
            user_id=user_id,
            cache_key=calc.cache_key,
            insight_id=insight_id,
            start_time=format_instant(start),
            expiration_time=format_instant(start + STATUS_LIFETIME),
        )
        guard = self._register(project_id, query_id)
        self._pool.submit(self._background, project_id, query_id, calc, guard)

    def _background(self, project_id: int, query_id: str, calc: Calculation, guard: CalculationGuard) -> None:
        conn = open_database(self._db_path, self._engine)
        try:
            # the time limit counts from the start of the run, not from the submit (the run may have queued)
            guard.start_clock()
            payload = self._run(conn, calc, guard)
            self._store(conn, project_id, calc, payload)
            finish_query_status(
                conn, project_id=project_id, query_id=query_id, end_time=self._now(), results=payload.get("result")
            )
        except CalculationCancelled:
            pass  # the cancelling request already recorded it
        except APIError as error:
            finish_query_status(
                conn, project_id=project_id, query_id=query_id, end_time=self._now(), error_message=error.detail
            )
        except Exception as error:  # a failing calculation must never take the server down
            log.exception("background calculation %s failed", query_id)
            finish_query_status(
                conn,
                project_id=project_id,
                query_id=query_id,
                end_time=self._now(),
                error_message=f"Calculation failed: {type(error).__name__}",
            )
        finally:
            self._forget(project_id, query_id)
            conn.close()

    def cancel(self, conn: sqlite3.Connection, *, project_id: int, query_id: str) -> bool:
        """Stop a running calculation (blocking or background). False when nothing by that id is running."""
        with self._lock:
            guard = self._guards.get((project_id, query_id))
        if guard is not None:
            guard.cancel()
        recorded = mark_query_cancelled(conn, project_id=project_id, query_id=query_id, end_time=self._now())
        return guard is not None or recorded

    def shutdown(self) -> None:
        with self._lock:
            for guard in self._guards.values():
                guard.cancel()
        self._pool.shutdown(wait=True, cancel_futures=True)
