"""Hot event properties read through generated columns answer exactly as the JSON does.

Every event carries the same value under a hot key (``$browser``, ``$os``) and a plain key (``browser``), so
each filter and breakdown runs both ways; the expected matches are read off the event list by the reference's
rules: text comparison, ``''`` for a missing key, ``true``/``false``, numbers as written, ``null`` for null.
"""

from __future__ import annotations

import pytest

from local_backend.queries.base_filter import compiler_for
from local_backend.queries.breakdowns import breakdown_expression
from local_backend.queries.filter_parsing import parse_filter
from local_backend.queries.trends import TrendsFilter
from local_backend.store.engine.sqlite.dialect import SQLiteDialect, register_functions
from local_backend.store.hot_properties import HOT_PROPERTIES
from tests.backend.compiled_filters import matches
from tests.factories import add_events

T = "2026-01-10T10:00:00Z"
MISSING = object()
VALUES = {
    "s_chrome": "Chrome",
    "s_lower": "chrome",
    "s_five": "5",
    "n_five": 5,
    "n_float": 1.5,
    "b_true": True,
    "b_false": False,
    "s_true": "true",
    "j_null": None,
    "missing": MISSING,
    "empty": "",
}
ALL = sorted(VALUES)


def but(*names: str) -> list[str]:
    return [name for name in ALL if name not in names]


@pytest.fixture
def events(conn, world):
    specs = []
    for name, value in VALUES.items():
        properties = {} if value is MISSING else {"$browser": value, "$os": value, "browser": value}
        specs.append(("$pageview", name, T, properties))
    add_events(conn, world.project_id, specs)
    return world.project_id


@pytest.mark.parametrize(
    ("value", "operator", "expected"),
    [
        ("Chrome", "exact", ["s_chrome"]),
        (["Chrome", "chrome"], "exact", ["s_chrome", "s_lower"]),
        ("Chrome", "is_not", but("s_chrome")),
        (5, "exact", ["n_five", "s_five"]),
        ("5", "exact", ["n_five", "s_five"]),
        (1.5, "exact", ["n_float"]),
        ("true", "exact", ["b_true", "s_true"]),
        (True, "exact", ["b_true", "s_true"]),
        (False, "exact", ["b_false"]),
        ("null", "exact", ["j_null"]),
        ("", "exact", ["empty", "missing"]),
        ("true", "is_not", but("b_true", "s_true")),
        (["Chrome", "true"], "exact", ["b_true", "s_chrome", "s_true"]),
        (["Chrome", "false"], "is_not", but("s_chrome", "b_false")),
        ("chr", "icontains", ["s_chrome", "s_lower"]),
        ("chr", "not_icontains", but("s_chrome", "s_lower")),
        ("^[0-9.]+$", "regex", ["n_five", "n_float", "s_five"]),
        (2, "gt", ["n_five", "s_five"]),
        (1.5, "lte", ["n_float"]),
        (None, "is_set", but("missing")),
        (None, "is_not_set", ["j_null", "missing"]),
    ],
)
def test_hot_and_plain_keys_match_the_same_events(conn, events, value, operator, expected):
    for key in ("$browser", "$os", "browser"):
        condition = {"key": key, "value": value, "operator": operator, "type": "event"}
        assert matches(conn, events, [condition]) == expected, key


def test_hot_key_in_an_or_group_with_a_plain_key(conn, events):
    group = {
        "type": "OR",
        "values": [{"key": "$browser", "value": "Chrome"}, {"key": "browser", "value": False}],
    }
    assert matches(conn, events, group) == ["b_false", "s_chrome"]


def test_person_property_with_a_hot_name_reads_the_person(conn, world):
    add_events(
        conn,
        world.project_id,
        [("$pageview", "p", T, {"$os": "Mac OS X"}), ("$pageview", "q", T, {"$os": "Windows"})],
        persons={"p": {"$os": "Windows"}, "q": {"$os": "Mac OS X"}},
    )
    condition = {"key": "$os", "value": "Windows", "type": "person"}
    assert matches(conn, world.project_id, [condition]) == ["p"]
    assert matches(conn, world.project_id, [{**condition, "type": "event"}]) == ["q"]


