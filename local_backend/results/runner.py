"""Running calculations, in the request or in the background, so that any of them can be cancelled.

Each run gets its own SQLite connection with a progress handler that aborts the statement in progress as soon
as the run is cancelled, so a cancelled calculation stops within a few thousand SQLite steps rather than
running to the end. Background runs go to a small thread pool; their status is stored (``query_status``) so
any request can poll it, and a failure is recorded there, never raised into the server.
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
from ..errors import APIError
from ..store.db import connect
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
_PROGRESS_STEPS = 1000


class CalculationCancelled(Exception):
    """The run was cancelled by a client."""


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
    def __init__(self, *, db_path: Path, clock: Clock, workers: int = BACKGROUND_WORKERS) -> None:
        self._db_path = db_path
        self._clock = clock
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="calculation")
        self._lock = threading.Lock()
        self._cancel_flags: dict[tuple[int, str], threading.Event] = {}

    def _now(self) -> str:
        return format_instant(self._clock.now())

    def _register(self, project_id: int, query_id: str) -> threading.Event:
        flag = threading.Event()
        with self._lock:
            self._cancel_flags[(project_id, query_id)] = flag
        return flag

    def _forget(self, project_id: int, query_id: str) -> None:
        with self._lock:
            self._cancel_flags.pop((project_id, query_id), None)

    def _run(self, conn: sqlite3.Connection, calc: Calculation, flag: threading.Event) -> dict[str, Any]:
        conn.set_progress_handler(lambda: 1 if flag.is_set() else 0, _PROGRESS_STEPS)
        try:
            payload = calc.compute(conn)
        except sqlite3.OperationalError as error:
            if flag.is_set():
                raise CalculationCancelled from error
            raise
        finally:
            conn.set_progress_handler(None, 0)
        if flag.is_set():
            raise CalculationCancelled
        return payload

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
        self, conn: sqlite3.Connection, *, project_id: int, query_id: str, calc: Calculation
    ) -> tuple[dict[str, Any], str]:
        """Compute in the calling thread and cache the result; returns (payload, last_refresh).

        Raises :class:`CalculationCancelled` when a client cancels the run meanwhile.
        """
        flag = self._register(project_id, query_id)
        try:
            payload = self._run(conn, calc, flag)
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
        flag = self._register(project_id, query_id)
        self._pool.submit(self._background, project_id, query_id, calc, flag)

    def _background(self, project_id: int, query_id: str, calc: Calculation, flag: threading.Event) -> None:
        conn = connect(self._db_path)
        try:
            payload = self._run(conn, calc, flag)
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
            flag = self._cancel_flags.get((project_id, query_id))
        if flag is not None:
            flag.set()
        recorded = mark_query_cancelled(conn, project_id=project_id, query_id=query_id, end_time=self._now())
        return flag is not None or recorded

    def shutdown(self) -> None:
        with self._lock:
            for flag in self._cancel_flags.values():
                flag.set()
        self._pool.shutdown(wait=True, cancel_futures=True)
