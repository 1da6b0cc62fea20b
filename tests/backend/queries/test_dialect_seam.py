"""The filter compilers write the SQL of the dialect they are handed, and nothing engine-specific of their own.

A second engine (ClickHouse) gets complete queries only if every SQLite-specific piece goes through the
:class:`~local_backend.store.engine.sqlite.dialect.Dialect` methods. Here every filter shape is compiled with a dialect
whose every method returns a marker instead of SQL: no SQLite function, cast, operator or table may remain.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import local_backend
from local_backend.queries.base_filter import MATHS, PROPERTY_MATHS, compiler_for, entity_condition
from local_backend.queries.breakdowns import breakdown_expression
from local_backend.queries.filter_parsing import parse_filter
from local_backend.queries.funnels import FunnelFilter
from local_backend.queries.funnels.inputs import breakdown_expression as funnel_breakdown_expression
from local_backend.queries.properties import PropertyCompiler
from local_backend.queries.trends import TrendsFilter
from local_backend.queries.trends.math import plan_math
from local_backend.store.engine.choice import event_store
from local_backend.store.engine.interface import Dialect
from local_backend.store.engine.sqlite.dialect import SQLiteDialect

PACKAGE = Path(local_backend.__file__).parent
# SQLite's own spellings: none may appear in SQL compiled for another dialect
SQLITE_ONLY = re.compile(
    r"json_|il_|CAST\(|\|\||GLOB|LIKE|instr\(|ifnull\(|lower\(|upper\(|length\(|trim\(|round\(|abs\(|REAL"
    r"|typeof|FROM persons|FROM groups|FROM events|cohort_people|1000000",
    re.IGNORECASE,
)


def _sqlite_only(sql: str) -> re.Match[str] | None:
    """The first SQLite-only spelling in ``sql`` outside the markers' own names."""
    return SQLITE_ONLY.search(re.sub(r"D\.[\w:]+\[", "D[", sql))


def _call(name: str, *args: Any) -> str:
    return f"D.{name}[{'|'.join(str(arg) for arg in args)}]"


class MarkerDialect:
    """Every method answers with a marker naming it and its arguments (placeholders kept where bound)."""

    def extract(self, column: str, key: str) -> tuple[str, list[Any]]:
        return _call("extract", column, "?"), [key]

    def json_type(self, column: str, key: str) -> tuple[str, list[Any]]:
        return _call("json_type", column, "?"), [key]

    def text(self, column: str, key: str) -> tuple[str, list[Any]]:
        return _call("text", column, "?"), [key]

    def breakdown_value(self, column: str, key: str, hot: str | None = None) -> tuple[str, list[Any]]:
        return _call("breakdown_value", column, "?", hot), [key]

    def to_text(self, value_sql: str) -> str:
        return _call("to_text", value_sql)

    def number(self, value_sql: str) -> str:
        return _call("number", value_sql)

    def integer(self, value_sql: str) -> str:
        return _call("integer", value_sql)

    def date(self, value_sql: str) -> str:
        return _call("date", value_sql)

    def divide(self, left: str, right: str) -> str:
        return _call("divide", left, right)

    def regex(self, text_sql: str) -> str:
        return _call("regex", text_sql, "?")

    def contains(self, text_sql: str) -> str:
        return _call("contains", text_sql, "?")

    def find(self, text_sql: str) -> str:
        return _call("find", text_sql, "?")

    def like(self, text_sql: str, pattern_sql: str) -> str:
        return _call("like", text_sql, pattern_sql)

    def ilike(self, text_sql: str, pattern_sql: str) -> str:
        return _call("ilike", text_sql, pattern_sql)

    def concat(self, parts: Sequence[str]) -> str:
        return _call("concat", *parts)

    def scalar(self, name: str, args: Sequence[str]) -> str:
        return _call(f"scalar:{name}", *args)

    def text_array(self, parts: Sequence[str]) -> str:
        return _call("text_array", *parts)

    def quantile(self, value_sql: str, level: float) -> str:
        return _call("quantile", value_sql, level)

    def person_properties(self) -> str:
        return _call("person_properties")

    def person_column(self, column: str) -> str:
        return _call("person_column", column)

    def person_condition(self, project_id: int, test: Any) -> tuple[str, list[Any]]:
        sql, params = test(self.person_properties(), self.person_column)
        return _call("person_condition", sql), params

    def group_properties(self, index: int) -> str:
        return _call("group_properties", index)

    def session_seconds(self) -> str:
        return _call("session_seconds")

    def session_duration(self) -> str:
        return _call("session_duration")

    def session_having(self, test: str) -> str:
        return _call("session_having", test)

    def static_cohort_member(self) -> str:
        return _call("static_cohort_member", "?")

    def persons_as_events(self) -> str:
        return _call("persons_as_events", "?")


