"""A checked HogQL tree printed as ClickHouse SQL over this project's rows only.

HogQL is ClickHouse SQL, so most of the tree prints as it is. What changes: every ``events`` / ``persons``
reference (not a CTE of the query's own) becomes a subquery of this project's rows, times stored as UTC
microseconds become ``DateTime64(6, '<project zone>')``, persons are read at their last version and after
merges (``is_identified`` from the ids the store reads from SQLite, see :data:`IDENTIFIED`), ``now()`` is the
query's clock, and a property read is the dialect's JSON read. Values and keys are
bound parameters (``{name:Type}``); the zone, checked against the zone database, is a literal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from sqlglot import exp

from ...hot_properties import hot_column
from ..interface.sql_tree import NAMED, events_source_of, hogql_function_name, reads_persons, transform_up, trunc_unit
from .dialect import ClickHouseDialect
from .params import bind, clickhouse_type, string_literal
from .person_groups import PERSON_NAMES, group_persons_by_key

__all__ = ["IDENTIFIED", "print_clickhouse", "reads_identified"]

_MARK = "__hogql_fragment_{}__"


HOT_PREFIX = "__hogql_"
"""The events source names each hot column it passes on ``__hogql_<column>``, out of the way of the query's names."""


PERSON_KEY = "__hogql_person_key"
"""The events source's name for the event's person (after merges) as its Int64 id, NULL where its row is
missing: an event's ``person_id`` counted distinct is counted by it (:func:`_count_persons_by_key`)."""


def _overrides(dialect: ClickHouseDialect) -> str:
    return (
        f"(SELECT old_person_id, argMax(person_id, version) AS person_id FROM {dialect.table('person_overrides')}"
        " WHERE project_id = {hogql_project:Int64} GROUP BY old_person_id)"
    )


def _person_uuids(dialect: ClickHouseDialect) -> str:
    """This project's persons' uuids by id, the newest version of each."""
    return (
        f"SELECT id, argMax(uuid, version) AS uuid FROM {dialect.table('persons')}"
        " WHERE project_id = {hogql_project:Int64} GROUP BY id"
    )


def _events_source(
    dialect: ClickHouseDialect,
    tz: str,
    *,
    persons: bool,
    key: bool = False,
    merges: bool = False,
    hot: Iterable[str] = (),
    read: Callable[[str], bool] = lambda name: True,
) -> str:
    """This project's events, each column the query may ``read`` (by name); with ``persons``, beside each its
    person's uuid and properties after merges (NULL for an event whose person row is missing) and its
    :data:`PERSON_KEY`; with ``key`` alone, the key without the persons join (through the overrides only with
    ``merges``: without merges the person written with the event is its person now); with ``hot``, those stored
    hot columns."""
    zone = string_literal(tz)
    plain = {
        "uuid": "ev.uuid",
        "event": "ev.event",
        "timestamp": f"fromUnixTimestamp64Micro(ev.timestamp, {zone})",
        "distinct_id": "ev.distinct_id",
        "properties": "ev.properties",
        "elements_chain": "ev.elements_chain",
        "session_id": "ev.session_id",
        "created_at": f"fromUnixTimestamp64Micro(ev.created_at, {zone})",
    }
    # ClickHouse analyses every column of a subquery, read or not: about 1 ms a statement for the unread ones
    parts = [f"{value} AS {name}" for name, value in plain.items() if read(name)] or ["ev.event AS event"]
    parts += [f"ev.{column} AS {HOT_PREFIX}{column}" for column in sorted(hot)]
    columns = "SELECT " + ", ".join(parts)
    where = " WHERE ev.project_id = {hogql_project:Int64}"
    # an event whose person row is missing is kept, its person NULL (a left join gives '' there), as on SQLite
    # and as PostHog keeps events without their person
    overrides = f" LEFT JOIN {_overrides(dialect)} AS ov ON ov.old_person_id = ev.person_id"
    merged = "if(ov.old_person_id = ev.person_id, ov.person_id, ev.person_id)"
    if not persons:  # a query that reads no person pays for no join
        if key:  # a set of ids tested per event costs a fifth of a join at 1M events
            ids = f"SELECT id FROM {dialect.table('persons')} WHERE project_id = {{hogql_project:Int64}}"
            person = merged if merges else "ev.person_id"
            columns += f", if({person} IN ({ids}), {person}, NULL) AS {PERSON_KEY}"
            if merges:
                return f"{columns} FROM {dialect.table('events')} AS ev{overrides}{where}"
        return f"{columns} FROM {dialect.table('events')} AS ev{where}"
    persons_table = (
        f"(SELECT id, argMax(uuid, version) AS uuid, argMax(properties, version) AS properties"
        f" FROM {dialect.table('persons')} WHERE project_id = {{hogql_project:Int64}} GROUP BY id)"
    )
    return (
        f"{columns}, nullIf(p.uuid, '') AS person_id, nullIf(p.properties, '') AS person_properties,"
        f" if(p.uuid = '', NULL, p.id) AS {PERSON_KEY}"
        f" FROM {dialect.table('events')} AS ev{overrides}"
        f" LEFT JOIN {persons_table} AS p ON p.id = {merged}{where}"
    )


