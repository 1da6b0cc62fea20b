"""A SELECT grouped by the event's ``person_id`` grouped by the person's integer key, the uuid named afterwards.

Joining every event to its person row to read a uuid that is then only a group key costs most of such a query
(the joins of 1M events to 140k persons). The events source passes on each event's person as its Int64 id
after merges, NULL where the person row is missing (:data:`.hogql_print.PERSON_KEY`); a SELECT that reads
``person_id`` only as a group key is grouped by that key, and the uuid of each group is joined in after the
grouping, once per group rather than once per event::

    SELECT person_id AS p, count() AS c FROM events GROUP BY p ORDER BY c DESC LIMIT 10
    -> SELECT nullIf(names.uuid, '') AS p, grouped.c AS c
       FROM (SELECT key AS person_0, count() AS c FROM events GROUP BY key ORDER BY c DESC LIMIT 10) AS grouped
       LEFT JOIN <this project's persons' uuids> AS names ON names.id = grouped.person_0
       ORDER BY grouped.c DESC

The groups are the same: one key a person after merges as one uuid is, and one NULL group of all the events
whose person row is missing (their key NULL, their uuid NULL). Where nothing reads the uuids (the SELECT is a
subquery whose person column the query around it never names) they are not joined at all.

A SELECT that reads ``person_id`` any other way (in ``WHERE``, ``HAVING``, ``ORDER BY``, inside an expression),
reads ``person.properties``, joins another table, or is ``DISTINCT`` or ``LIMIT ... BY`` is left as it is.
"""

from __future__ import annotations

from sqlglot import exp

from ..interface.sql_tree import PERSON_READS, events_source_of

__all__ = ["PERSON_NAMES", "group_persons_by_key"]

PERSON_NAMES = "__hogql_person_names"
"""The table name standing for this project's persons' uuids by id in the rewritten tree (the printer puts the
project's rows there, as for ``events``); no query can name it (the allowlist knows no such table)."""

_GROUPED = "__hogql_grouped"
_NAMES = "__hogql_names"
_PERSON = "__hogql_group_person_{}"
_ITEM = "__hogql_c{}"
_ORDER = "__hogql_o{}"


def group_persons_by_key(tree: exp.Expression, ctes: set[str], key: str) -> tuple[exp.Expression, bool]:
    """``tree`` with each SELECT that reads ``person_id`` only as a group key grouped by the column ``key``
    (the events source's person key) and its uuid named after the grouping; whether any was. Inner SELECTs are
    rewritten before those around them."""
    keyed = False
    for select in reversed(list(tree.find_all(exp.Select))):
        named = _named_after_grouping(select, ctes, key, root=select is tree)
        if named is None:
            continue
        keyed = True
        if select is tree:
            tree = named
    return tree, keyed


def _own(select: exp.Select, node: exp.Expression) -> bool:
    return node.find_ancestor(exp.Select) is select


def _person_items(select: exp.Select, ctes: set[str]) -> list[int] | None:
    """The positions of the projection's bare ``person_id`` reads when ``select`` reads the person only as its
    group key, else None."""
    group = select.args.get("group")
    if group is None or any(value for name, value in group.args.items() if name != "expressions"):
        return None  # ROLLUP, CUBE, WITH TOTALS group otherwise
    if select.args.get("joins") or select.args.get("distinct") or select.args.get("limit_by"):
        return None
    source = select.args.get("from_")
    if source is None or not isinstance(source.this, exp.Table) or source.this.name.lower() != "events":
        return None
    if "events" in ctes:
        return None
    items = [index for index, item in enumerate(select.expressions) if _is_person(item.unalias(), ctes)]
    names = {select.expressions[index].alias for index in items} - {""}
    grouped = False
    for node in select.walk():
        if not _own(select, node) and node is not select:
            continue
        if isinstance(node, exp.Star) and not isinstance(node.parent, exp.Count):
            return None
        if not isinstance(node, exp.Column):
            continue
        if node.name in PERSON_READS and events_source_of(node, ctes):
            if node.parent is group and node.name == "person_id":
                grouped = True
            elif not any(select.expressions[index].unalias() is node for index in items):
                return None
        elif node.name in names and not node.table and node.parent is group:
            grouped = True  # GROUP BY the person item's alias
        elif node.name in names and not node.table:
            return None  # ORDER BY or HAVING the person item's alias: its uuid, known only after the join
    for ordered in (select.args.get("order") or exp.Order()).expressions:
        if _position(ordered.this, len(select.expressions)) in items:
            return None
    grouped = grouped or any(_position(value, len(select.expressions)) in items for value in group.expressions)
    return items if grouped and items else None


def _is_person(node: exp.Expression, ctes: set[str]) -> bool:
    return isinstance(node, exp.Column) and node.name == "person_id" and events_source_of(node, ctes)


def _position(node: exp.Expression, count: int) -> int | None:
    """The 0-based projection item a positional ``GROUP BY`` / ``ORDER BY`` ``n`` names, else None."""
    if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit() and 1 <= int(node.this) <= count:
        return int(node.this) - 1
    return None


