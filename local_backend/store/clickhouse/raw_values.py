"""The stored columns' values computed from a property's raw JSON text, for a loader that parses an event once.

``events`` computes each hot column and ``session_id`` from ``properties`` as a row is inserted: several JSON
parses of the whole object per column. A loader that has already split an event's properties into names and
raw values (``JSONExtractKeysAndValuesRaw``) computes the same values from the raw text of one value instead
and inserts them with ``insert_allow_materialized_columns``. The raw text of a value is what
``JSONExtractRaw(properties, key)`` gives: ``''`` when the key is missing (and for a number out of Float64's
range, which ClickHouse reads as null), strings quoted (integers out of 64-bit range too), everything else
minified JSON (a whole real loses its point: see :func:`hot_value_of_raw`).
"""

from __future__ import annotations

from .dialect import _line_separators_unescaped, _real_text

__all__ = ["hot_value_of_raw", "session_id_of_raw"]


def hot_value_of_raw(raw: str, properties: str, key: str) -> str:
    """What a hot column holds (:meth:`.ClickHouseDialect.hot_value`), from the value's raw JSON text ``raw``.

    The raw text of a whole real drops its point (``1.0`` reads back ``1``), so a number without one is looked
    up again in ``properties`` (under ``key``, a quoted literal): rare for the hot properties, which hold text.
    Evaluate with ``short_circuit_function_evaluation = 'force_enable'`` so only those rows parse it again.
    """
    return (
        f"multiIf({raw} = '' OR {raw} = 'null', NULL,"
        f" startsWith({raw}, '\"'), JSONExtractString({raw}),"
        f" {raw} IN ('true', 'false'), {raw},"
        f" startsWith({raw}, '[') OR startsWith({raw}, '{{'), {_line_separators_unescaped(raw)},"
        f" match({raw}, '[.eE]'), {_real_text(f'JSONExtractFloat({raw})')},"
        f" JSONType({properties}, {key}) = 'Double', {_real_text(f'JSONExtractFloat({properties}, {key})')},"
        f" {raw})"
    )


def session_id_of_raw(raw: str) -> str:
    """What ``events.session_id`` holds (text as it is, numbers and booleans as written, NULL for a null, an
    array, an object or no value), from the value's raw JSON text ``raw``."""
    return (
        f"multiIf({raw} = '' OR {raw} = 'null' OR startsWith({raw}, '[') OR startsWith({raw}, '{{'), NULL,"
        f" startsWith({raw}, '\"'), JSONExtractString({raw}), {raw})"
    )