def breakdown_counts(conn, project_id: int, key: str) -> dict[str | None, int]:
    filter = parse_filter(TrendsFilter, {"events": [{"id": "$pageview"}], "breakdown": key})
    sql, params = breakdown_expression(filter, dialect=SQLiteDialect())
    register_functions(conn)  # as the SQLite event store does for the connections it reads
    rows = conn.execute(
        f"SELECT {sql}, count(*) FROM events e WHERE e.project_id = ? GROUP BY 1", [*params, project_id]
    )
    return {row[0]: row[1] for row in rows}


def test_hot_and_plain_breakdowns_give_the_same_values(conn, events):
    # '5' and 5 both show as '5', true and 'true' as 'true'; null, missing and '' share the null bucket
    expected = {"Chrome": 1, "chrome": 1, "5": 2, "1.5": 1, "true": 2, "false": 1, None: 3}
    for key in ("$browser", "$os", "browser"):
        assert breakdown_counts(conn, events, key) == expected, key


def test_trend_with_hot_filter_and_breakdown(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [
            ("$pageview", "a", "2026-01-14T10:00:00Z", {"$browser": "Chrome", "$os": "Mac OS X"}),
            ("$pageview", "b", "2026-01-14T11:00:00Z", {"$browser": "Chrome", "$os": "Windows"}),
            ("$pageview", "c", "2026-01-15T09:00:00Z", {"$browser": "Chrome", "$os": "Mac OS X"}),
            ("$pageview", "d", "2026-01-15T09:30:00Z", {"$browser": "Chrome"}),
            ("$pageview", "e", "2026-01-15T10:00:00Z", {"$browser": "Firefox", "$os": "Mac OS X"}),
            ("$autocapture", "f", "2026-01-15T10:00:00Z", {"$browser": "Chrome", "$os": "Windows"}),
        ],
    )
    response = client.post(
        f"/api/projects/{world.project_id}/insights/trend/",
        json={
            "events": [{"id": "$pageview"}],
            "date_from": "2026-01-14",
            "date_to": "2026-01-15",
            "properties": [{"key": "$browser", "value": "Chrome"}],
            "breakdown": "$os",
        },
        headers=world.headers(),
    )
    assert response.status_code == 200, response.text
    series = {s["breakdown_value"]: s["data"] for s in response.json()["result"]}
    assert series == {
        "Mac OS X": [1.0, 1.0],
        "Windows": [1.0, 0.0],
        "$$_posthog_breakdown_null_$$": [0.0, 1.0],
    }


def test_migration_adds_one_column_per_hot_property(conn):
    columns = {row[1]: row[6] for row in conn.execute("PRAGMA table_xinfo(events)")}
    for column in HOT_PROPERTIES.values():
        assert columns.get(column) == 2, column  # 2: a VIRTUAL generated column


def test_browser_filter_with_os_breakdown_is_an_index_range_scan(conn, events):
    conn.execute("ANALYZE")
    filter = parse_filter(TrendsFilter, {"events": [{"id": "$pageview"}], "breakdown": "$os"})
    value_sql, value_params = breakdown_expression(filter, dialect=SQLiteDialect())
    condition = {"key": "$browser", "value": "Chrome"}
    where, where_params = compiler_for(conn, {"id": events}).compile([condition])
    plan = " | ".join(
        row[3]
        for row in conn.execute(
            f"EXPLAIN QUERY PLAN SELECT {value_sql}, count(*) FROM events e WHERE e.project_id = ?"
            f" AND e.event = ? AND e.timestamp >= ? AND e.timestamp < ? AND {where} GROUP BY 1",
            [*value_params, events, "$pageview", 0, 2**62, *where_params],
        )
    )
    assert "USING INDEX idx_events_browser (project_id=? AND event=? AND v_browser=? AND timestamp>?" in plan