def _named_after_grouping(select: exp.Select, ctes: set[str], key: str, *, root: bool) -> exp.Select | None:
    """``select`` grouped by ``key`` in place, under a SELECT naming the groups' uuids that takes its place in
    the tree where they may be read; that SELECT, ``select`` itself where they are not, None where it cannot be
    (it is then left as it was)."""
    items = _person_items(select, ctes)
    if items is None:
        return None
    plain = [index for index, item in enumerate(select.expressions) if index not in items]
    unnamed = [index for index in plain if not select.expressions[index].alias and not _bare(select, index)]
    if unnamed and not root:
        return None  # a SELECT read from outside is read by its items' names, which ClickHouse makes up here
    read = _read_outside(select, items)
    # rewritten in place (a copy costs more than the rest): its place in the tree held until the outer is made
    hole = exp.Null()
    if read and select.parent is not None:
        select.replace(hole)
    inner = select
    table = inner.args["from_"].this.alias_or_name
    person_key = exp.column(key, table=table)
    for node in list(inner.args["group"].expressions):
        alias = isinstance(node, exp.Column) and not node.table and node.name in _aliases(inner, items)
        if alias or _is_person(node, ctes):
            node.replace(person_key.copy())
    if not read:  # the uuids are never read: the groups alone, under their names
        for index in items:
            item = inner.expressions[index]
            item.replace(exp.alias_(person_key.copy(), item.alias or "person_id"))
        return inner
    outputs: list[exp.Expression] = []
    for index, item in enumerate(list(inner.expressions)):
        name = item.alias or (item.name if isinstance(item, exp.Column) else "")
        if index in items:
            item.replace(exp.alias_(person_key.copy(), _PERSON.format(index)))
            value: exp.Expression = exp.Anonymous(
                this="nullIf", expressions=[exp.column("uuid", table=_NAMES), exp.Literal.string("")]
            )
        else:
            inner_name = item.alias or _ITEM.format(index)
            if not item.alias:
                item.replace(exp.alias_(item.copy(), inner_name))
            value = exp.column(inner_name, table=_GROUPED)
        outputs.append(exp.alias_(value, name) if name else value)
    order = inner.args.get("order")
    outer_order: list[exp.Expression] = []
    if order is not None:
        for index, ordered in enumerate(order.expressions):
            position = _position(ordered.this, len(outputs))
            if position is not None:
                column = outputs[position].unalias().copy()
            else:  # ordered by an expression: carried out of the grouping beside the items
                inner.append("expressions", exp.alias_(ordered.this.copy(), _ORDER.format(index)))
                column = exp.column(_ORDER.format(index), table=_GROUPED)
            moved = ordered.copy()
            moved.set("this", column)
            outer_order.append(moved)
        if inner.args.get("limit") is None and inner.args.get("offset") is None:
            inner.set("order", None)  # the rows are ordered once, after the join
    condition = exp.EQ(
        this=exp.column("id", table=_NAMES), expression=exp.column(_PERSON.format(items[0]), table=_GROUPED)
    )
    names = exp.Table(this=exp.to_identifier(PERSON_NAMES), alias=exp.TableAlias(this=exp.to_identifier(_NAMES)))
    with_ = inner.args.get("with_")
    if with_ is not None:  # the query's CTEs stand before the SELECT that now holds the grouping
        inner.set("with_", None)
    # built as nodes: sqlglot's builders copy the tree they extend
    outer = exp.Select(
        expressions=outputs,
        from_=exp.From(this=exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier(_GROUPED)))),
        joins=[exp.Join(this=names, on=condition, side="LEFT")],
        order=exp.Order(expressions=outer_order) if outer_order else None,
    )
    if with_ is not None:
        outer.set("with_", with_)
    if hole.parent is not None:
        hole.replace(outer)
    return outer


def _bare(select: exp.Select, index: int) -> bool:
    return isinstance(select.expressions[index], exp.Column)


def _aliases(select: exp.Select, items: list[int]) -> set[str]:
    return {select.expressions[index].alias for index in items} - {""}


def _read_outside(select: exp.Select, items: list[int]) -> bool:
    """Whether the person items of ``select`` may be read: always, unless ``select`` is a subquery in the FROM
    or a JOIN of a SELECT that names none of them (a CTE, a union's part or the query itself may be read)."""
    subquery = select.parent
    if not isinstance(subquery, exp.Subquery) or not isinstance(subquery.parent, exp.From | exp.Join):
        return True
    enclosing = subquery.parent.parent
    if not isinstance(enclosing, exp.Select):
        return True
    names = {select.expressions[index].alias_or_name for index in items}
    for node in enclosing.walk():
        if isinstance(node, exp.Star):
            return True
        if isinstance(node, exp.Column) and node.name in names and not _inside(node, select):
            return True
    return False


def _inside(node: exp.Expression, ancestor: exp.Expression) -> bool:
    while node.parent is not None:
        node = node.parent
        if node is ancestor:
            return True
    return False
