"""The rows ``e`` that fragments are written over, built from ClickHouse's tables for one project.

SQLite's ``events e`` already holds what a fragment reads. In ClickHouse some of it is applied at query time,
as PostHog does:

* ``e.person_id`` is the person *now*: the id written at ingestion mapped through ``person_overrides`` (the
  newest override of each merged-away person), joined only into statements that read the person.
* the hot property columns (``e.v_browser``, ...) and materialized ones (``e.mat_...``) hold what SQLite's
  columns hold (:meth:`.dialect.ClickHouseDialect.hot_value`): read from the table where it stores them
  (:mod:`.stored_columns`), computed from the properties otherwise.
* ``e.personless`` (1 for an event sent with ``$process_person_profile: false``): the stored column, or computed
  from the properties in a table made before it.
* ``e.person_properties``, ``e.group_<i>_properties`` (the newest version of each person and group) and
  ``e.session_seconds`` are joined in once per statement, and only when the statement reads them;
  ``e.session_duration`` (unrounded seconds, NULL for events without a non-empty session) likewise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...hot_properties import HOT_PROPERTIES
from .dialect import PERSON_COLUMN_PREFIX, ClickHouseDialect, joined_columns
from .stored_columns import PERSONLESS_COLUMN, personless_expression

__all__ = ["event_rows", "person_rows", "materialized_names", "reads_person", "SESSION_DURATION"]

SESSION_DURATION = "e.session_duration"

_EVENT_COLUMN = re.compile(r"\be\.(mat_[A-Za-z0-9_]+)")
_PERSON_COLUMN = re.compile(r"\be\." + PERSON_COLUMN_PREFIX + r"(pmat_[A-Za-z0-9_]+)")
_PLAIN = ("project_id", "uuid", "event", "distinct_id", "timestamp", "created_at", "properties", "elements_chain")
_GROUPS = tuple(f"group_{index}" for index in range(5))


def _overrides(dialect: ClickHouseDialect) -> str:
    return (
        f"(SELECT old_person_id, toNullable(argMax(person_id, version)) AS person_id FROM"
        f" {dialect.table('person_overrides')} WHERE project_id = ? GROUP BY old_person_id)"
    )


def materialized_names(statement: str) -> tuple[set[str], set[str]]:
    """The materialized event columns (``e.mat_...``) and person columns (``e.person_pmat_...``) ``statement``
    reads, by column name."""
    return set(_EVENT_COLUMN.findall(statement)), set(_PERSON_COLUMN.findall(statement))


def reads_person(statement: str) -> bool:
    """Whether ``statement`` reads the person (``e.person_id`` or the person's properties), so that the rows
    under it must map the person through ``person_overrides``."""
    return "person_id" in statement or "person_properties" in statement or bool(_PERSON_COLUMN.search(statement))


def event_rows(
    dialect: ClickHouseDialect,
    project_id: int,
    statement: str,
    materialized: Mapping[str, str] | None = None,
    stored: frozenset[str] = frozenset(),
    *,
    merges: bool = True,
) -> tuple[str, list[Any]]:
    """A derived table (to alias ``e``) of the project's events with every column ``statement`` reads.

    ``materialized`` gives the property key of each materialized column (``mat_...``, ``pmat_...``) the
    statement reads: ClickHouse computes the value SQLite's column holds (:meth:`~.ClickHouseDialect.hot_value`),
    unless the column is one of ``stored``, the events table's own (:func:`.stored_columns.stored_columns`).
    ``merges`` false says the project has no override rows: the person written at ingestion is the person now,
    and the join through ``person_overrides`` is left out.
    """
    materialized = materialized or {}
    event_columns, person_columns = materialized_names(statement)
    joined = joined_columns(statement) | ({"session_duration"} if SESSION_DURATION in statement else set())
    if person_columns:
        joined.add("person_properties")
    # the person after merges costs a join: only a statement that reads the person, in a project with merges,
    # pays for it
    merged = merges and ("person_id" in statement or "person_properties" in joined)
    columns = [f"ev.{name} AS {name}" for name in (*_PLAIN, *_GROUPS, "session_id", "day")]
    columns.insert(4, "coalesce(ov.person_id, ev.person_id) AS person_id" if merged else "ev.person_id AS person_id")
    params: list[Any] = []
    hot = {name: key for key, name in HOT_PROPERTIES.items() if f"e.{name}" in statement}
    for name, key in sorted({**hot, **{name: materialized[name] for name in event_columns}}.items()):
        if name in stored:
            columns.append(f"ev.{name} AS {name}")
            continue
        sql, key_params = dialect.hot_value("ev.properties", key)
        columns.append(f"{sql} AS {name}")
        params += key_params
    if f"e.{PERSONLESS_COLUMN}" in statement:
        value = f"ev.{PERSONLESS_COLUMN}" if PERSONLESS_COLUMN in stored else personless_expression("ev.properties")
        columns.append(f"{value} AS {PERSONLESS_COLUMN}")
    overrides = f" LEFT JOIN {_overrides(dialect)} AS ov ON ov.old_person_id = ev.person_id" if merged else ""
    sql = f"SELECT {', '.join(columns)} FROM {dialect.table('events')} AS ev{overrides} WHERE ev.project_id = ?"
    params += [project_id, project_id] if merged else [project_id]
    for name in sorted(joined):
        table, on, table_params = _joined(dialect, name, project_id)
        sql = f"SELECT b.*, j.value AS {name} FROM ({sql}) AS b LEFT JOIN {table} AS j ON {on}"
        params += table_params
    if person_columns:
        values: list[str] = []
        value_params: list[Any] = []
        for name in sorted(person_columns):
            value, key_params = dialect.hot_value("b.person_properties", materialized[name])
            values.append(f"{value} AS {PERSON_COLUMN_PREFIX}{name}")
            value_params += key_params
        # the values' parameters come first: they stand before the inner table in the text
        sql, params = f"SELECT b.*, {', '.join(values)} FROM ({sql}) AS b", [*value_params, *params]
    return f"({sql})", params


def _joined(dialect: ClickHouseDialect, name: str, project_id: int) -> tuple[str, str, list[Any]]:
    """The table joined in for column ``name``, its join condition, and its parameters."""
    if name == "person_properties":
        table = (
            f"(SELECT id, toNullable(argMax(properties, version)) AS value FROM {dialect.table('persons')}"
            " WHERE project_id = ? GROUP BY id)"
        )
        return table, "j.id = b.person_id", [project_id]
    if name.startswith("group_"):
        index = int(name.split("_")[1])
        table = (
            f"(SELECT group_key, toNullable(argMax(properties, version)) AS value FROM {dialect.table('groups')}"
            f" WHERE project_id = ? AND group_type_index = {index} GROUP BY group_key)"
        )
        return table, f"j.group_key = b.group_{index}", [project_id]
    if name == "session_seconds":
        value = "intDiv(max(timestamp) - min(timestamp) + 500000, 1000000)"  # round half up, as SQLite's round()
        condition = "session_id IS NOT NULL"
    else:
        value = "(max(timestamp) - min(timestamp)) / 1000000.0"
        condition = "session_id IS NOT NULL AND session_id != ''"
    table = (
        f"(SELECT session_id, toNullable({value}) AS value FROM {dialect.table('events')}"
        f" WHERE project_id = ? AND {condition} GROUP BY session_id)"
    )
    return table, "j.session_id = b.session_id", [project_id]


def person_rows(dialect: ClickHouseDialect, project_id: int) -> tuple[str, list[Any]]:
    """A derived table (to alias ``e``) of the project's persons as cohort conditions read them: ``e.person_id``
    is the person and ``e.person_properties`` its properties (persons merged into another are left out)."""
    return dialect.persons_as_events(), [project_id]
