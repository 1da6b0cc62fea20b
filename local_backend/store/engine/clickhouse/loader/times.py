"""A file's timestamp text read in ClickHouse exactly as the row-by-row loader reads it, for the chdb bulk load.

The row-by-row loader strips the text (Python's whitespace), turns each ``Z`` into ``+00:00`` and takes what
``datetime.fromisoformat`` takes (:func:`local_backend.loading.records._instant`). ClickHouse's own best-effort
parser takes far more (``Jan 10 2026``, ``2026/01/10``, epoch seconds, hour 25, month 0) and some less (week
dates), so the bulk load reads only the form exports write, ``YYYY-MM-DD[( |T)hh:mm[:ss[.f{1,9}]][Z|±hh[[:]mm]]]``,
checks every field's range as Python does and applies the offset itself (Python allows any offset under 24 hours,
such as ``+12:61``). A text that cannot start a date ``fromisoformat`` reads is rejected as the loader rejects it; one
that might (``20260110``, ``2026-W02-6``, a comma before the fraction) is in :func:`other_iso_form`: the bulk load
leaves such a file to the row-by-row loader.
"""

from __future__ import annotations

from ..params import string_literal as _literal

__all__ = ["EARLIEST_MICROS", "LATEST_MICROS", "stripped", "local_micros", "other_iso_form"]

# str.strip()'s whitespace, as an RE2 class
_SPACE = (
    r"[\t\n\x{0b}\x{0c}\r\x{1c}-\x{1f} \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}"
    r"\x{3000}]"
)
# the form almost every export writes (UTC, seconds, maybe a fraction): its fields sit at fixed places
_PLAIN_FORM = r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z?$"
# groups: 1 year, 2 month, 3 day, 4 hour, 5 minute, 6 second, 7 offset (as written), 8 its sign, 9 hours, 10 minutes
_ISO_FORM = (
    r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|([+-])(\d{2})(?::?(\d{2}))?)?)?$"
)
# the start of every text fromisoformat may read (YYYY-MM-DD, YYYYMMDD, YYYY-Www, YYYYWww), once stripped
_ANY_ISO_START = r"^\d{4}(?:-?W\d|\d{4}|-\d{2}-\d{2})"
#: 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z: a time outside cannot be a Python datetime.
EARLIEST_MICROS = -62_135_596_800_000_000
LATEST_MICROS = 253_402_300_799_999_999


def stripped(text_sql: str) -> str:
    """The text without leading and trailing whitespace, as ``str.strip()`` leaves it (the regular expression
    runs only when the first or last byte is ASCII whitespace or part of a longer character)."""
    ends = " OR ".join(f"{byte} IN (9, 10, 11, 12, 13, 28, 29, 30, 31, 32) OR {byte} >= 128"
                       for byte in (f"ascii({text_sql})", f"ascii(right({text_sql}, 1))"))  # fmt: skip
    return f"if({ends}, replaceRegexpAll({text_sql}, {_literal(f'^{_SPACE}+|{_SPACE}+$')}, ''), {text_sql})"


def _parsed(text_sql: str) -> str:
    return f"toUnixTimestamp64Micro(parseDateTime64BestEffortOrNull({text_sql}, 6, 'UTC'))"


def local_micros(text_sql: str) -> str:
    """UTC microseconds of a stripped text in the form the bulk load reads, or NULL when it is not in that form,
    a field is out of its range or the day is not in its month; may fall outside :data:`EARLIEST_MICROS` ..
    :data:`LATEST_MICROS`. Evaluate with ``short_circuit_function_evaluation = 'force_enable'``: only a text
    not in the plain form is split by the regular expression's groups."""
    parts = f"extractGroups({text_sql}, {_literal(_ISO_FORM)})"

    def plain(at: int) -> str:  # the two digits at a place of the plain form
        return f"toUInt16OrZero(substring({text_sql}, {at}, 2))"

    def field(group: int) -> str:
        return f"toUInt16OrZero({parts}[{group}])"

    plain_valid = (
        f"{plain(6)} BETWEEN 1 AND 12 AND {plain(9)} BETWEEN 1 AND 31 AND {plain(12)} < 24 AND {plain(15)} < 60"
        f" AND {plain(18)} < 60"
    )
    valid = (
        f"notEmpty({parts}) AND {field(2)} BETWEEN 1 AND 12 AND {field(3)} BETWEEN 1 AND 31"
        f" AND {field(4)} < 24 AND {field(5)} < 60 AND {field(6)} < 60 AND {field(9)} * 60 + {field(10)} < 1440"
    )
    written = f"substring({text_sql}, 1, length({text_sql}) - length({parts}[7]))"  # without its offset
    offset = f"if({parts}[8] = '-', -1, 1) * (toInt64({field(9)}) * 3600 + toInt64({field(10)}) * 60) * 1000000"
    return (
        f"multiIf(match({text_sql}, {_literal(_PLAIN_FORM)}), if({plain_valid}, {_parsed(text_sql)}, NULL),"
        f" {valid}, {_parsed(written)} - {offset}, NULL)"
    )


def other_iso_form(text_sql: str) -> str:
    """Whether a stripped text is not in the form the bulk load reads but might be one ``fromisoformat`` reads."""
    return (
        f"{text_sql} != '' AND NOT match({text_sql}, {_literal(_PLAIN_FORM)})"
        f" AND empty(extractGroups({text_sql}, {_literal(_ISO_FORM)}))"
        f" AND match({text_sql}, {_literal(_ANY_ISO_START)})"
    )
