"""Which of a calculation's time spans each event falls in: the ``__span`` column of span aggregates.

:func:`span_join` picks the cheapest statement shape the spans allow (an integer division of the stored day or
the time, a binary search over ordered starts, or a test against every span); the event store puts its text
after the ``e`` rows and reads ``__span`` as the span's 1-based index.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..interface import Fragment
from .client import ClickHouseClient
from .schema import EXACT_DAYS, exact_days

__all__ = ["SPAN", "span_join"]

SPAN = "__span"
DAY_MICROS = 86_400_000_000


def span_join(client: ClickHouseClient, spans: Sequence[tuple[int, int]]) -> Fragment:
    """Each event's (1-based) index of a span holding it as ``__span`` (one row per span holding it), and the
    range test: the text to put after the ``e`` rows' source, and its parameters.

    Spans in order without overlaps (every calendar's) hold an event at most once. Back to back and of one
    length (days in UTC or a timezone without daylight saving, hours, weeks) its span is an integer
    division, with no ``ARRAY JOIN``: of the event's ``day`` when the spans are whole UTC days within the
    days it is exact on (:data:`.schema.DAY_EXPRESSION`; the sorted 2-byte day is read instead of the
    8-byte time, a third less time for a daily count), of its time otherwise. Spans in order but not back
    to back or of one length take a binary search (``roundDown`` to the latest start at or before it) and a
    hash lookup of that start. Any other spans are each tested against every event.
    """
    lows = [int(low) for low, _ in spans]
    highs = [int(high) for _, high in spans]
    count = len(spans)
    ordered = all(low < high for low, high in zip(lows, highs, strict=True)) and all(
        highs[index] <= lows[index + 1] for index in range(count - 1)
    )
    width = highs[0] - lows[0]
    if (
        ordered
        and all(high - low == width for low, high in zip(lows, highs, strict=True))
        and all(highs[index] == lows[index + 1] for index in range(count - 1))
    ):
        # back-to-back spans of one length (days or hours at a fixed offset, weeks): the span is a division
        first, end = lows[0] // DAY_MICROS, highs[-1] // DAY_MICROS
        if (
            lows[0] % DAY_MICROS == 0
            and width % DAY_MICROS == 0
            and first in EXACT_DAYS
            and end - 1 in EXACT_DAYS
            and exact_days(client)
        ):
            day = "toUInt16(e.day)"
            sql = f" WHERE {day} >= ? AND {day} < ? AND (intDiv({day} - ?, ?) + 1 AS {SPAN}) > 0"
            return sql, [first, end, first, width // DAY_MICROS]
        sql = f" WHERE e.timestamp >= ? AND e.timestamp < ? AND (intDiv(e.timestamp - ?, ?) + 1 AS {SPAN}) > 0"
        return sql, [lows[0], highs[-1], lows[0], width]
    if ordered:
        sql = (
            f" ARRAY JOIN [transform(roundDown(e.timestamp, ?), ?, range(1, {count + 1}), toUInt64(0))] AS {SPAN}"
            f" WHERE e.timestamp >= ? AND e.timestamp < ? AND e.timestamp < arrayElement(?, {SPAN})"
        )
        return sql, [lows, lows, min(lows), max(highs), highs]
    sql = (
        " ARRAY JOIN arrayFilter(x -> e.timestamp >= arrayElement(?, x) AND e.timestamp < arrayElement(?, x),"
        f" range(1, {count + 1})) AS {SPAN} WHERE e.timestamp >= ? AND e.timestamp < ?"
    )
    return sql, [lows, highs, min(lows), max(highs)]