def _methods(cls: type) -> set[str]:
    return {name for name, _ in inspect.getmembers(cls, inspect.isfunction) if not name.startswith("_")}


def test_the_sqlite_dialect_and_the_marker_implement_exactly_the_documented_methods():
    documented = _methods(Dialect)
    assert _methods(SQLiteDialect) == documented
    assert _methods(MarkerDialect) == documented
    for name in documented:
        assert (getattr(Dialect, name).__doc__ or "").strip(), f"Dialect.{name} needs its one-line contract"


def test_no_compiler_module_takes_the_sqlite_dialect_instance():
    """Compilers are handed the dialect of the store they compile for; only the SQLite store (its statements, those
    of its person spans, ``store/engine/sqlite/person_spans.py``, and its events list, ``listing.py``) names its own."""
    store = PACKAGE / "store"
    sqlite = store / "engine" / "sqlite"
    allowed = {sqlite / "dialect.py", sqlite / "event_store.py", sqlite / "person_spans.py", sqlite / "listing.py"}
    offenders = [
        str(path.relative_to(PACKAGE))
        for folder in ("queries", "store")
        for path in sorted((PACKAGE / folder).rglob("*.py"))
        if path not in allowed and re.search(r"\bDIALECT\b", path.read_text())
    ]
    assert offenders == []


def test_the_calculations_compile_with_the_dialect_of_the_event_store(conn, world):
    compiler = compiler_for(conn, {"id": world.project_id})
    assert compiler.dialect is event_store(conn).dialect


def _cohort(conn, project_id: int, *, static: bool, filters: dict | None = None) -> int:
    cursor = conn.execute(
        "INSERT INTO cohorts (project_id, name, is_static, filters, created_at, updated_at)"
        " VALUES (?, 'c', ?, ?, '', '')",
        (project_id, int(static), json.dumps(filters or {})),
    )
    conn.commit()
    return int(cursor.lastrowid)


def _action(conn, project_id: int, steps: list[dict]) -> int:
    cursor = conn.execute(
        "INSERT INTO actions (project_id, name, steps, created_at, updated_at) VALUES (?, 'a', ?, '', '')",
        (project_id, json.dumps(steps)),
    )
    conn.commit()
    return int(cursor.lastrowid)


OPERATORS: list[tuple[str, Any]] = [
    ("exact", "Chrome"),
    ("exact", ["5", "true"]),
    ("is_not", "Chrome"),
    ("icontains", "chr"),
    ("not_icontains", "chr"),
    ("regex", "^Ch"),
    ("not_regex", "^Ch"),
    ("gt", 3),
    ("gte", 3),
    ("lt", 3),
    ("lte", 3),
    ("is_set", None),
    ("is_not_set", None),
    ("is_date_exact", "2026-01-05"),
    ("is_date_before", "2026-01-05"),
    ("is_date_after", "2026-01-05T10:00:00"),
]
HOGQL = (
    "lower(properties.$browser) = 'a' and upper(person.properties['plan']) like 'P%' and length(trim(event)) > 1"
    " and concat(distinct_id, 'x') ilike '%x' and coalesce(ifNull(properties.a, properties.b), 'c') in ('c', 'd')"
    " and round(toFloat(properties.price) / 2, 1) > abs(toInt(properties.n) * 2 - 1)"
    " and toString(if(properties.flag = true, 1, 0)) != ''"
)


def _all_conditions(conn, project_id: int) -> list[dict]:
    static = _cohort(conn, project_id, static=True)
    dynamic = _cohort(
        conn, project_id, static=False, filters={"properties": [{"key": "plan", "value": "pro", "type": "person"}]}
    )
    conditions: list[dict] = []
    for key in ("$browser", "custom"):  # a hot column and a plain key
        conditions += [{"key": key, "value": value, "operator": operator} for operator, value in OPERATORS]
    conditions += [
        {"key": "plan", "value": value, "operator": operator, "type": "person"} for operator, value in OPERATORS
    ]
    conditions += [
        {"key": "tier", "value": value, "operator": operator, "type": "group", "group_type_index": 1}
        for operator, value in OPERATORS
    ]
    conditions += [
        {"key": "$session_duration", "value": value, "operator": operator, "type": "session"}
        for operator, value in (("gt", 30), ("lte", 30), ("exact", 30), ("is_set", None), ("is_not_set", None))
    ]
    conditions += [
        {"key": key, "value": value, "operator": operator, "type": "element"}
        for key, value in (("tag_name", "button"), ("text", "Buy"), ("href", "/a"), ("selector", "div > a.btn#go"))
        for operator in ("exact", "is_not", "icontains", "regex")
    ]
    conditions += [
        {"key": HOGQL, "type": "hogql"},
        {"key": "id", "value": static, "type": "cohort"},
        {"key": "id", "value": dynamic, "type": "cohort", "operator": "not_in"},
    ]
    return conditions


