"""Property filters compiled to SQL over ``events e``, with PostHog's semantics (reference section 3).

A value is compared as the text PostHog compares (:meth:`Dialect.text`): ``''`` when the key
is missing, ``true``/``false``/``null``, numbers as written. So ``exact`` with ``["true"]`` matches a boolean,
``is_not`` and ``not_icontains`` pass events without the property, ``gt``/``gte``/``lt``/``lte`` compare
numerically and fail on anything that does not read as a number, ``is_set`` is true for a present key even
when null, and ``is_not_set`` for a missing or null one.

Where the value comes from, by ``type``:

=========  ==========================================================================================
event      the event's ``properties``
person     the current ``persons.properties`` of ``e.person_id``
group      ``groups.properties`` of the event's ``group_N`` key (``group_type_index`` N)
cohort     a static cohort's ``cohort_people``; a dynamic cohort's stored person-property filters
session    ``$session_duration``: seconds from the first to the last event of the event's session
element    the autocapture ``elements_chain``: ``tag_name``, ``text``, ``href``, ``selector``
hogql      a boolean expression of the subset in :mod:`local_backend.models.hogql`
=========  ==========================================================================================

The SQL is written in the dialect the compiler is given (:attr:`PropertyCompiler.dialect`): the one of the
event store the filter will run on.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..errors import ValidationError
from ..models.hogql import compile_condition
from ..models.property_filters import Property, PropertyGroup, parse_properties, parse_property_date
from ..store.actions import action_id_of, live_actions
from ..store.cohorts import get_cohort
from ..store.engine.interface import Dialect
from ..store.event_rows import to_micros
from ..store.hot_properties import hot_column
from ..store.materialized import MaterializedColumns
from ..store.property_usage import record_use
from .elements import element_condition

__all__ = ["PropertyCompiler", "Sql", "EVENT_PROPERTIES", "group_properties_column", "compare_json", "compare_value"]

Sql = tuple[str, list[Any]]
EVENT_PROPERTIES = "e.properties"
MAX_COHORT_DEPTH = 5
_NUMBER_LIKE = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")


def group_properties_column(dialect: Dialect, index: int) -> str:
    """The properties of the event's group of type ``index`` in ``dialect``; an index outside 0..4 is a 400."""
    if not 0 <= index <= 4:
        raise ValidationError("group_type_index must be 0 to 4.", attr="group_type_index")
    return dialect.group_properties(index)


def _as_texts(value: Any) -> list[str]:
    values = value if isinstance(value, list) else [value]
    texts = []
    for item in values:
        if isinstance(item, bool):
            texts.append("true" if item else "false")
        elif item is None:
            texts.append("null")
        elif isinstance(item, float) and item.is_integer():
            texts.append(str(int(item)))
        else:
            texts.append(str(item))
    return texts


