"""Time limits and cancellation for calculations (no HTTP here; :mod:`local_backend.web.off_loop` runs them in a
thread).

A :class:`CalculationGuard` watches one run. SQLite's progress handler asks it every ``PROGRESS_STEPS``
virtual-machine steps whether to go on; it says stop once the time limit (``Settings.query_timeout_seconds``)
has passed or the run was cancelled (the client disconnected, or cancelled the query by id), and SQLite then
interrupts the statement in progress. A statement can spend long in few steps (a ``LIKE`` over a megabyte
value is one step per row), so the guard also interrupts the connection itself (``Connection.interrupt``,
made for calling from another thread) the moment the run is cancelled or its time is up. Python loops between
statements call :func:`check_deadline`. A ClickHouse statement cannot be interrupted from here: the event store
hands ClickHouse the time the run has left (:func:`seconds_left`) as the statement's own limit, so ClickHouse
stops it when the calculation's time is up::

    guard = CalculationGuard(timeout_seconds=60)
    with guard.watching(conn):
        result = compute(conn)   # QueryTimeout (504) past the limit, CalculationCancelled when cancelled
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .errors import QueryTimeout

__all__ = [
    "CalculationCancelled",
    "CalculationGuard",
    "PROGRESS_STEPS",
    "check_deadline",
    "raise_timeout",
    "seconds_left",
]

# SQLite virtual-machine steps between two checks: about a millisecond of work (a trend's statement on the demo
# data runs some 80,000 steps a millisecond), so a stop is prompt and the check, a call into Python, is made a
# few dozen times a statement instead of thousands (1,000 steps cost that statement 4% of its time).
PROGRESS_STEPS = 100_000

_current: ContextVar[CalculationGuard | None] = ContextVar("insightlab_calculation_guard", default=None)


class CalculationCancelled(Exception):
    """The run was cancelled: by a client's cancel request, or because the client went away."""


class CalculationGuard:
    """The time limit and the cancel flag of one calculation run."""

    def __init__(self, *, timeout_seconds: float, cancelled: threading.Event | None = None) -> None:
        self.timeout_seconds = timeout_seconds
        self.deadline = time.monotonic() + timeout_seconds
        self.cancelled = cancelled or threading.Event()
        self._conn: sqlite3.Connection | None = None

    def start_clock(self) -> None:
        """Count the time limit from now (a queued run starts its clock when it starts running)."""
        self.deadline = time.monotonic() + self.timeout_seconds

    def cancel(self) -> None:
        self.cancelled.set()
        self.interrupt()

    def interrupt(self) -> None:
        """Abort the statement the watched connection is running now, if any (callable from any thread)."""
        conn = self._conn
        if conn is not None:
            try:
                conn.interrupt()
            except sqlite3.ProgrammingError:  # closed meanwhile: nothing left to stop
                pass

    def timed_out(self) -> bool:
        return time.monotonic() >= self.deadline

    def seconds_left(self) -> float:
        """The time the run has left before its limit (0 once it is past)."""
        return max(self.deadline - time.monotonic(), 0.0)

    def should_stop(self) -> bool:
        return self.cancelled.is_set() or self.timed_out()

    def check(self) -> None:
        """Raise the reason to stop, if there is one."""
        if self.cancelled.is_set():
            raise CalculationCancelled
        if self.timed_out():
            raise QueryTimeout(limit_seconds=self.timeout_seconds)

    def _progress(self) -> int:
        return 1 if self.should_stop() else 0

    @contextmanager
    def watching(self, conn: sqlite3.Connection) -> Iterator[None]:
        """Interrupt ``conn``'s statements once the run must stop; an interrupted run raises why it stopped."""
        token = _current.set(self)
        conn.set_progress_handler(self._progress, PROGRESS_STEPS)
        self._conn = conn
        alarm = threading.Timer(max(self.deadline - time.monotonic(), 0.0), self.interrupt)
        alarm.daemon = True
        alarm.start()
        try:
            yield
        except sqlite3.OperationalError:
            self.check()  # "interrupted" because we asked: say why
            raise
        finally:
            alarm.cancel()
            self._conn = None
            conn.set_progress_handler(None, 0)
            _current.reset(token)
        if self.cancelled.is_set():  # cancelled after its last statement: the client asked not to be answered
            raise CalculationCancelled


def check_deadline() -> None:
    """Between statements: stop the calculation running in this thread if it is out of time or cancelled."""
    guard = _current.get()
    if guard is not None:
        guard.check()


def seconds_left() -> float | None:
    """The time the calculation running in this thread has left, or None outside a calculation (no limit)."""
    guard = _current.get()
    return None if guard is None else guard.seconds_left()


def raise_timeout() -> None:
    """Stop the calculation running in this thread as out of time (its engine stopped a statement at the limit
    it was given); outside a calculation, nothing."""
    guard = _current.get()
    if guard is not None:
        raise QueryTimeout(limit_seconds=guard.timeout_seconds)
