"""The SQL dialect filters compile to when events live in ClickHouse: the same meanings as SQLite's, in ClickHouse SQL.

Every method answers what :class:`~local_backend.store.engine.sqlite.dialect.SQLiteDialect`'s method of the same name
answers, value for value, so a calculation gives the same numbers on either engine:

* JSON is read with ``JSONType``/``JSONExtract*`` (keys bound as parameters). The text PostHog compares is the
  text SQLite's ``CAST(json_extract(...) AS TEXT)`` gives: strings as they are, integers as written, reals as
  SQLite prints them (``printf('%!.15g')``: 15 significant digits, always a decimal point, ``1.0e+20``),
  booleans ``true``/``false``, arrays and objects as minified JSON.
* Numbers are ``il_float``'s: the text without spaces read as a float, NULL when it is not a finite number.
* Dates are ``il_date``'s: ISO 8601 text (or its first ten characters) as UTC microseconds.
* Regexes use ``match``, RE2 as on SQLite; quantiles interpolate linearly between the two nearest values with
  the same arithmetic as :func:`local_backend.store.engine.sqlite.dialect.quantile`.
* An event row ``e`` reaches its person's and groups' properties and its session's length through columns the
  event store joins in when a statement names them (``e.person_properties``, ``e.group_<i>_properties``,
  ``e.session_seconds``): ClickHouse joins a table once where SQLite looks a row up per event.
* Static cohorts' members stay in SQLite: ``il_cohort_members(?)`` stands for them and the event store binds
  the cohort's member ids in its place as one ``Array(Int64)`` parameter.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from ....iso_dates import ISO_PATTERN
from ....limits import MAX_INT64
from .params import COHORT_MEMBERS, string_literal

__all__ = ["ClickHouseDialect", "joined_columns"]

Sql = tuple[str, list[Any]]


PERSON_PROPERTIES = "e.person_properties"
PERSON_COLUMN_PREFIX = "person_"
"""``e.person_<column>``: a person's materialized property column, computed by the store from the properties."""
_WHITESPACE = "'\\t\\n\\r\\x0b\\x0c'"  # what Python's float() also strips
_WHITESPACE_AND_SPACE = "' \\t\\n\\r\\x0b\\x0c'"
SESSION_SECONDS = "e.session_seconds"


_LITERAL = re.compile(r"'(?:[^'\\]|\\.|'')*'")


_SPELT_KEY = "\x00"
"""Stands, in SQL :func:`_keyed` binds, for the key as JSON text spells it (its escapes written out): what
``simpleJSONExtractRaw``, which matches the stored text of a name, is given."""


def _keyed(sql: str, key: str) -> Sql:
    """``sql`` with ``key`` bound at each of its ``?`` marks and its JSON spelling at each :data:`_SPELT_KEY`
    (quoted literals skipped)."""
    spelt = json.dumps(key, ensure_ascii=False)[1:-1]
    marks = re.findall(f"[?{_SPELT_KEY}]", _LITERAL.sub("", sql))
    return sql.replace(_SPELT_KEY, "?"), [spelt if mark == _SPELT_KEY else key for mark in marks]


_LIKE_LITERAL_BACKSLASH = "replaceAll({}, '\\\\', '\\\\\\\\')"
"""A LIKE pattern whose backslashes match themselves (SQLite's LIKE has no escape character)."""


def _line_separators_unescaped(json_sql: str) -> str:
    """JSON text with ClickHouse's escapes of U+2028 and U+2029 written as the characters, as SQLite keeps them."""
    text = json_sql
    for _ in range(2):  # an escape after an even run of backslashes (two passes: adjacent escapes)
        for code in ("2028", "2029"):
            # RE2 sees (^|[^\\])((?:\\\\)*)\\u2028: the escape, not an escaped backslash before "u2028"
            pattern = rf"'(^|[^\\\\])((?:\\\\\\\\)*)\\\\u{code}'"
            text = f"replaceRegexpAll({text}, {pattern}, '\\\\1\\\\2{chr(int(code, 16))}')"
    return text


# a JSON string (its escapes included), and JSON's whitespace: what is left of a text without its strings holds
# whitespace only where the text is not minified as SQLite gives an array or object
_JSON_STRING = '\'"(?:[^"\\\\\\\\]|\\\\\\\\.)*"\''
_JSON_SPACE = "'[ \\\\t\\\\n\\\\r]'"


