"""The demo dataset: a realistic, reproducible stream of PostHog wire-format events.

    for event in demo_events(events=100_000, seed=0, end=clock.now()):
        ...  # {"event", "distinct_id", "timestamp", "uuid", "properties"}

The same ``events``, ``seed`` and ``end`` always give the same events, uuids included. The window is the
:data:`DEMO_DAYS` days ending at ``end`` (the first day starts at midnight UTC), and no event is later than
``end``. The stream is generated lazily, visitor by visitor, so any size fits in memory. docs/loading.md
describes what is in it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from ..store.event_rows import to_micros
from .catalog import STAFF, STAFF_DOMAIN
from .simulation import Simulation, format_micros

__all__ = [
    "DEFAULT_DEMO_EVENTS",
    "DEFAULT_DEMO_SEED",
    "DEMO_DAYS",
    "GROUP_TYPES",
    "TEST_ACCOUNT_FILTERS",
    "demo_events",
    "demo_window",
]

DEFAULT_DEMO_EVENTS = 100_000
DEFAULT_DEMO_SEED = 0
DEMO_DAYS = 90
GROUP_TYPES = ("company", "team")
# Staff accounts, who test sign-ups and purchases in production, are what "filter test accounts" removes.
TEST_ACCOUNT_FILTERS: list[dict[str, Any]] = [
    {"key": "email", "value": f"@{STAFF_DOMAIN}", "operator": "not_icontains", "type": "person"}
]
_STAFF_SHARE = 0.03  # of all events
_STAFF_EVENTS_PER_SESSION = 3.4
_STAFF_MAX_SESSIONS_PER_DAY = 6


def demo_window(end: datetime, days: int = DEMO_DAYS) -> tuple[datetime, datetime]:
    """``(start, end)``: midnight UTC ``days - 1`` days before ``end``'s day, and ``end`` itself."""
    end = end.astimezone(UTC)
    start = datetime(end.year, end.month, end.day, tzinfo=UTC) - timedelta(days=days - 1)
    return start, end


def _staff_sessions(events: int, days: int) -> int:
    wanted = round(events * _STAFF_SHARE / len(STAFF) / _STAFF_EVENTS_PER_SESSION)
    return max(1, min(wanted, days * _STAFF_MAX_SESSIONS_PER_DAY))


def demo_events(
    *, events: int = DEFAULT_DEMO_EVENTS, seed: int = DEFAULT_DEMO_SEED, end: datetime
) -> Iterator[dict[str, Any]]:
    """Exactly ``events`` wire-format events (none when ``events`` is 0 or less)."""
    start, end = demo_window(end)
    sim = Simulation(seed=seed, start_us=to_micros(start), end_us=to_micros(end), days=DEMO_DAYS)
    remaining = max(events, 0)

    def stories() -> Iterator[list[dict[str, Any]]]:
        sessions = _staff_sessions(remaining, DEMO_DAYS)
        for member in STAFF:
            yield sim.staff(member, sessions)
        while True:
            yield sim.visitor()

    for story in stories():
        for event in story[:remaining]:
            event["timestamp"] = format_micros(event.pop("_at"))
            yield event
        remaining -= min(len(story), remaining)
        if remaining == 0:
            return