IDENTIFIED = "hogql_identified"
"""The parameter holding the ids of the project's identified persons (``Array(Int64)``), read from the
backend's SQLite persons table: the ClickHouse ``persons`` table keeps no such column."""


def _persons_source(dialect: ClickHouseDialect, tz: str, params: dict[str, Any]) -> str:
    # a query that never reads is_identified is not sent the ids (the column is then never read)
    identified = f"has({{{IDENTIFIED}:Array(Int64)}}, pr.id)" if IDENTIFIED in params else "false"
    return (
        f"SELECT argMax(uuid, version) AS id,"
        f" fromUnixTimestamp64Micro(argMax(created_at, version), {string_literal(tz)}) AS created_at,"
        f" argMax(properties, version) AS properties, {identified} AS is_identified"
        f" FROM {dialect.table('persons')} AS pr WHERE pr.project_id = {{hogql_project:Int64}} GROUP BY pr.id"
    )


def _groups_source(dialect: ClickHouseDialect, tz: str) -> str:
    return (
        "SELECT toInt64(g.group_type_index) AS `index`, g.group_key AS `key`,"
        f" fromUnixTimestamp64Micro(argMax(g.created_at, g.version), {string_literal(tz)}) AS created_at,"
        f" argMax(g.properties, g.version) AS properties FROM {dialect.table('groups')} AS g"
        " WHERE g.project_id = {hogql_project:Int64} GROUP BY g.group_type_index, g.group_key"
    )


def _call(name: str, *args: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=name, expressions=list(args))


def _array_call(name: str, args: list[exp.Expression]) -> exp.Expression | None:
    """The calls queries/sql/arrays.py made of array reads, in ClickHouse's own functions; None for others."""
    if name == "hogql_array_length":
        return _call("length", args[0])
    if name == "hogql_array_empty":
        return _call("empty", args[0])
    if name == "hogql_array_not_empty":
        return _call("notEmpty", args[0])
    if name == "hogql_array_element":  # the default out of range is the one the query's types give
        array, index, default = args
        inside = exp.and_(
            exp.NEQ(this=index.copy(), expression=exp.Literal.number(0)),
            exp.LTE(this=_call("abs", index.copy()), expression=_call("length", array.copy())),
        )
        return exp.If(this=inside, true=_call("arrayElement", array, index), false=default)
    if name == "hogql_split_by_char":  # NULL text splits into no parts, as on SQLite
        separator, text = args
        parts = _call("splitByChar", separator, _call("assumeNotNull", text.copy()))
        return exp.If(this=_call("isNull", text), true=exp.Array(expressions=[]), false=parts)
    return None


