"""Why a file's properties cannot be stored, worked out in ClickHouse as the row-by-row loader words it.

The chdb bulk load splits each event's properties once (``JSONExtractKeysAndValuesRaw``): an empty split is ``{}`` or
text ClickHouse's JSON reader refuses. Python reads more than that reader: ``NaN``, ``Infinity`` and numbers beyond a
double's range (read as infinities, then refused as not JSON compliant when the properties are stored), and strings
holding a lone UTF-16 surrogate escape (refused because the stored text must be UTF-8). The row-by-row loader gives each
its own reason, after the checks of the event's name, distinct id, time and uuid; text that is no JSON at all it refuses
first. It also refuses properties nested deeper than :data:`local_backend.limits.MAX_JSON_DEPTH`, which ClickHouse
reads. Each function here gives a condition for one of those cases; :func:`not_finite` and :func:`lone_surrogate` are
meant for text ClickHouse refused (evaluate with ``short_circuit_function_evaluation`` so that other rows skip them).

:func:`repeated_name` finds objects that name a property twice: Python keeps the last value, ClickHouse's and
SQLite's JSON functions read the first, so such properties must go through Python before they are stored.
"""

from __future__ import annotations

import json
from typing import Any

from .....limits import MAX_JSON_DEPTH
from ..params import string_literal as _literal

__all__ = ["REPEATED_NAME_LEVELS", "lone_surrogate", "names_a_key_twice", "not_finite", "repeated_name", "too_deep"]

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


#: How many levels of objects and arrays inside the properties :func:`repeated_name` checks in ClickHouse; a
#: container nested deeper is left to Python.
REPEATED_NAME_LEVELS = 5


def _container(text: str) -> str:
    return f"(startsWith({text}, '{{') OR startsWith({text}, '['))"


def _nests(text: str) -> str:
    """Whether the object or array ``text`` may hold another one (a bracket after its first, strings aside)."""
    return f"countSubstrings({text}, '{{') + countSubstrings({text}, '[') > 1"


def _worst(values: str, level: int) -> str:
    """The highest :func:`_repeated_inside` of the containers among ``values`` (an array of raw JSON texts), each
    ``level`` levels inside."""
    value = f"v{level}"
    return f"arrayMax(arrayMap({value} -> if({_container(value)}, {_repeated_inside(value, level)}, 0), {values}))"


def _repeated_inside(text: str, level: int) -> str:
    """0, 1 or 2 as :func:`repeated_name` for the object or array ``text``, ``level`` levels inside: the object's
    names are compared, and its values (an array's items) looked into only when the text holds another bracket."""
    if level > REPEATED_NAME_LEVELS:
        return "toUInt8(1)"
    pairs, items = f"kv{level}", _worst(f"JSONExtractArrayRaw({text})", level + 1)
    return (
        f"toUInt8(multiIf(startsWith({text}, '['), if({_nests(text)}, {items}, 0),"
        f" arrayMap({pairs} -> {_repeated_in_pairs(pairs, text, level)}, [JSONExtractKeysAndValuesRaw({text})])[1]))"
    )


def _repeated_in_pairs(pairs: str, text: str, level: int) -> str:
    """:func:`_repeated_inside` of the object ``text`` from its names and raw values (``pairs``)."""
    return (
        f"multiIf(length({pairs}) != length(arrayDistinct(arrayMap(x -> x.1, {pairs}))), 2,"
        f" {_nests(text)}, {_worst(f'arrayMap(x -> x.2, {pairs})', level + 1)}, 0)"
    )


def repeated_name(keys_sql: str, raws_sql: str, groups_sql: str) -> str:
    """Whether an object of the properties names a key twice: 2 when one does, 0 when none does, 1 when only a
    container nested more than :data:`REPEATED_NAME_LEVELS` levels inside could (for Python to decide); from the
    properties' names (``keys_sql``) and raw values (``raws_sql``), readable properties only, and the names and
    raw values of ``$groups`` (``groups_sql``), which the load splits anyway: most events carry it, and splitting
    it a second time here would cost about as much as every other check of this function."""
    groups = f"{raws_sql}[indexOf({keys_sql}, '$groups')]"
    # greatest() rather than a multiIf that would skip the rest for most rows: short-circuiting copies the rows
    # a branch reads (arrays of strings here), which costs more than the branches (measured on the demo's
    # events: about 2 s of CPU per million events with a multiIf, 0.6 s so)
    return (
        f"toUInt8(greatest(if(length({keys_sql}) != length(arrayDistinct({keys_sql})), 2, 0),"
        f" if(startsWith({groups}, '{{'), {_repeated_in_pairs(groups_sql, groups, 1)}, 0),"
        f" arrayMax(arrayMap((k, r) -> if({_container('r')} AND NOT (k = '$groups' AND startsWith(r, '{{')),"
        f" {_repeated_inside('r', 1)}, 0), {keys_sql}, {raws_sql}))))"
    )


class _RepeatedName(Exception):
    pass


def _refuse_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len({name for name, _ in pairs}) != len(pairs):
        raise _RepeatedName
    return dict(pairs)


def names_a_key_twice(text: str) -> bool:
    """Whether an object of the JSON ``text`` (which Python reads) names a key twice, at any depth."""
    try:
        json.loads(text, object_pairs_hook=_refuse_repeats)
    except _RepeatedName:
        return True
    return False
