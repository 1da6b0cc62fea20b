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

from ....limits import MAX_INT64
from .dialect import _real_text, container_text

__all__ = ["hot_value_of_raw", "python_float_text"]


def hot_value_of_raw(raw: str, properties: str, key: str, *, booleans: tuple[str, str] | None = None) -> str:
    """What a hot column holds (:meth:`.ClickHouseDialect.hot_value`), from the value's raw JSON text ``raw``;
    with ``booleans`` (the texts of true and false, ``("'1'", "'0'")`` for ``session_id``), what
    :meth:`.ClickHouseDialect.extract` gives.

    The raw text of a whole real drops its point (``1.0`` reads back ``1``), so a number without one is looked
    up again in ``properties`` (under ``key``, a quoted literal): rare for the hot properties, which hold text.
    An array or object is its stored text where that can be found (:func:`.dialect.container_text`), since
    its raw text has its numbers written again (``[1.0]`` reads back ``[1]``).
    An integer past SQLite's 64-bit range is the text of a real, as SQLite reads it.
    It may be evaluated whole, as a column's ``MATERIALIZED`` expression is (see below); with
    ``short_circuit_function_evaluation = 'force_enable'`` only each row's own branch runs.
    """
    truth = (
        f"{raw} IN ('true', 'false'), {raw}"
        if booleans is None
        else f"{raw} = 'true', {booleans[0]}, {raw} = 'false', {booleans[1]}"
    )
    # Each branch's costly reads take an empty text unless their branch can be chosen, so that where the
    # expression is evaluated whole (a column's MATERIALIZED expression) the others cost next to nothing: the
    # properties are parsed again only for a whole number, the regexes run only over an array or an object.
    whole = f"if(match({raw}, '^-?[0-9]+$'), {properties}, '')"
    container = f"if(startsWith({raw}, '[') OR startsWith({raw}, '{{'), {raw}, '')"
    real = f"if(match({raw}, '[.eE]'), {raw}, '')"
    empty = "''"
    return (
        f"multiIf({raw} = '' OR {raw} = 'null', NULL,"
        f" startsWith({raw}, '\"'), JSONExtractString({raw}), {truth},"
        f" startsWith({raw}, '[') OR startsWith({raw}, '{{'),"
        f" {container_text(f'if({container} != {empty}, {properties}, {empty})', key, container)},"
        f" match({raw}, '[.eE]'), {_real_text(f'JSONExtractFloat({real})')},"
        f" JSONType({whole}, {key}) = 'Double', {_real_text(f'JSONExtractFloat({whole}, {key})')},"
        f" length({raw}) >= 19 AND toUInt64OrZero({raw}) > {MAX_INT64},"
        f" {_real_text(f'toFloat64(toUInt64OrZero({raw}))')},"
        f" {raw})"
    )


def python_float_text(number_sql: str) -> str:
    """A Float64 as Python's ``str()`` prints a float (what capture stores for a number it was given as one):
    the shortest digits that read back the same, as ClickHouse prints them too, laid out the way Python lays
    them out: ``1.0``, ``100000.0``, ``0.0001``, ``1e-05``, ``1e+16``, ``-0.0``."""
    # ClickHouse's text of a number is [-]A[.B][eE]: split it into the significant digits d and the power of
    # ten x of the first one, then print d as Python does (exponent below -4 or from 16 on; else fixed, with a
    # point and at least one digit after it); each arrayMap(..., [value])[1] names a value for the next step
    return (
        "arrayMap(t -> arrayMap((neg, s) -> arrayMap((m, e) -> arrayMap((a, b) -> arrayMap((digits, lead) ->"
        " arrayMap((d, x) -> concat(if(neg, '-', ''), multiIf("
        " d = '', '0.0',"
        " x >= 16 OR x < -4, concat(substring(d, 1, 1), if(length(d) > 1, concat('.', substring(d, 2)), ''),"
        " 'e', if(x < 0, '-', '+'), if(abs(x) < 10, '0', ''), toString(abs(x))),"
        " x < 0, concat('0.', repeat('0', toUInt32(-x - 1)), d),"
        " concat(rightPad(substring(d, 1, x + 1), toUInt32(x + 1), '0'), '.',"
        " if(length(d) > x + 1, substring(d, x + 2), '0')))),"
        " [trimRight(trimLeft(digits, '0'), '0')], [toInt32(length(a)) - 1 - lead + e])[1],"
        " [concat(a, b)], [toInt32(length(concat(a, b)) - length(trimLeft(concat(a, b), '0')))])[1],"
        " [splitByChar('.', m)[1]], [if(position(m, '.') > 0, splitByChar('.', m)[2], '')])[1],"
        " [splitByChar('e', s)[1]], [if(position(s, 'e') > 0, toInt32(splitByChar('e', s)[2]), 0)])[1],"
        " [startsWith(t, '-')], [if(startsWith(t, '-'), substring(t, 2), t)])[1],"
        f" [toString({number_sql})])[1]"
    )
