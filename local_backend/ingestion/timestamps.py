"""When an event happened, from what the client sent: ``timestamp``, ``offset``, ``sent_at``.

Clients' clocks are often wrong. As PostHog's ingestion does, a client that sends both the event's
``timestamp`` and the moment it sent the request (``sent_at``) has its skew removed: the event is placed at
``received_at + (timestamp - sent_at)``, where ``received_at`` is the server's real time of receipt. An event
with only an ``offset`` (milliseconds before sending) is placed at ``received_at - offset``; one with neither
at ``received_at``. ``$ignore_sent_at`` on the event keeps the timestamp as sent; a
``historical_migration`` batch (an import of past events) keeps it exactly, without the future cap: otherwise
a corrected time more than 23 hours after receipt is an instrumentation bug and becomes the time of receipt.

All times are integer UTC microseconds since the epoch.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from ..capture_rules import FUTURE_LIMIT_MICROS
from ..clock import has_iso_date_form

__all__ = ["to_micros", "parse_time", "event_micros", "FUTURE_LIMIT_MICROS", "TimestampError"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NAIVE_EPOCH = datetime(1970, 1, 1)
_MICRO = timedelta(microseconds=1)
# Anything outside years 1..9999 cannot be a datetime; numbers are epoch milliseconds, as JavaScript reads them.
_MAX_MILLIS = 253_402_300_799_999


class TimestampError(ValueError):
    """A time the client sent that is not an ISO 8601 date-time or epoch milliseconds."""


def to_micros(value: datetime) -> int:
    """A datetime as UTC microseconds; a naive one is taken as UTC."""
    if value.tzinfo is None:
        return (value - _NAIVE_EPOCH) // _MICRO
    return (value - _EPOCH) // _MICRO


def parse_time(value: Any, field: str) -> int:
    """An ISO 8601 text (extended form: ``2026-01-15T10:00:00Z``), a datetime or epoch milliseconds, as UTC
    microseconds."""
    if isinstance(value, str) and not has_iso_date_form(value):
        raise TimestampError(f"{field} is not an ISO 8601 date-time: {value[:64]!r}")
    if type(value) is str:
        try:  # the common case first: a clean ISO 8601 text
            return to_micros(datetime.fromisoformat(value))
        except ValueError:
            pass
    if isinstance(value, str):
        text = value.strip()
        try:
            return to_micros(datetime.fromisoformat(text))
        except ValueError:
            pass
        if text.endswith(("z", "Z")):  # "...Z" is read by fromisoformat from 3.11; lowercase is not
            try:
                return to_micros(datetime.fromisoformat(text[:-1] + "+00:00"))
            except ValueError:
                pass
        raise TimestampError(f"{field} is not an ISO 8601 date-time: {value[:64]!r}")
    if isinstance(value, datetime):
        return to_micros(value)
    if isinstance(value, int | float) and not isinstance(value, bool) and -_MAX_MILLIS <= value <= _MAX_MILLIS:
        return int(value * 1000)
    raise TimestampError(f"{field} must be an ISO 8601 date-time or epoch milliseconds")


def event_micros(
    timestamp: Any, offset: Any, sent_at: int | None, received_at: int, *, historical: bool = False
) -> int:
    """The event's time, skew-corrected against the real time of receipt (see the module docstring).

    ``sent_at`` is None when the client did not send one or asked for it to be ignored; ``historical``
    events keep their timestamp exactly and are not capped to the time of receipt.
    """
    if timestamp is not None and timestamp != "":
        when = parse_time(timestamp, "timestamp")
        if historical:
            return when
        if sent_at is not None:
            when = received_at + (when - sent_at)
    elif offset is not None and offset != "":
        if isinstance(offset, bool) or not isinstance(offset, int | float):
            raise TimestampError("offset must be a number of milliseconds")
        when = received_at - int(offset * 1000)
    else:
        when = received_at
    if when - received_at > FUTURE_LIMIT_MICROS:
        return received_at
    return when
