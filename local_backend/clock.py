"""The one source of "now" for the backend.

Everything that reads the current time (created_at, relative date ranges, cache staleness) asks the clock
the app was built with, so ``serve --now 2026-01-15T12:00:00Z`` makes a whole server live at that instant.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Protocol

__all__ = ["Clock", "SystemClock", "FrozenStartClock", "FixedClock", "parse_instant", "format_instant"]


class Clock(Protocol):
    def now(self) -> datetime:
        """The current instant, timezone-aware in UTC."""
        ...


class SystemClock:
    """The machine's own time."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class FrozenStartClock:
    """Starts at ``start`` and then advances in real time (what ``--now`` means)."""

    def __init__(self, start: datetime) -> None:
        self._start = start.astimezone(UTC)
        self._t0 = time.monotonic()

    def now(self) -> datetime:
        from datetime import timedelta

        return self._start + timedelta(seconds=time.monotonic() - self._t0)


class FixedClock:
    """Never moves unless told to; for tests."""

    def __init__(self, instant: datetime) -> None:
        self.instant = instant.astimezone(UTC)

    def now(self) -> datetime:
        return self.instant

    def advance(self, **delta: float) -> None:
        from datetime import timedelta

        self.instant = self.instant + timedelta(**delta)


def parse_instant(text: str) -> datetime:
    """Parse an ISO 8601 date or date-time; a naive value is taken as UTC."""
    value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def format_instant(value: datetime) -> str:
    """ISO 8601 in UTC with microseconds and a ``Z``, the form every stored and returned time takes."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