class _Printer:
    def __init__(
        self, dialect: ClickHouseDialect, tz: str, params: dict[str, Any], ctes: set[str], stored: frozenset[str]
    ) -> None:
        self.dialect = dialect
        self.tz = tz
        self.params = params
        self.ctes = ctes
        self.stored = stored
        self.hot: set[str] = set()  # the stored hot columns the query reads, passed on by the events source
        self.fragments: dict[str, str] = {}

    def _hot_read(self, column: exp.Expression, key: str) -> exp.Expression | None:
        """An event's hot property read from its stored column, which holds what the JSON read gives
        (:meth:`.ClickHouseDialect.hot_value` is :meth:`~.ClickHouseDialect.property_text`); None where the
        column is not the events table's own ``properties`` or the key has no stored column."""
        hot = hot_column(key)
        if hot is None or hot not in self.stored or not isinstance(column, exp.Column) or column.name != "properties":
            return None
        if not events_source_of(column, self.ctes):
            return None
        self.hot.add(hot)
        return exp.column(HOT_PREFIX + hot, table=column.table or None)

    def _zone(self) -> exp.Expression:
        return exp.Literal.string(self.tz)

    def _now(self) -> exp.Expression:
        clock = exp.Placeholder(this=exp.var("hogql_now"), kind=exp.DataType.build("Int64"))
        return exp.Anonymous(this="fromUnixTimestamp64Micro", expressions=[clock, self._zone()])

    def _fragment(self, sql: str, params: list[Any]) -> exp.Expression:
        index = len(self.fragments)
        text, named = bind(sql, params)
        for name, value in named.items():
            renamed = f"hogql_f{index}_{name}"
            text = text.replace("{" + name + ":", "{" + renamed + ":")
            self.params[renamed] = value
        mark = _MARK.format(index)
        self.fragments[mark] = text
        return exp.Anonymous(this=mark, expressions=[])

    def __call__(self, node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Placeholder) and node.name.startswith("v_"):
            value = self.params.get(node.name)
            if value is None:
                return exp.Null()
            return exp.Placeholder(this=exp.var(node.name), kind=exp.DataType.build(clickhouse_type(value)))
        if not isinstance(node, exp.Func) or isinstance(node, exp.Binary | exp.Unary):
            return node
        name = hogql_function_name(node).lower()
        args = list(node.expressions) if isinstance(node, NAMED) else []
        if name == "hogql_property":
            stored = self._hot_read(args[0], str(args[1].this))
            if stored is not None:
                return stored
            column = args[0].sql(dialect="clickhouse")
            sql, params = self.dialect.property_text(column, str(args[1].this))
            return self._fragment(sql, params)
        if name == "now":
            return self._now()
        if name == "today":
            return exp.Anonymous(this="toDate", expressions=[self._now(), self._zone()])
        # a second argument is the zone of a toTimeZone value (queries/sql/zones.py), checked against the zone
        # database; the value carries that zone itself, so the calls reading it in its zone keep one argument
        if name == "todatetime":
            zone = args[1] if len(args) == 2 else self._zone()
            return exp.Anonymous(this="parseDateTime64BestEffort", expressions=[args[0], exp.Literal.number(6), zone])
        if name in ("tostartofweek", "tostartofmonth") and len(args) == 2:
            return exp.Anonymous(this=node.name, expressions=[args[0]])
        array = _array_call(name, args)
        if array is not None:
            return array
        if name == "todate" and len(args) == 1:
            return exp.Anonymous(this="toDate", expressions=[args[0], self._zone()])
        if name in ("tostartofhour", "tostartofday") and len(args) == 1:
            return exp.Anonymous(this=node.name, expressions=[args[0], self._zone()])
        if name in ("tostartofweek", "tostartofmonth") and len(args) == 1:
            return exp.Anonymous(this=node.name, expressions=[args[0]])
        if name == "datediff":
            parts = [exp.Literal.string(trunc_unit(node)), node.expression, node.this, self._zone()]
            return exp.Anonymous(this="dateDiff", expressions=parts)
        if isinstance(node, exp.TimestampTrunc | exp.DateTrunc):
            zone = node.args.get("zone") or self._zone()
            return exp.Anonymous(this="dateTrunc", expressions=[exp.Literal.string(trunc_unit(node)), node.this, zone])
        if name in ("toint", "tofloat"):
            target = "toInt64OrNull" if name == "toint" else "toFloat64OrNull"
            return exp.Anonymous(this=target, expressions=[exp.Anonymous(this="toString", expressions=args)])
        if name in ("uniq", "uniqexact"):
            value = args[0] if isinstance(node, NAMED) else node.this
            return exp.Anonymous(this="uniqExact", expressions=[value])
        if name in ("median", "quantile"):
            level = node.args.get("quantile") if name == "quantile" else exp.Literal.number(0.5)
            return exp.ParameterizedAgg(this="quantileExactInclusive", expressions=[level], params=[node.this])
        return node


