"""Running a calculation in a worker thread, so that one slow calculation never freezes the server.

A calculation (trend, funnel, correlation, paths, retention and their people lists) reads SQLite for as long as
its filter asks, so it never runs on the event loop: :func:`compute_off_loop` runs it in a worker thread while
the loop keeps serving ``/_health``, capture and every other request, and cancels it when the client
disconnects. The request's connection goes with it: connections are opened with ``check_same_thread=False``
and the route waits for the thread, so only one thread uses a connection at a time. The time limit and the
cancel flag are :class:`..queries.guard.CalculationGuard`'s.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
from fastapi import Request

from ..errors import QueryCancelled
from ..guard import CalculationCancelled, CalculationGuard
from ..models.common import ErrorResponse
from .deps import get_settings

__all__ = ["CALCULATION_RESPONSES", "DISCONNECT_POLL_SECONDS", "compute_off_loop", "guard_for", "run_off_loop"]

T = TypeVar("T")

DISCONNECT_POLL_SECONDS = 0.1
# What the OpenAPI schema declares for a route that calculates, besides the errors every route may answer.
CALCULATION_RESPONSES: dict[int | str, dict[str, Any]] = {
    504: {"model": ErrorResponse, "description": "The calculation ran past the time limit (code query_timeout)"}
}


def guard_for(request: Request) -> CalculationGuard:
    """A guard with the app's time limit."""
    return CalculationGuard(timeout_seconds=get_settings(request).query_timeout_seconds)


async def run_off_loop(request: Request, guard: CalculationGuard, work: Callable[[], T]) -> T:
    """Run ``work`` in a worker thread; while it runs, cancel ``guard`` when the client disconnects.

    The thread is always waited for (a cancelled run stops within a row or two), so the request's connection
    is never closed under it.
    """
    outcome: dict[str, Any] = {}

    def call() -> None:
        try:
            outcome["value"] = work()
        except BaseException as error:  # handed back to the request's task below
            outcome["error"] = error

    done = anyio.Event()

    async def in_thread() -> None:
        try:
            await anyio.to_thread.run_sync(call)
        finally:
            done.set()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(in_thread)
        try:
            while not done.is_set():
                if not guard.cancelled.is_set() and await request.is_disconnected():
                    guard.cancel()
                with anyio.move_on_after(DISCONNECT_POLL_SECONDS):
                    await done.wait()
        except BaseException:  # the request's task itself was cancelled (server shutting down): stop the thread
            guard.cancel()
            raise
    if "error" in outcome:
        error = outcome["error"]
        if isinstance(error, CalculationCancelled):
            raise QueryCancelled() from None
        raise error
    value: T = outcome["value"]
    return value


async def compute_off_loop(request: Request, conn: sqlite3.Connection, compute: Callable[[], T]) -> T:
    """Run ``compute`` (which reads ``conn``) in a worker thread under the app's time limit."""
    guard = guard_for(request)

    def work() -> T:
        with guard.watching(conn):
            return compute()

    return await run_off_loop(request, guard, work)