@dataclass
class PropertyCompiler:
    """Compiles property groups for one project, in ``dialect`` (the event store's that will run the SQL);
    cohorts and actions are read through ``conn``."""

    conn: sqlite3.Connection
    project_id: int
    dialect: Dialect
    # where ``e`` rows find their person's properties: by default the dialect's person_properties()
    person_column: str | None = None
    # whether ``e`` rows are events with the hot property columns (``e.v_browser``, ...); rows of another source
    # (persons shaped as events) read every property from ``e.properties``
    hot_columns: bool = True
    # the project's materialized property columns (:mod:`local_backend.store.materialized`), read where the hot
    # columns are
    materialized: MaterializedColumns = field(default_factory=MaterializedColumns)
    # whether compiling a filter or breakdown counts as a use of its property (for the automatic choice)
    record_uses: bool = False
    _used: set[tuple[str, str]] = field(default_factory=set, repr=False, compare=False)
    # the project's live actions this compiler has read, by id: a filter naming one in several steps reads it once
    _actions: dict[int, dict[str, Any] | None] = field(default_factory=dict, repr=False, compare=False)
    # whether ``person_column`` is the dialect's own (materialized person columns apply only then)
    _own_persons: bool = field(default=True, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._own_persons = self.person_column is None
        if self.person_column is None:
            self.person_column = self.dialect.person_properties()

    def action(self, action_id: Any) -> dict[str, Any] | None:
        """The project's live action ``action_id``, or None; read once per compiler."""
        number = action_id_of(action_id)
        if number is None:
            return None
        if number not in self._actions:
            self._actions[number] = live_actions(self.conn, self.project_id, [number]).get(number)
        return self._actions[number]

    def note_use(self, kind: str, key: str) -> None:
        """Count a filter or breakdown on property ``key`` (once per compiler, when ``record_uses``)."""
        if self.record_uses and (kind, key) not in self._used:
            self._used.add((kind, key))
            record_use(self.conn, self.project_id, kind, key, datetime.now(UTC).date())

    def event_column(self, key: str) -> str | None:
        """The column over ``e`` holding event property ``key`` as a hot column does, or None."""
        if not self.hot_columns:
            return None
        hot = hot_column(key)
        if hot is not None:
            return f"e.{hot}"
        column = self.materialized.event.get(key)
        return f"e.{column}" if column else None

    def person_value_column(self, key: str) -> str | None:
        """The persons column holding person property ``key`` as read for ``e.person_id``, or None."""
        column = self.materialized.person.get(key) if self._own_persons else None
        return self.dialect.person_column(column) if column else None

    def compile(self, group: PropertyGroup | Any, attr: str = "properties") -> Sql:
        """``(sql, params)`` for a group (or any raw shape :func:`parse_properties` reads); empty -> ``1``."""
        if not isinstance(group, PropertyGroup):
            group = parse_properties(group, attr)
        return self._group(group, 0)

    def compile_condition(self, prop: Property) -> Sql:
        """``(sql, params)`` for one validated condition."""
        return self._condition(prop, 0)

    def _group(self, group: PropertyGroup, depth: int) -> Sql:
        parts = [
            self._group(value, depth) if isinstance(value, PropertyGroup) else self._condition(value, depth)
            for value in group.values
        ]
        parts = [part for part in parts if part[0] != "1"]
        if not parts:
            return "1", []
        joiner = " OR " if group.type == "OR" else " AND "
        return "(" + joiner.join(sql for sql, _ in parts) + ")", [p for _, params in parts for p in params]

    def _condition(self, prop: Property, depth: int) -> Sql:
        if prop.type == "cohort":
            return self._cohort(prop, depth)
        if prop.type == "element":
            return element_condition(prop, self.dialect)
        if prop.type == "hogql":
            return compile_condition(prop.key, attr="properties", dialect=self.dialect)
        if prop.type == "session":
            return self._session(prop)
        if prop.type == "person":
            self.note_use("person", prop.key)
            return self._person(prop)
        if prop.type == "group":
            return compare_json(self.dialect, group_properties_column(self.dialect, prop.group_type_index or 0), prop)
        self.note_use("event", prop.key)
        return compare_json(self.dialect, EVENT_PROPERTIES, prop, value_column=self.event_column(prop.key))

    def _person(self, prop: Property) -> Sql:
        """A person-property condition: through the dialect's :meth:`~Dialect.person_condition` for the
        event's own person (which may test each person once), else over :attr:`person_column` row by row."""
        assert self.person_column is not None  # set in __post_init__
        if not self._own_persons:
            return compare_json(self.dialect, self.person_column, prop)
        column = self.materialized.person.get(prop.key)

        def test(properties: str, column_of: Callable[[str], str]) -> Sql:
            value_column = column_of(column) if column else None
            return compare_json(self.dialect, properties, prop, value_column=value_column)

        return self.dialect.person_condition(self.project_id, test)

    def _session(self, prop: Property) -> Sql:
        inner = Property(key="d", value=prop.value, operator=prop.operator, type="event")
        duration = self.dialect.session_duration()
        if prop.operator in ("is_set", "is_not_set"):
            test = "1"
            params: list[Any] = []
        else:
            test, params = compare_value(self.dialect, duration, inner)
        sql = self.dialect.session_having(test)
        if prop.operator == "is_not_set":
            return "coalesce(e.session_id, '') = ''", []
        if prop.operator == "is_set":
            return "coalesce(e.session_id, '') != ''", []
        return f"coalesce({sql}, 0)", params

    def _cohort(self, prop: Property, depth: int) -> Sql:
        cohort = get_cohort(self.conn, self.project_id, prop.value)
        if cohort is None or cohort["deleted"]:
            raise ValidationError(f"Cohort {prop.value} does not exist.", attr="properties", code="does_not_exist")
        if cohort["is_static"]:
            sql: str = self.dialect.static_cohort_member()
            params: list[Any] = [cohort["id"]]
        else:
            if depth >= MAX_COHORT_DEPTH:
                raise ValidationError("Cohorts nest too deeply.", attr="properties")
            filters = cohort["filters"]
            raw = filters.get("properties") if isinstance(filters, dict) else None
            group = parse_properties(raw, "properties")
            _only_person_conditions(group, int(cohort["id"]))
            sql, params = self._group(group, depth + 1)
        return (f"NOT ({sql})" if prop.operator == "not_in" else sql), params


def _only_person_conditions(group: PropertyGroup, cohort_id: int) -> None:
    for value in group.values:
        if isinstance(value, PropertyGroup):
            _only_person_conditions(value, cohort_id)
        elif value.type not in ("person", "cohort"):
            raise ValidationError(
                f"Cohort {cohort_id} uses '{value.type}' conditions; this backend evaluates person-property"
                " and nested cohort conditions only.",
                attr="properties",
                code="unsupported",
            )


def compare_json(dialect: Dialect, column: str, prop: Property, *, value_column: str | None = None) -> Sql:
    """A condition, in ``dialect``, on one key of a JSON properties column.

    ``value_column`` is SQL reading the key as a hot or materialized column does (``'true'``/``'false'`` for
    booleans, else the extracted value); it is used only where it gives the JSON's answer.
    """
    operator = prop.operator
    if operator == "is_set":
        kind, params = dialect.json_type(column, prop.key)
        return f"{kind} IS NOT NULL", params
    if operator == "is_not_set":
        kind, params = dialect.json_type(column, prop.key)
        return f"coalesce({kind}, 'null') = 'null'", params
    if operator in ("exact", "is_not"):
        texts = _as_texts(prop.value)
        plain = all(text not in ("", "true", "false", "null") and not _NUMBER_LIKE.match(text) for text in texts)
        # strings that cannot be a number, boolean or null compare equal to the extracted value itself: one
        # JSON read per row instead of two
        if plain and value_column and not any("\x00" in text for text in texts):
            # the column differs from the extracted value only for booleans ('true'/'false' against 1/0),
            # which no such string equals, and for text holding NUL, which SQLite's JSON functions end at
            # (:mod:`local_backend.json_values`); its index can serve the filter
            value_sql, params = value_column, []
        else:
            value_sql, params = dialect.extract(column, prop.key) if plain else dialect.text(column, prop.key)
        marks = ",".join("?" for _ in texts) or "NULL"
        clause = f"{value_sql} IN ({marks})"
        if operator == "exact":
            return clause, [*params, *texts]
        return f"coalesce({clause}, 0) = 0", [*params, *texts]
    value_sql, params = dialect.text(column, prop.key)
    test, test_params = compare_value(dialect, value_sql, prop)
    return test, [*params, *test_params]


def compare_value(dialect: Dialect, value_sql: str, prop: Property) -> Sql:
    """A condition, in ``dialect``, on a value expression, for the operators that do not look at the JSON type."""
    operator = prop.operator
    if operator in ("exact", "is_not"):
        texts = _as_texts(prop.value)
        marks = ",".join("?" for _ in texts) or "NULL"
        clause = f"{dialect.to_text(value_sql)} IN ({marks})"
        return (clause if operator == "exact" else f"coalesce({clause}, 0) = 0"), texts
    if operator in ("icontains", "not_icontains"):
        clause = dialect.contains(value_sql)
        return (clause if operator == "icontains" else f"NOT ({clause})"), [str(prop.value)]
    if operator in ("regex", "not_regex"):
        clause = dialect.regex(f"coalesce({value_sql}, '')")
        return (clause if operator == "regex" else f"NOT {clause}"), [str(prop.value)]
    if operator in ("gt", "gte", "lt", "lte"):
        symbol = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}[operator]
        return f"coalesce({dialect.number(value_sql)} {symbol} ?, 0)", [prop.value]
    if operator in ("is_date_exact", "is_date_before", "is_date_after"):
        return _date_condition(dialect, value_sql, prop)
    raise ValidationError(f"Operator '{operator}' does not apply here.", attr="properties")


def _date_condition(dialect: Dialect, value_sql: str, prop: Property) -> Sql:
    from datetime import UTC, timedelta

    parsed = parse_property_date(prop.value)
    assert parsed is not None  # checked when the filter was read
    moment, bare = parsed
    start = to_micros(moment.replace(tzinfo=UTC))
    date_sql = dialect.date(value_sql)
    if prop.operator == "is_date_before":
        return f"coalesce({date_sql} < ?, 0)", [start]
    if prop.operator == "is_date_after":
        end = start + (to_micros((moment + timedelta(days=1)).replace(tzinfo=UTC)) - start - 1 if bare else 0)
        return f"coalesce({date_sql} > ?, 0)", [end]
    width = 86_400_000_000 if bare else 1_000_000
    return f"coalesce(({date_sql} - ?) BETWEEN 0 AND ?, 0)", [start, width - 1]