def _count_persons_by_key(tree: exp.Expression, ctes: set[str]) -> bool:
    """An events' ``person_id`` counted distinct (``uniq``, ``uniqExact``, ``count(DISTINCT ...)``) counted by
    :data:`PERSON_KEY` instead, in place: ids tell persons apart as their uuids do (one uuid a person, NULL alike
    for a missing row) and cost no join to read. Whether any was."""
    keyed = False
    for column in list(tree.find_all(exp.Column)):
        if column.name != "person_id" or not events_source_of(column, ctes):
            continue
        parent = column.parent
        distinct = isinstance(parent, exp.Distinct) and isinstance(parent.parent, exp.Count)
        distinct = distinct and len(parent.expressions) == 1
        uniq = isinstance(parent, exp.ApproxDistinct) or (
            isinstance(parent, NAMED) and parent.name.lower() in ("uniq", "uniqexact") and len(parent.expressions) == 1
        )
        if distinct or uniq:
            column.replace(exp.column(PERSON_KEY, table=column.table or None))
            keyed = True
    return keyed


def _column_names(tree: exp.Expression) -> set[str] | None:
    """The names of the columns ``tree`` reads (any table's, a superset of the events source's), None where a star
    may read every column."""
    names: set[str] = set()
    for node in tree.walk():
        if isinstance(node, exp.Column):
            names.add(node.name)
        elif isinstance(node, exp.Star) and not isinstance(node.parent, exp.Count):
            return None
    return names


def reads_identified(tree: exp.Query) -> bool:
    """Whether ``tree`` (stars written out) reads the persons' ``is_identified``."""
    return any(column.name == "is_identified" for column in tree.find_all(exp.Column))


def print_clickhouse(
    tree: exp.Query,
    ctes: set[str],
    dialect: ClickHouseDialect,
    tz: str,
    params: dict[str, Any],
    stored: frozenset[str] = frozenset(),
    merges: Callable[[], bool] = lambda: True,
) -> str:
    """``tree`` as ClickHouse SQL; fills ``params`` with the keys it binds besides the node's values.
    ``stored``: the hot columns the events table stores (:func:`.stored_columns.stored_columns`); ``merges``:
    whether the project has merged persons (asked only of a query that counts or groups persons by their key and
    reads them no other way)."""
    counted = _count_persons_by_key(tree, ctes)
    tree, grouped = group_persons_by_key(tree, ctes, PERSON_KEY)
    key = counted or grouped
    persons = reads_persons(tree)
    read = _column_names(tree)  # before printing: a property read printed is a fragment of text
    printer = _Printer(dialect, tz, params, ctes, stored)
    printed = transform_up(tree, printer)
    sources = {
        "events": _events_source(
            dialect,
            tz,
            persons=persons,
            key=key,
            merges=key and not persons and merges(),
            hot=printer.hot,
            read=lambda name: read is None or name in read,
        ),
        "persons": _persons_source(dialect, tz, params),
        "groups": _groups_source(dialect, tz),
        PERSON_NAMES: _person_uuids(dialect),
    }
    for table in list(printed.find_all(exp.Table)):
        if table.name.lower() in ctes:
            continue
        mark = _MARK.format(f"t{len(printer.fragments)}")
        printer.fragments[mark] = f"({sources[table.name.lower()]})"
        table.replace(
            exp.Table(
                this=exp.to_identifier(mark), alias=exp.TableAlias(this=exp.to_identifier(table.alias or table.name))
            )
        )
    text = printed.sql(dialect="clickhouse", copy=False)
    for mark, fragment in printer.fragments.items():
        text = text.replace(f"{mark}()", fragment).replace(mark, fragment)
    return text
