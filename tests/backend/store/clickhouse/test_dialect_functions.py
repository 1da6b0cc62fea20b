"""The dialect's text functions, conversions and LIKE give the same values on ClickHouse as on SQLite.

One person has one event per value below (property ``v``, a minute apart); each function is applied to the
property's text (or its number) for every event on both engines and the two lists compared.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest

from local_backend.store.engine.clickhouse.dialect import ClickHouseDialect
from local_backend.store.engine.clickhouse.event_store import ClickHouseEventStore
from local_backend.store.engine.interface import Dialect, EventStore, FlaggedScan, Fragment
from local_backend.store.engine.sqlite.event_store import SQLiteEventStore
from local_backend.store.projects import create_project
from tests.backend.store.clickhouse.mirror import mirror
from tests.backend.store.test_event_store import at
from tests.factories import add_events

VALUES: list[Any] = [
    "Chrome", "chrome OS", "CAFÉ", "café", "", "  padded  ", "50%", "a_b", "a\\b", "back\\slash", "x/y", 'say "hi"',
    "line\nbreak", "tab\tstop", "\u2028sep", "😀", 10, -3, 2.5, -2.5, 0.125, 1.0, 1e20, True, None,
]  # fmt: skip
NEEDLES = ["chrome", "É", "%", "_", "\\", "a_b", "", "x/", "50\\%"]


@pytest.fixture
def stores(conn, ch_client) -> tuple[int, SQLiteEventStore, ClickHouseEventStore]:
    project_id = int(create_project(conn, name="Functions", timezone="UTC", now="2026-01-15T12:00:00Z")["id"])
    events = [
        ("shape", "ann", f"2026-01-10T00:{index:02d}:00Z", {"v": value, "w": "chrome"})
        for index, value in enumerate(VALUES)
    ]
    add_events(conn, project_id, events)
    mirror(conn, ch_client)
    return project_id, SQLiteEventStore(conn), ClickHouseEventStore(conn, ch_client)


def read(store: EventStore, project_id: int, value: Fragment | None, flags: list[Fragment] = ()) -> tuple[list, list]:
    rows = store.flagged_rows(
        FlaggedScan(project_id=project_id, lower=at(10), upper=at(11), where=("1", []), flags=list(flags),
                    only_flagged=False, value=value)
    )  # fmt: skip
    return rows.values or [], rows.flags.tolist()


def on_both(stores, make: Callable[[EventStore, int], Any]) -> tuple[Any, Any]:
    project_id, sqlite_store, clickhouse_store = stores
    return make(sqlite_store, project_id), make(clickhouse_store, project_id)


def text(store: EventStore) -> Fragment:
    return store.dialect.text("e.properties", "v")


def _scalar_of_text(name: str, store: EventStore) -> Fragment:
    sql, params = text(store)
    return store.dialect.scalar(name, [sql]), params


VALUE_FUNCTIONS: dict[str, Callable[[EventStore], Fragment]] = {
    "to_text of a number": lambda s: (s.dialect.to_text(s.dialect.number(text(s)[0])), text(s)[1]),
    "to_text of a session length": lambda s: (s.dialect.to_text(s.dialect.session_seconds()), []),
    "integer": lambda s: (s.dialect.integer(text(s)[0]), text(s)[1]),
    "divide": lambda s: (s.dialect.divide(s.dialect.number(text(s)[0]), "?"), [*text(s)[1], 4]),
    "divide by zero": lambda s: (s.dialect.divide(s.dialect.number(text(s)[0]), "?"), [*text(s)[1], 0]),
    "concat": lambda s: (s.dialect.concat([text(s)[0], "?", s.dialect.number(text(s)[0])]),
                         [*text(s)[1], "|", *text(s)[1]]),
    "text_array": lambda s: (s.dialect.text_array([text(s)[0], "?", "NULL"]), [*text(s)[1], "x/y"]),
    **{f"scalar {name}": partial(_scalar_of_text, name) for name in ("lower", "upper", "length", "trim")},
    "scalar round": lambda s: (s.dialect.scalar("round", [s.dialect.number(text(s)[0])]), text(s)[1]),
    "scalar round to 2 digits": lambda s: (s.dialect.scalar("round", [s.dialect.number(text(s)[0]), "2"]),
                                           text(s)[1]),
    "scalar abs": lambda s: (s.dialect.scalar("abs", [s.dialect.number(text(s)[0])]), text(s)[1]),
    "scalar coalesce": lambda s: (s.dialect.scalar("coalesce", [s.dialect.number(text(s)[0]), "?"]),
                                  [*text(s)[1], -1]),
}  # fmt: skip


@pytest.mark.parametrize("name", list(VALUE_FUNCTIONS))
def test_value_functions_as_on_sqlite(stores, name):
    expected, found = on_both(stores, lambda s, pid: read(s, pid, VALUE_FUNCTIONS[name](s))[0])
    assert found == expected


@pytest.mark.parametrize("needle", NEEDLES)
@pytest.mark.parametrize("method", ["contains", "find"])
def test_contains_and_find_as_on_sqlite(stores, method, needle):
    def make(store: EventStore, project_id: int) -> list:
        sql, params = text(store)
        return read(store, project_id, None, [(f"coalesce({getattr(store.dialect, method)(sql)}, 0)",
                                               [*params, needle])])[1]  # fmt: skip

    expected, found = on_both(stores, make)
    assert found == expected


@pytest.mark.parametrize("pattern", ["%rome%", "Chrome", "c%", "_afé", "%\\%", "a\\b", "%\\_%", "50%", "%é"])
@pytest.mark.parametrize("method", ["like", "ilike"])
def test_like_and_ilike_as_on_sqlite(stores, method, pattern):
    def make(store: EventStore, project_id: int) -> list:
        sql, params = text(store)
        return read(store, project_id, None, [(f"coalesce({getattr(store.dialect, method)(sql, '?')}, 0)",
                                               [*params, pattern])])[1]  # fmt: skip

    expected, found = on_both(stores, make)
    assert found == expected


def test_hand_worked_functions_on_clickhouse(stores):
    project_id, _, store = stores
    values = dict(zip(map(repr, VALUES), read(store, project_id, VALUE_FUNCTIONS["scalar round"](store))[0],
                      strict=True))  # fmt: skip
    assert values["2.5"] == 3.0 and values["-2.5"] == -3.0  # half away from zero, as SQLite rounds
    arrays = read(store, project_id, VALUE_FUNCTIONS["text_array"](store))[0]
    assert arrays[VALUES.index("x/y")] == '["x/y","x/y",""]'  # no escaped slash
    finds = read(store, project_id, None, [(store.dialect.contains(text(store)[0]), [*text(store)[1], "a_b"])])[1]
    assert finds[VALUES.index("a_b")] == 1 and finds[VALUES.index("a\\b")] == 1  # "_" is any one character


def test_the_clickhouse_dialect_writes_everything_a_dialect_writes():
    wanted = {name for name, _ in inspect.getmembers(Dialect, inspect.isfunction) if not name.startswith("_")}
    found = {name for name, _ in inspect.getmembers(ClickHouseDialect, inspect.isfunction)}
    assert wanted and wanted <= found
