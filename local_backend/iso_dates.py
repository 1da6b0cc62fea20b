"""Dates in property values (the ``is_date_*`` filters), read by one grammar on every engine.

A value is a date when its text, without ASCII whitespace around it and with each ``Z`` read as ``+00:00``,
is ``YYYY-MM-DD`` or ``YYYYMMDD``, optionally followed by one separator that is not a digit (``T``, a space)
and a time: ``hh``, ``hh:mm``, ``hh:mm:ss`` or the same without colons, seconds optionally with a fraction
(``.`` or ``,``; digits past the sixth ignored), then optionally an offset ``±hh``, ``±hh:mm`` or ``±hhmm``.
Each field must be in its range (a day that exists in its month, hours under 24, any offset under 24 hours),
years from 0001 to 9999. A text that is not a date may still start with one: its first ten characters are
read the same way. A date without an offset is UTC. Week dates (``2026-W02-6``) are not read.

SQLite reads with :func:`read_date` (``il_date``); ClickHouse with the same pattern and arithmetic in SQL
(:mod:`local_backend.store.engine.clickhouse.dialect`), so the two agree on every text. Python's
``datetime.fromisoformat`` reads more (week dates, any separator, mixed basic and extended forms), which
ClickHouse's functions cannot follow.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

__all__ = ["ISO_PATTERN", "ASCII_WHITESPACE", "read_date", "iso_micros"]

#: The grammar (RE2 and Python alike). Groups: 1 year, 2 the date's separator, 3 month, 4 its second
#: separator, 5 day, 6 hour, 7 the time's separator, 8 minute, 9 its second separator, 10 second, 11 the
#: fraction's digits, 12 the offset's sign, 13 its hours, 14 its minutes. A date's separators are both ``-``
#: or both absent, and so are a time's colons (checked beside the pattern: RE2 has no back-references).
ISO_PATTERN = (
    r"^([0-9]{4})(-?)([0-9]{2})(-?)([0-9]{2})"
    r"(?:[^0-9]([0-9]{2})(?:(:?)([0-9]{2})(?:(:?)([0-9]{2})(?:[.,]([0-9]+))?)?)?"
    r"(?: ?([+-])([0-9]{2})(?::?([0-9]{2}))?)?)?$"
)
#: What is stripped from both ends of the text: ASCII whitespace and the space.
ASCII_WHITESPACE = " \t\n\r\x0b\x0c"

_ISO = re.compile(ISO_PATTERN)
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
_DAY = 86_400_000_000


def read_date(value: Any) -> int | None:
    """UTC microseconds of a property value read as a date (module docstring), else None."""
    if value is None:
        return None
    text = str(value).strip(ASCII_WHITESPACE).replace("Z", "+00:00")
    found = iso_micros(text)
    return found if found is not None else iso_micros(text[:10])


def iso_micros(text: str) -> int | None:
    """UTC microseconds of ``text`` when it is, whole, a date of :data:`ISO_PATTERN` with every field in range."""
    match = _ISO.fullmatch(text)
    if match is None:
        return None
    year, dash, month, dash2, day, hour, colon, minute, colon2, second, fraction, sign, off_h, off_m = match.groups()
    if dash != dash2 or (second is not None and colon != colon2):
        return None
    try:
        days = date(int(year), int(month), int(day)).toordinal() - _EPOCH_ORDINAL
    except ValueError:
        return None
    hours, minutes, seconds = int(hour or 0), int(minute or 0), int(second or 0)
    offset_hours, offset_minutes = int(off_h or 0), int(off_m or 0)
    if hours >= 24 or minutes >= 60 or seconds >= 60 or offset_hours >= 24 or offset_minutes >= 60:
        return None
    micros = int((fraction or "").ljust(6, "0")[:6])
    offset = (offset_hours * 60 + offset_minutes) * 60_000_000 * (-1 if sign == "-" else 1)
    return days * _DAY + ((hours * 60 + minutes) * 60 + seconds) * 1_000_000 + micros - offset
