"""Why a file's properties cannot be stored, worked out in ClickHouse as the row-by-row loader words it.

The chdb bulk load splits each event's properties once (``JSONExtractKeysAndValuesRaw``): an empty split is
``{}`` or text ClickHouse's JSON reader refuses. Python reads more than that reader: ``NaN``, ``Infinity`` and
numbers beyond a double's range (read as infinities, then refused as not JSON compliant when the properties are
stored), and strings holding a lone UTF-16 surrogate escape (refused because the stored text must be UTF-8). The
row-by-row loader gives each its own reason, after the checks of the event's name, distinct id, time and uuid;
text that is no JSON at all it refuses first. It also refuses properties nested deeper than
:data:`~..limits.MAX_JSON_DEPTH`, which ClickHouse reads. Each function here gives a condition for one of those
cases; :func:`not_finite` and :func:`lone_surrogate` are meant for text ClickHouse refused (evaluate with
``short_circuit_function_evaluation`` so that other rows skip them).
"""

from __future__ import annotations

from ..limits import MAX_JSON_DEPTH
from ..store.clickhouse.params import string_literal as _literal

__all__ = ["lone_surrogate", "not_finite", "too_deep"]

# a JSON string, escapes included
_STRING = r'"(?:[^"\\]|\\.)*"'
# a number Python reads as a float: with a fraction or an exponent (a run of digits alone is an int, of any size)
_REAL = r"-?[0-9]+(?:\.[0-9]+)?[eE][+-]?[0-9]+|-?[0-9]+\.[0-9]+"
# an escaped backslash, then a high surrogate escape followed by a low one: a valid pair
_ESCAPED_BACKSLASH = r"\\\\"
_PAIR = r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
_SURROGATE = r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}"


def _outside_strings(text_sql: str) -> str:
    """The text with every string emptied: what is left is structure, numbers and literals."""
    return f"replaceRegexpAll({text_sql}, {_literal(_STRING)}, '\"\"')"


def not_finite(text_sql: str) -> str:
    """Whether the text holds ``NaN``, ``Infinity`` or a real beyond a double's range outside its strings."""
    bare = _outside_strings(text_sql)
    return (
        f"(match({bare}, 'NaN|Infinity')"
        f" OR arrayExists(x -> isInfinite(toFloat64OrZero(x)), extractAll({bare}, {_literal(_REAL)})))"
    )


def lone_surrogate(text_sql: str) -> str:
    """Whether a string of the text holds an escaped UTF-16 surrogate that is not half of a pair."""
    unpaired = (
        f"replaceRegexpAll(replaceRegexpAll({text_sql}, {_literal(_ESCAPED_BACKSLASH)}, ''), {_literal(_PAIR)}, '')"
    )
    return f"match({unpaired}, {_literal(_SURROGATE)})"


def too_deep(raws_sql: str) -> str:
    """Whether properties nest arrays and objects more than :data:`MAX_JSON_DEPTH` levels deep (the outer object
    is the first level), from the raw JSON texts of their values (``raws_sql``, an array: readable properties
    only, which is when the row-by-row loader counts); each value's levels are counted only where its brackets
    alone could reach that deep."""
    levels = (
        "arrayMax(arrayCumSum(arrayMap(c -> multiIf(c IN ('{', '['), 1, c IN ('}', ']'), -1, 0),"
        f" splitByString('', {_outside_strings('x')}))))"
    )
    return (
        f"arrayExists(x -> (startsWith(x, '{{') OR startsWith(x, '['))"
        f" AND countSubstrings(x, '{{') + countSubstrings(x, '[') >= {MAX_JSON_DEPTH} AND {levels} >= {MAX_JSON_DEPTH},"
        f" {raws_sql})"
    )
