"""Time buckets of a range: their starts, their bounds in stored microseconds, and their ``days``/``labels``.

Every bucket from the start of ``date_from``'s interval to the start of ``date_to``'s is present, so a series
is zero-filled by construction. Buckets are calendar hours, days, weeks (from the project's
``week_start_day``: 0 Sunday, 1 Monday) or months in the project timezone. ``days`` are ``YYYY-MM-DD``
(hourly: ``YYYY-MM-DD HH:MM:SS``) and ``labels`` ``5-Jan-2026`` (hourly: ``5-Jan-2026 13:00``), both of the
bucket's local start.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from datetime import datetime

from ..errors import ValidationError
from ..store.event_rows import to_micros
from .dates import DateRange, add_intervals, truncate

__all__ = ["Buckets", "make_buckets", "format_day", "format_label", "MAX_BUCKETS"]

MAX_BUCKETS = 5_000


def format_day(start: datetime, interval: str) -> str:
    return start.strftime("%Y-%m-%d %H:%M:%S" if interval == "hour" else "%Y-%m-%d")


def format_label(start: datetime, interval: str) -> str:
    label = f"{start.day}-{start.strftime('%b-%Y')}"
    return f"{label} {start.strftime('%H:%M')}" if interval == "hour" else label


@dataclass(frozen=True)
class Buckets:
    """The buckets of a range. ``edges`` has one more entry than ``starts``: bucket i is [edges[i], edges[i+1])."""

    interval: str
    starts: list[datetime]
    edges: list[int]

    def __len__(self) -> int:
        return len(self.starts)

    @property
    def days(self) -> list[str]:
        return [format_day(start, self.interval) for start in self.starts]

    @property
    def labels(self) -> list[str]:
        return [format_label(start, self.interval) for start in self.starts]

    def spans(self, lower: int, upper: int) -> list[tuple[int, int]]:
        """Each bucket's ``[low, high)`` in stored microseconds, clipped to the inclusive range [lower, upper]."""
        return [(max(low, lower), min(high, upper + 1)) for low, high in zip(self.edges, self.edges[1:], strict=False)]

    def index_of(self, micros: int) -> int | None:
        """The bucket holding a stored timestamp, or None outside them all."""
        index = bisect_right(self.edges, micros) - 1
        return index if 0 <= index < len(self.starts) else None


def make_buckets(date_range: DateRange) -> Buckets:
    """The zero-filled buckets of ``date_range`` (a 400 past :data:`MAX_BUCKETS`)."""
    interval, week_start = date_range.interval, date_range.week_start_day
    first = truncate(date_range.date_from, interval, week_start)
    last = truncate(date_range.date_to, interval, week_start)
    starts: list[datetime] = []
    current = first
    while current <= last:
        starts.append(current)
        if len(starts) > MAX_BUCKETS:
            raise ValidationError(
                f"The range holds more than {MAX_BUCKETS} {interval}s: choose a longer interval or a shorter range.",
                attr="interval",
            )
        current = add_intervals(first, interval, len(starts))
    edges = [to_micros(start) for start in starts] + [to_micros(current)]
    return Buckets(interval=interval, starts=starts, edges=edges)