def container_text(column: str, key_sql: str, canonical: str) -> str:
    """An array or object value as SQLite gives it, the stored text (numbers as written: ``1.0``, ``1e+16``),
    from ``column`` under ``key_sql``; ``canonical`` is ClickHouse's re-serialized text of the value
    (``JSONExtractRaw``, which prints ``1.0`` as ``1``). The stored text is found by a plain scan for the key
    (``simpleJSONExtractRaw``, which may stop at the same name nested deeper) and taken when it is the same
    value and minified; else the re-serialized text."""
    stored = f"trimLeft(simpleJSONExtractRaw({column}, {key_sql}), ' \\t\\n\\r')"
    # ``stored`` is written four times: ClickHouse computes an expression written again once
    return (
        f"if({stored} != '' AND JSONExtractRaw({stored}) = {canonical}"
        f" AND NOT match(replaceRegexpAll({stored}, {_JSON_STRING}, ''), {_JSON_SPACE}), {stored},"
        f" {_line_separators_unescaped(canonical)})"
    )


def _iso_micros(text: str) -> str:
    """``text`` read by :data:`~local_backend.iso_dates.ISO_PATTERN` as UTC microseconds, as
    :func:`~local_backend.iso_dates.iso_micros` reads it; NULL when it does not match or a field is out
    of its range. The day number is worked out by arithmetic (days from 0001-01-01 on), not with ClickHouse's
    dates, which hold only 1900 to 2299."""
    year, month, day = "toInt64(g[1])", "toInt64(g[3])", "toInt64(g[5])"
    leap = f"(({year} % 4 = 0 AND {year} % 100 != 0) OR {year} % 400 = 0)"
    month_days = f"multiIf({month} = 2, 28 + {leap}, {month} IN (4, 6, 9, 11), 30, 31)"
    valid = (
        f"g[2] = g[4] AND (g[10] = '' OR g[7] = g[9]) AND {year} >= 1 AND {month} BETWEEN 1 AND 12"
        f" AND {day} BETWEEN 1 AND {month_days} AND toInt64OrZero(g[6]) < 24 AND toInt64OrZero(g[8]) < 60"
        " AND toInt64OrZero(g[10]) < 60 AND toInt64OrZero(g[13]) < 24 AND toInt64OrZero(g[14]) < 60"
    )
    # days since 1970-01-01 of a proleptic Gregorian date (years counted from March, so February ends a year)
    shifted = f"({year} - ({month} <= 2))"
    of_era = f"({shifted} - intDiv({shifted}, 400) * 400)"
    of_year = f"(intDiv(153 * (({month} + 9) % 12) + 2, 5) + {day} - 1)"
    days = (
        f"(intDiv({shifted}, 400) * 146097 + {of_era} * 365 + intDiv({of_era}, 4) - intDiv({of_era}, 100)"
        f" + {of_year} - 719468)"
    )
    micros = (
        f"{days} * 86400000000"
        " + ((toInt64OrZero(g[6]) * 60 + toInt64OrZero(g[8])) * 60 + toInt64OrZero(g[10])) * 1000000"
        " + toInt64OrZero(substring(rightPad(g[11], 6, '0'), 1, 6))"
        " - if(g[12] = '-', -1, 1) * (toInt64OrZero(g[13]) * 60 + toInt64OrZero(g[14])) * 60000000"
    )
    pattern = string_literal(ISO_PATTERN)
    return f"arrayMap(g -> if(empty(g), NULL, if({valid}, {micros}, NULL)), [extractGroups({text}, {pattern})])[1]"


def group_properties_column(index: int) -> str:
    return f"e.group_{int(index)}_properties"


def joined_columns(sql: str) -> set[str]:
    """The joined columns (``person_properties``, ``group_<i>_properties``, ``session_seconds``) ``sql`` reads."""
    names = {"person_properties", "session_seconds", *(f"group_{index}_properties" for index in range(5))}
    return {name for name in names if f"e.{name}" in sql}


def _real_text(number_sql: str) -> str:
    """A Float64 as SQLite prints a real: ``%!.15g`` (15 significant digits, always a decimal point)."""
    printed = f"printf('%.15g', {number_sql})"
    # '%g' drops the point of whole numbers ('1', '1e+20'): SQLite's '!' flag keeps one ('1.0', '1.0e+20')
    return f"if({number_sql} = 0, '0.0', replaceRegexpOne({printed}, '^(-?[0-9]+)(e|$)', '\\\\1.0\\\\2'))"


