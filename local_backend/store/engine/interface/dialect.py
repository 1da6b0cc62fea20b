"""The SQL an engine writes for the filter compilers: :class:`Dialect`, handed to them by the event store."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

__all__ = [
    "Dialect",
    "PersonTest",
    "Sql",
    "HOGQL_SCALARS",
]

Sql = tuple[str, list[Any]]
"""SQL text a dialect writes and the parameters its ``?`` marks take, in order."""

PersonTest = Callable[[str, Callable[[str], str]], Sql]
"""A condition on a person, written by the caller given SQL of the person's properties (JSON) and a function
giving SQL of one of the person's materialized property columns (:meth:`Dialect.person_condition`)."""

HOGQL_SCALARS = ("lower", "upper", "length", "trim", "coalesce", "ifnull", "round", "abs")
"""The HogQL functions :meth:`Dialect.scalar` writes (lower-case names, as the HogQL compiler passes them)."""


class Dialect(Protocol):
    """What a dialect writes. Values are in PostHog's semantics: a property "text" is ``''`` when missing,
    ``'true'``/``'false'``/``'null'`` for those JSON values, numbers as written; a "condition" is 1/0/NULL
    (true/false/unknown), so callers wrap it in ``coalesce(..., 0)`` where NULL must be false. ``column`` is SQL
    yielding a JSON properties object (``e.properties``, :meth:`person_properties`, :meth:`group_properties`),
    without parameters (a reader may write it more than once);
    ``e`` is the event row (``project_id``, ``event``, ``person_id``, ``session_id``, ``group_0`` to
    ``group_4``, ``timestamp`` in UTC microseconds, ``elements_chain``)."""

    # -- properties of a JSON column
    def extract(self, column: str, key: str) -> Sql:
        """The JSON value of ``key`` as the engine's scalar (text or number; booleans 1/0); NULL for null or
        missing."""
        ...

    def json_type(self, column: str, key: str) -> Sql:
        """The JSON type name of ``key``: ``'null'``, ``'true'``, ``'false'``, ``'text'``, ``'integer'``,
        ``'real'``, ``'object'``, ``'array'``; NULL when missing (only null/true/false/NULL are compared)."""
        ...

    def text(self, column: str, key: str) -> Sql:
        """The property text (see above): never NULL."""
        ...

    def breakdown_value(self, column: str, key: str, hot: str | None = None) -> Sql:
        """The breakdown text: ``'true'``/``'false'`` for booleans, other values as text, NULL for missing, null
        or ``''``; ``hot`` is a column holding the value already (read alone when given)."""
        ...

    # -- value conversions and tests (arguments are SQL expressions)
    def to_text(self, value_sql: str) -> str:
        """``value_sql`` as text (numbers as written, integers without ``.0``); NULL stays NULL."""
        ...

    def number(self, value_sql: str) -> str:
        """``value_sql`` as a float when its text reads as a number (spaces ignored), else NULL."""
        ...

    def integer(self, value_sql: str) -> str:
        """:meth:`number` truncated toward zero to a 64-bit integer; NULL when not a number."""
        ...

    def date(self, value_sql: str) -> str:
        """``value_sql`` read as a date-time (ISO text, date alone as midnight, naive as UTC): UTC microseconds
        (integer), else NULL."""
        ...

    def divide(self, left: str, right: str) -> str:
        """``left / right`` as a float division; NULL when ``right`` is 0 or NULL."""
        ...

    def regex(self, text_sql: str) -> str:
        """Condition, binds one ``?`` (an RE2 pattern): 1 when the pattern occurs anywhere in ``text_sql``."""
        ...

    def contains(self, text_sql: str) -> str:
        """Condition, binds one ``?``: ``text_sql`` (NULL read as ``''``) contains it, ASCII case-blind, with
        ``%`` and ``_`` in it matching any text / any one character (PostHog's ``ilike '%value%'``)."""
        ...

    def find(self, text_sql: str) -> str:
        """Condition, binds one ``?``: ``text_sql`` contains it literally, case-blind (lower-cased both)."""
        ...

    def like(self, text_sql: str, pattern_sql: str) -> str:
        """Condition: HogQL ``like``, case-sensitive, ``%`` any text and ``_`` any one character, nothing else
        special (``pattern_sql`` is an expression, usually a bound ``?``)."""
        ...

    def ilike(self, text_sql: str, pattern_sql: str) -> str:
        """Condition: HogQL ``ilike``, :meth:`like` after lower-casing both sides."""
        ...

    def concat(self, parts: Sequence[str]) -> str:
        """HogQL ``concat``: the parts as text (NULL as ``''``) joined; never NULL."""
        ...

    def scalar(self, name: str, args: Sequence[str]) -> str:
        """A HogQL function of :data:`HOGQL_SCALARS` (arity checked by the caller), SQL semantics: ``length``
        counts characters, ``round(x[, digits])`` half away from zero, ``ifnull(a, b)``."""
        ...

    def text_array(self, parts: Sequence[str]) -> str:
        """JSON text of an array of the parts as strings (NULL as ``""``), compact (``["a",""]``), as
        :func:`json.dumps` with ``separators=(",", ":")`` and ``ensure_ascii=False`` writes it."""
        ...

    def quantile(self, value_sql: str, level: float) -> str:
        """Aggregate: the linearly interpolated ``level`` (0..1) quantile of :meth:`number` of the non-NULL
        values; NULL for none (``{v}`` may stand for the value, filled in later)."""
        ...

    # -- where an event row ``e`` reaches its person, groups, session and cohorts
    def person_properties(self) -> str:
        """The current properties (JSON) of ``e.person_id``."""
        ...

    def person_column(self, column: str) -> str:
        """The person's materialized property column ``column`` (:mod:`local_backend.store.materialized`),
        holding ``'true'``/``'false'`` for booleans and the extracted value otherwise, for ``e.person_id``."""
        ...

    def person_condition(self, project_id: int, test: PersonTest) -> Sql:
        """Condition: ``test`` of the person of ``e.person_id``, the same 1/0/NULL as ``test`` written over
        :meth:`person_properties` and :meth:`person_column` (an engine may evaluate it once per person of the
        project ``project_id`` instead of once per row)."""
        ...

    def group_properties(self, index: int) -> str:
        """The properties (JSON) of the event's group of type ``index`` (0..4, checked by the caller)."""
        ...

    def session_seconds(self) -> str:
        """The whole duration of the event's session in whole seconds (last minus first event, rounded half
        away from zero), integer."""
        ...

    def session_duration(self) -> str:
        """The aggregate :meth:`session_having`'s test is written over: a session's duration in seconds (float)
        from ``max``/``min`` of its events' ``s.timestamp``."""
        ...

    def session_having(self, test: str) -> str:
        """Condition: the event's session passes ``test`` (a condition over :meth:`session_duration`); NULL for
        an event without a session."""
        ...

    def static_cohort_member(self) -> str:
        """Condition, binds one ``?`` (the cohort id): ``e.person_id`` is in that static cohort."""
        ...

    def persons_as_events(self) -> str:
        """A row source, binds one ``?`` (the project id): the project's persons as event rows ``e`` with
        ``id``, ``person_id`` (the person), ``uuid``, ``properties``, ``is_identified``, ``created_at``."""
        ...
