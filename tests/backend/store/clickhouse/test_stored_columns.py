"""A materialized property stored as a real column of ClickHouse's events table reads as SQLite's column does
(numbers as their text, as the value computed from the JSON reads).

event        plan (the property)
$pageview    "pro"          text
$pageview    true           a boolean: 'true'
$pageview    1.5            a real: '1.5'
$pageview    3              an integer: '3'
$pageview    null           JSON null: NULL
$pageview    (missing)      NULL
$pageview    {"a": 1}       an object: its JSON text
signup       "free"         stored after the column was added (the insert computes it)
"""

from __future__ import annotations

import json

import pytest

from local_backend.store.engine.clickhouse.dialect import ClickHouseDialect
from local_backend.store.engine.clickhouse.event_store import ClickHouseEventStore
from local_backend.store.engine.clickhouse.params import bind
from local_backend.store.engine.clickhouse.rows import event_rows
from local_backend.store.engine.clickhouse.stored_columns import (
    add_property_column,
    property_expression,
    stored_columns,
)
from local_backend.store.engine.sqlite.event_store import SQLiteEventStore
from local_backend.store.materialized import backfill, materialize
from local_backend.store.projects import create_project
from tests.backend.store.clickhouse.mirror import insert_rows, mirror
from tests.backend.store.clickhouse.test_joins_parity import values
from tests.factories import add_events

NOW = "2026-01-15T12:00:00Z"
EVENTS = [
    ("$pageview", "alice", "2026-01-10T10:00:00Z", {"plan": "pro"}),
    ("$pageview", "alice", "2026-01-10T10:01:00Z", {"plan": True}),
    ("$pageview", "bob", "2026-01-10T10:02:00Z", {"plan": 1.5}),
    ("$pageview", "bob", "2026-01-10T10:03:00Z", {"plan": 3}),
    ("$pageview", "carol", "2026-01-10T10:04:00Z", {"plan": None}),
    ("$pageview", "carol", "2026-01-10T10:05:00Z", {}),
    ("$pageview", "dave", "2026-01-10T10:06:00Z", {"plan": {"a": 1}}),
]
LATER = [("signup", "dave", "2026-01-11T09:00:00Z", {"plan": "free"})]
COLUMNS = ("project_id", "uuid", "event", "distinct_id", "person_id", "timestamp", "created_at", "properties",
           "elements_chain")  # fmt: skip
EXPECTED = ["pro", "true", "1.5", "3", None, None, '{"a":1}', "free"]


def test_a_stored_column_holds_what_sqlites_column_holds_for_old_and_new_rows(conn, ch_client):
    project_id = int(create_project(conn, name="Stored", timezone="UTC", now=NOW)["id"])
    add_events(conn, project_id, EVENTS)
    conn.commit()
    mirror(conn, ch_client)
    column = materialize(conn, project_id, "plan", now=NOW)
    backfill(conn, column)
    assert column not in stored_columns(ch_client)
    assert add_property_column(ch_client, column, "plan") is True  # the rows stored so far are filled in
    assert add_property_column(ch_client, column, "plan") is False
    assert column in stored_columns(ch_client)
    add_events(conn, project_id, LATER)
    conn.commit()
    later = conn.execute(f"SELECT {', '.join(COLUMNS)} FROM events WHERE event = 'signup'").fetchall()
    insert_rows(ch_client, "events", COLUMNS, [tuple(row) for row in later])  # ClickHouse computes the column
    sqlite_rows = values(SQLiteEventStore(conn), project_id, (f"e.{column}", []))
    clickhouse_rows = values(ClickHouseEventStore(conn, ch_client), project_id, (f"e.{column}", []))
    # SQLite's column keeps JSON numbers as numbers; ClickHouse's holds their text, as a computed value does
    as_text = [value if value is None or isinstance(value, str) else str(value) for value in sqlite_rows[0]]
    assert clickhouse_rows[0] == as_text == EXPECTED
    # the rows read the stored column instead of computing it
    dialect = ClickHouseDialect(ch_client.database)
    rows, _ = event_rows(dialect, project_id, f"e.{column}", {column: "plan"}, stored_columns(ch_client))
    assert f"ev.{column} AS {column}" in rows and "JSONHas" not in rows


# the raw JSON of property "plan" and what its stored column holds: SQLite's json_extract as text, with true and
# false as words (what the dialect's typed read gives a query on a part written before the column existed)
SHAPES = [
    ('"pro"', "pro"),
    ('"ab\\u00e9\\n\\u2028x"', "ab\u00e9\n\u2028x"),
    ('""', ""),
    ('"12"', "12"),  # text of digits stays text
    ("12", "12"),
    ("-7", "-7"),
    ("1.0", "1.0"),  # a real keeps its point, as SQLite prints it
    ("1.50", "1.5"),
    ("-0.0", "0.0"),  # SQLite prints a negative zero without its sign
    ("1e20", "1.0e+20"),
    ("2.5e-7", "2.5e-07"),
    ("9223372036854775807", "9223372036854775807"),  # the largest integer SQLite holds
    ("9223372036854775808", "9.22337203685478e+18"),  # past it, SQLite reads a real
    ("true", "true"),
    ("false", "false"),
    ("null", None),
    (None, None),  # no "plan" at all
    ('[1.0,"a, b",2.50,1e16]', '[1.0,"a, b",2.50,1e16]'),  # a minified container as written, as SQLite keeps it
    # not minified: ClickHouse's own text of it (SQLite keeps 2.50 and drops the spaces: docs/clickhouse.md)
    ('[1, "a", 2.50]', '[1,"a",2.5]'),
    ('{"a": {"b": 1}}', '{"a":{"b":1}}'),
    ("[]", "[]"),
]


@pytest.mark.parametrize(("raw", "expected"), SHAPES)
def test_the_column_expression_reads_each_value_as_a_query_computes_it(ch_client, raw, expected):
    properties = '{"n": 1, "plan": ' + raw + ', "z": 2}' if raw is not None else '{"n": 1}'
    typed, params = ClickHouseDialect(ch_client.database).hot_value("properties", "plan")
    sql, named = bind(
        f"SELECT {property_expression('plan')}, {typed} FROM (SELECT ? AS properties)", [*params, properties]
    )
    assert ch_client.query_rows(sql, named) == [(expected, expected)]


@pytest.mark.parametrize("key", ["it's", "back\\slash", "new\nline"])
def test_a_key_that_cannot_be_written_into_a_column_expression_is_refused(key):
    with pytest.raises(ValueError, match="cannot be written"):
        property_expression(key)


@pytest.mark.parametrize("key", ["tick`", "`", "a`b`c", "semi;colon -- x"])
def test_a_key_holding_a_backtick_is_read_by_its_column_expression(ch_client, key):
    properties = json.dumps({key: "pro", "plan": "other"})
    sql, named = bind(f"SELECT {property_expression(key)} FROM (SELECT ? AS properties)", [properties])
    assert ch_client.query_rows(sql, named) == [("pro",)]