def test_every_filter_shape_compiles_through_the_dialect_alone(conn, world):
    project_id = world.project_id
    compiler = PropertyCompiler(conn=conn, project_id=project_id, dialect=MarkerDialect())
    compiled = [compiler.compile([condition]) for condition in _all_conditions(conn, project_id)]
    action = _action(
        conn,
        project_id,
        [
            {"event": "$autocapture", "tag_name": "a", "text": "Go", "selector": "div a", "href": "/x"},
            {"url": "example.com", "url_matching": "contains"},
            {"url": "^https://", "url_matching": "regex"},
        ],
    )
    trend = parse_filter(TrendsFilter, {"actions": [{"id": action}], "events": [{"id": "$pageview"}]})
    compiled += [entity_condition(compiler, entity, "events__0") for entity in trend.entities]
    for sql, params in compiled:
        # (an exact match on a hot property reads its column, e.g. ``e.v_browser``: the store's schema, no SQL)
        assert _sqlite_only(sql) is None, sql
        assert sql.count("?") == len(params), sql


@pytest.mark.parametrize(
    ("breakdown", "kind"),
    [("$browser", "event"), ("plan", "event"), ("plan", "person"), ("tier", "group"), ("$session_duration", "session")]
    + [("concat(properties.a, toString(length(event)))", "hogql")],
)
def test_every_breakdown_compiles_through_the_dialect_alone(conn, world, breakdown, kind):
    compiler = PropertyCompiler(conn=conn, project_id=world.project_id, dialect=MarkerDialect())
    data = {"events": [{"id": "$pageview"}], "breakdown": breakdown, "breakdown_type": kind}
    if kind == "group":
        data["breakdown_group_type_index"] = 2
    sql, params = breakdown_expression(parse_filter(TrendsFilter, data), compiler)
    assert "D." in sql and _sqlite_only(sql) is None, sql
    assert sql.count("?") == len(params)
    funnel = parse_filter(FunnelFilter, {**data, "events": [{"id": "a"}, {"id": "b"}], "breakdown": [breakdown]})
    sql, params = funnel_breakdown_expression(funnel, compiler)
    assert sql.startswith("D.text_array[") and _sqlite_only(sql) is None, sql
    assert sql.count("?") == len(params)


@pytest.mark.parametrize("math", MATHS)
def test_every_math_aggregates_through_the_dialect_alone(math):
    entity: dict[str, Any] = {"id": "$pageview", "math": math}
    if math in PROPERTY_MATHS:
        entity["math_property"] = "price"
    if math == "unique_group":
        entity["math_group_type_index"] = 1
    trend = parse_filter(TrendsFilter, {"events": [entity]})
    plan = plan_math(trend.entities[0], trend, MarkerDialect())
    for sql in (plan.outer, plan.value_sql, plan.per or "", plan.inner_sql):
        assert _sqlite_only(sql) is None, sql
    if math in PROPERTY_MATHS:
        assert "D." in plan.outer + plan.value_sql


def test_the_sqlite_dialect_keeps_writing_the_sql_sqlite_was_measured_on():
    dialect = SQLiteDialect()
    # a text holding an escaped NUL is read in Python; every other text by SQLite's JSON functions, as measured
    assert dialect.text("e.properties", "plan") == (
        "(CASE WHEN instr(e.properties, '\\u0000') > 0 THEN il_json_text(e.properties, ?) ELSE"
        " (CASE json_type(e.properties, ?) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'null' THEN 'null'"
        " ELSE coalesce(CAST(json_extract(e.properties, ?) AS TEXT), '') END) END)",
        ["plan", '$."plan"', '$."plan"'],
    )
    assert dialect.contains("v") == "coalesce(v, '') LIKE ('%' || ? || '%')"
    assert dialect.like("a", "?") == (
        "(a GLOB replace(replace(replace(replace(replace(?, '[', '[[]'), '*', '[*]'), '?', '[?]'),"
        " '%', '*'), '_', '?'))"
    )
    assert dialect.concat(["a", "b"]) == "(coalesce(CAST(a AS TEXT), '') || coalesce(CAST(b AS TEXT), ''))"
    assert dialect.text_array(["a", "b"]) == "json_array(coalesce(a, ''), coalesce(b, ''))"
    assert dialect.integer("x") == "CAST(il_float(x) AS INTEGER)"
    assert dialect.divide("a", "b") == "(CAST(a AS REAL) / nullif(b, 0))"