class ClickHouseDialect:
    """SQL fragments for ClickHouse; each returns the SQL text (and ``(sql, params)`` where it binds a key).

    ``database`` names the ClickHouse database whose tables the fragments that read a table (sessions,
    persons) name, since one embedded session serves several databases.
    """

    def __init__(self, database: str = "insightlab") -> None:
        self.database = database

    def table(self, name: str) -> str:
        """A table of the engine's database, quoted."""
        return f"`{self.database}`.{name}"

    def _typed(self, column: str, key: str, *, booleans: tuple[str, str], null: str, missing: str) -> Sql:
        """One JSON value as text: ``booleans`` for true/false, ``null`` for a JSON null, ``missing`` without
        the key; strings as they are, numbers as SQLite prints them, arrays and objects as minified JSON."""
        true_text, false_text = booleans
        sql = (
            f"multiIf(NOT JSONHas({column}, ?), {missing},"
            f" JSONType({column}, ?) = 'String', JSONExtractString({column}, ?),"
            f" JSONType({column}, ?) = 'Bool', if(JSONExtractBool({column}, ?), {true_text}, {false_text}),"
            f" JSONType({column}, ?) = 'Null', {null},"
            f" JSONType({column}, ?) = 'Double', {_real_text(f'JSONExtractFloat({column}, ?)')},"
            # an integer past SQLite's range, SQLite reads as a real (one past 64 bits ClickHouse reads as text)
            f" JSONType({column}, ?) = 'UInt64' AND JSONExtractUInt({column}, ?) > {MAX_INT64},"
            f" {_real_text(f'toFloat64(JSONExtractUInt({column}, ?))')},"
            f" {container_text(column, _SPELT_KEY, f'JSONExtractRaw({column}, ?)')})"
        )
        return _keyed(sql, key)

    def property_text(self, column: str, key: str) -> Sql:
        """A HogQL query's ``properties.key``: as :meth:`text`, but NULL for a JSON null or a missing key."""
        return self._typed(column, key, booleans=("'true'", "'false'"), null="NULL", missing="NULL")

    def extract(self, column: str, key: str) -> Sql:
        """The JSON value as text, NULL for null or missing; true/false as ``'1'``/``'0'`` (SQLite's 1/0).

        One ClickHouse column has one type, so numbers come back as their text: compilers compare the extracted
        value only with strings that cannot read as numbers or booleans, where text gives SQLite's answer.
        """
        return self._typed(column, key, booleans=("'1'", "'0'"), null="NULL", missing="NULL")

    def json_type(self, column: str, key: str) -> Sql:
        """``'null'``, ``'true'``, ``'false'``, ``'integer'``, ``'real'``, ``'text'``, ``'array'``,
        ``'object'``, or NULL when the key is missing (SQLite's ``json_type``)."""
        sql = (
            f"if(JSONHas({column}, ?), multiIf(JSONType({column}, ?) = 'Bool',"
            f" if(JSONExtractBool({column}, ?), 'true', 'false'),"
            f" JSONType({column}, ?) = 'Null', 'null', JSONType({column}, ?) = 'String', 'text',"
            f" JSONType({column}, ?) = 'Double', 'real', JSONType({column}, ?) = 'Array', 'array',"
            f" JSONType({column}, ?) = 'Object', 'object', 'integer'), NULL)"
        )
        return _keyed(sql, key)

    def text(self, column: str, key: str) -> Sql:
        """The value as PostHog compares it: ``''`` when missing, ``true``/``false``/``null``, numbers as text."""
        sql, params = self._typed(column, key, booleans=("'true'", "'false'"), null="'null'", missing="''")
        return f"coalesce({sql}, '')", params

    def breakdown_value(self, column: str, key: str, hot: str | None = None) -> Sql:
        """The value as a breakdown shows it: text, ``true``/``false``, NULL for missing, null or empty."""
        if hot is not None:
            return f"nullIf(toString({hot}), '')", []
        sql, params = self.hot_value(column, key)
        return f"nullIf({sql}, '')", params

    def hot_value(self, column: str, key: str) -> Sql:
        """What a hot or materialized column holds: ``true``/``false`` for booleans, else the extracted value."""
        return self._typed(column, key, booleans=("'true'", "'false'"), null="NULL", missing="NULL")

    def to_text(self, value_sql: str) -> str:
        """``CAST(value AS TEXT)`` as SQLite writes it: text as it is, integers as written, reals as SQLite prints
        them; NULL stays NULL."""
        real = _real_text("toFloat64(x)")
        return f"arrayMap(x -> if(toTypeName(x) LIKE '%Float%', {real}, toString(x)), [{value_sql}])[1]"

    def integer(self, value_sql: str) -> str:
        """:meth:`number` truncated toward zero (SQLite's ``CAST(real AS INTEGER)``); NULL when not a number."""
        # out of range, SQLite gives the nearest 64-bit integer (ClickHouse would wrap around)
        return (
            "arrayMap(x -> multiIf(x >= 9223372036854775807.0, toInt64(9223372036854775807),"
            f" x <= -9223372036854775808.0, toInt64(-9223372036854775808), toInt64(x)), [{self.number(value_sql)}])[1]"
        )

    def divide(self, left: str, right: str) -> str:
        """``left / right`` as floats; NULL when ``right`` is 0 or NULL."""
        return f"(toFloat64OrZero(toString({left})) / nullIf({right}, 0))"

    def regex(self, text_sql: str) -> str:
        return f"match({text_sql}, ?)"

    def contains(self, text_sql: str) -> str:
        """SQLite's ``LIKE '%' || ? || '%'``: ASCII case-blind (``lower`` folds ASCII only, as SQLite's LIKE),
        ``%`` and ``_`` wildcards, and a backslash nothing special (ClickHouse's escape character, escaped)."""
        return f"lower(coalesce({text_sql}, '')) LIKE concat('%', {_LIKE_LITERAL_BACKSLASH.format('lower(?)')}, '%')"

    def find(self, text_sql: str) -> str:
        return f"position(lower({text_sql}), lower(?)) > 0"

    def like(self, text_sql: str, pattern_sql: str) -> str:
        return f"({text_sql} LIKE {_LIKE_LITERAL_BACKSLASH.format(pattern_sql)})"

    def ilike(self, text_sql: str, pattern_sql: str) -> str:
        return f"(lower({text_sql}) LIKE {_LIKE_LITERAL_BACKSLASH.format(f'lower({pattern_sql})')})"

    def concat(self, parts: Sequence[str]) -> str:
        return "concat(" + ", ".join(f"coalesce({self.to_text(part)}, '')" for part in parts) + ", '')"

    def scalar(self, name: str, args: Sequence[str]) -> str:
        """A HogQL scalar function with SQLite's semantics (``lower``/``upper`` fold ASCII only, ``length``
        counts the characters of the value's text, ``round`` goes half away from zero)."""
        if name in ("lower", "upper", "abs"):
            return f"{name}({args[0]})"
        if name == "length":
            return f"lengthUTF8({self.to_text(args[0])})"
        if name == "trim":
            return f"trimBoth({args[0]})"
        if name in ("coalesce", "ifnull"):
            return f"coalesce({', '.join(args)})"
        if name == "round":
            digits = args[1] if len(args) > 1 else "0"
            # the value and the digits are each named once (their parameters are bound once, in order); fewer
            # than 0 digits are 0, as SQLite takes them
            return (
                "arrayMap((x, d) -> sign(x) * floor(abs(x) * pow(10, d) + 0.5) / pow(10, d),"
                f" [toFloat64({args[0]})], [greatest(toInt64({digits}), 0)])[1]"
            )
        raise ValueError(f"{name} is not a HogQL scalar function")

    def text_array(self, parts: Sequence[str]) -> str:
        """JSON text of the parts as strings, compact, characters unescaped: as SQLite's ``json_array``."""
        joined = ", ".join(f"toString(coalesce({part}, ''))" for part in parts)
        text = f"toJSONString([{joined}])"
        # ClickHouse escapes '/', U+2028 and U+2029 where SQLite writes them as they are
        return _line_separators_unescaped(f"replaceAll({text}, '\\\\/', '/')")

    def number(self, value_sql: str) -> str:
        """``il_float``: the value's text without spaces read as a float; NULL unless a finite number."""
        bare = f"trimBoth(replaceAll(toString({value_sql}), ' ', ''), {_WHITESPACE})"
        for _ in range(2):  # Python's float() reads '1_000': underscores between digits (two passes: '1_0_0')
            bare = f"replaceRegexpAll({bare}, '([0-9])_([0-9])', '\\\\1\\\\2')"
        read = f"toFloat64OrNull({bare})"
        # the value is named once (its parameters are bound once): an empty filtered array reads as NULL
        return f"arrayFilter(x -> isFinite(ifNull(x, nan)), [{read}])[1]"

    def date(self, value_sql: str) -> str:
        """``il_date``: the text (stripped, ``Z`` read as ``+00:00``) read as Python's ``fromisoformat`` reads
        it, else its first ten characters so read, as UTC microseconds (no offset: UTC); NULL otherwise."""
        text = f"replaceAll(trimBoth(toString({value_sql}), {_WHITESPACE_AND_SPACE}), 'Z', '+00:00')"
        full, head = _iso_micros("t"), _iso_micros("substringUTF8(t, 1, 10)")
        # one lambda names the value once, so its parameters are bound once
        return f"arrayMap(t -> coalesce({full}, {head}), [{text}])[1]"

    def quantile(self, value_sql: str, level: float) -> str:
        """The linearly interpolated ``level`` quantile of the values read as numbers (NULLs skipped)."""
        level_sql = repr(float(level))
        body = (
            f"s -> if(length(s) = 0, NULL, s[toUInt64(floor({level_sql} * (length(s) - 1))) + 1]"
            f" + (s[least(toUInt64(floor({level_sql} * (length(s) - 1))) + 2, length(s))]"
            f" - s[toUInt64(floor({level_sql} * (length(s) - 1))) + 1])"
            f" * ({level_sql} * (length(s) - 1) - floor({level_sql} * (length(s) - 1))))"
        )
        return f"arrayMap({body}, [arraySort(groupArray({self.number(value_sql)}))])[1]"

    # Where an event row ``e`` reaches its person, groups, session and cohorts: columns the store joins in.

    def person_properties(self) -> str:
        """The current properties (JSON) of ``e.person_id``, NULL without a person."""
        return PERSON_PROPERTIES

    def person_column(self, column: str) -> str:
        """The person's materialized property column ``column``: the store computes it from the properties."""
        return f"e.{PERSON_COLUMN_PREFIX}{column}"

    def person_condition(self, project_id: int, test: Callable[[str, Callable[[str], str]], Sql]) -> Sql:
        """``test`` of the event's person: its properties and materialized columns are columns of ``e``
        already, so each row is tested on its own."""
        return test(self.person_properties(), self.person_column)

    def group_properties(self, index: int) -> str:
        """The properties (JSON) of the event's group of type ``index`` (0..4, checked by the caller)."""
        return group_properties_column(index)

    def session_seconds(self) -> str:
        """The whole duration of the event's session, rounded to whole seconds (first to last event)."""
        return SESSION_SECONDS

    def session_duration(self) -> str:
        """What :meth:`session_having`'s test is written over: the session's length in seconds (float)."""
        return "((max(s.timestamp) - min(s.timestamp)) / 1000000.0)"

    def session_having(self, test: str) -> str:
        """True when the event's session passes ``test``, a condition on the session's duration in seconds
        written over ``max(s.timestamp)`` and ``min(s.timestamp)``; NULL for an event without a session."""
        return (
            "if(e.session_id IS NULL, NULL, (e.project_id, e.session_id) IN (SELECT s.project_id, s.session_id"
            f" FROM {self.table('events')} s WHERE s.session_id IS NOT NULL GROUP BY s.project_id, s.session_id"
            f" HAVING {test}))"
        )

    def static_cohort_member(self) -> str:
        """True when ``e.person_id`` is a member of the static cohort whose id is the one bound parameter."""
        return f"has({COHORT_MEMBERS}, e.person_id)"

    def persons_as_events(self) -> str:
        """The project's persons (bound parameter: the project id) shaped as event rows: ``e.properties`` holds
        the person's properties and ``e.person_id`` is the person itself."""
        return (
            "(SELECT id, id AS person_id, uuid, properties, properties AS person_properties, created_at, project_id"
            f" FROM {self.table('persons')} FINAL WHERE project_id = ? AND (project_id, id) NOT IN"
            f" (SELECT project_id, old_person_id FROM {self.table('person_overrides')}))"
        )
