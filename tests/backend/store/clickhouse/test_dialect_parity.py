"""The ClickHouse dialect reads every shape of JSON value as the SQLite dialect does.

One person has one event per value below (property ``v``, a minute apart); each dialect method's fragment is
read for every event on both engines and the two lists compared, and a few answers are worked by hand.

Not here, a known difference: where the stored JSON spells non-ASCII text as escapes (``{"b":"\\u00e9"}``, as
the test factories' ``json.dumps`` writes it), an array or object value reads back with the characters on
ClickHouse (it re-serializes the value) and with the escapes on SQLite (it keeps the stored text). Ingestion
stores the characters themselves in minified text, and then both engines agree, numbers as written included
(the last test). And an integer of 64 bits or more
(from 2**64, or below -2**63) reads on ClickHouse as the text of its digits, which its JSON functions cannot tell
from a string of the same digits; SQLite reads it as a real (``1.84467440737096e+19``). Integers from 2**63 to
2**64 - 1, which SQLite also reads as reals, read as SQLite reads them (above).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from local_backend.iso_dates import read_date
from local_backend.store.engine.clickhouse.dialect import ClickHouseDialect
from local_backend.store.engine.clickhouse.event_store import ClickHouseEventStore
from local_backend.store.engine.interface import EventStore, FlaggedScan, Fragment, Measure, SpanAggregate
from local_backend.store.engine.sqlite.dialect import to_float
from local_backend.store.engine.sqlite.event_store import SQLiteEventStore
from local_backend.store.projects import create_project
from tests.backend.store.clickhouse.mirror import mirror
from tests.backend.store.test_event_store import at
from tests.factories import add_events

MISSING = object()
VALUES: list[Any] = [
    "Chrome", "café", "", " 12 ", "1.5", "x y", "\t7\n", "1e3", "nan", "inf", "1_000", "0x10",
    10, -3, 0, 1.5, 1.0, 1e20, 0.30000000000000004, -0.0, 1.5e-7, 123456789012345678, 2**63, 2**64 - 1,
    True, False, None, MISSING, [1, "a"], {"b": 1, "c": [True, None], "d": "tab\there \"q\""},
    "2026-01-10", "2026-01-10T10:00:00Z", "2026-01-10T10:00:00+02:00", "2026-01-10 10:00:00.5",
    "2026-01-10Tnonsense", "2026-02-30", "1700000000", "20260110", "10/01/2026",
    # digits of other scripts and spaces other than ASCII's: Python's float() reads them, toFloat64OrNull not
    "\u0661\u0662", "\uff11", "3\u00a0", "\u20074",
    # dates Python's fromisoformat reads and ClickHouse's dates cannot hold, or forms only fromisoformat reads
    "1026-01-10", "0001-01-01T00:30:00+01:00", "2026-W02-6", "2026-0110", "2026-01-10T10:0000Z",
    "2026-01-10T10:00:400Z", "2026-01-10710:00:00", "20260110\u00a0", "2023-02-29",
]  # fmt: skip
KEYS = ["v", 'we"ird', "$dollar", "$session_id"]


@pytest.fixture
def stores(conn, ch_client) -> tuple[int, SQLiteEventStore, ClickHouseEventStore]:
    project_id = int(create_project(conn, name="Shapes", timezone="UTC", now="2026-01-15T12:00:00Z")["id"])
    events = []
    for index, value in enumerate(VALUES):
        properties = {} if value is MISSING else {key: value for key in KEYS}
        events.append(("shape", "ann", f"2026-01-10T{index // 60:02d}:{index % 60:02d}:00Z", properties))
    add_events(conn, project_id, events)
    mirror(conn, ch_client)
    return project_id, SQLiteEventStore(conn), ClickHouseEventStore(conn, ch_client)


def read(store: EventStore, project_id: int, value: Fragment, flags: list[Fragment] = ()) -> tuple[list, list]:
    rows = store.flagged_rows(
        FlaggedScan(project_id=project_id, lower=at(10), upper=at(11), where=("1", []), flags=list(flags),
                    only_flagged=False, value=value)
    )  # fmt: skip
    return rows.values or [], rows.flags.tolist()


def both(stores, make) -> tuple[Any, Any]:
    project_id, sqlite_store, clickhouse_store = stores
    return make(sqlite_store, project_id), make(clickhouse_store, project_id)


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("method", ["text", "breakdown_value", "json_type"])
def test_json_reads_give_sqlites_values(stores, key, method):
    expected, found = both(stores, lambda s, pid: read(s, pid, getattr(s.dialect, method)("e.properties", key)))
    assert found == expected


def test_text_by_hand(stores):
    project_id, _, store = stores
    texts = dict(
        zip(map(repr, VALUES), read(store, project_id, store.dialect.text("e.properties", "v"))[0], strict=True)
    )
    assert texts["True"] == "true" and texts["None"] == "null" and texts[repr(MISSING)] == ""
    assert texts["1.0"] == "1.0" and texts["1e+20"] == "1.0e+20" and texts["0.30000000000000004"] == "0.3"
    assert texts["-0.0"] == "0.0" and texts["1.5e-07"] == "1.5e-07" and texts["10"] == "10"
    assert texts["[1, 'a']"] == '[1,"a"]'


@pytest.mark.parametrize("read_as", ["number", "date"])
def test_numbers_and_dates_read_as_sqlite_reads_them(stores, read_as):
    def make(store: EventStore, project_id: int) -> list:
        text_sql, params = store.dialect.text("e.properties", "v")
        return read(store, project_id, (getattr(store.dialect, read_as)(text_sql), params))[0]

    expected, found = both(stores, make)
    assert found == expected
    assert len([value for value in found if value is not None]) > 5


@pytest.mark.parametrize("pattern", ["^Chr", "[0-9]+", "^$", "é", "^true$", "(?i)chrome"])
def test_regexes_match_as_on_sqlite(stores, pattern):
    def make(store: EventStore, project_id: int) -> list:
        text_sql, params = store.dialect.text("e.properties", "v")
        condition = (store.dialect.regex(f"coalesce({text_sql}, '')"), [*params, pattern])
        return read(store, project_id, ("1", []), [condition])[1]

    expected, found = both(stores, make)
    assert found == expected and any(found)


@pytest.mark.parametrize("level", [0.0, 0.25, 0.5, 0.9, 0.99, 1.0])
def test_quantiles_interpolate_as_on_sqlite(stores, level):
    def make(store: EventStore, project_id: int) -> Any:
        measure = Measure(aggregate=store.dialect.quantile("{v}", level), value=store.dialect.text("e.properties", "v"))
        request = SpanAggregate(project_id=project_id, spans=[(at(10), at(11))], where=("1", []), measure=measure)
        return store.aggregate_spans(request)

    expected, found = both(stores, make)
    assert found == expected


def test_session_ids_are_stored_as_on_sqlite(stores):
    """``events.session_id`` (what unique sessions count and session durations group by) holds each value as
    SQLite's generated text column does: true and 1 are one session there, and so here."""
    expected, found = both(stores, lambda store, project_id: read(store, project_id, ("e.session_id", []))[0])
    assert found == expected
    sessions = dict(zip(map(repr, VALUES), found, strict=True))
    assert sessions["'Chrome'"] == "Chrome" and sessions["10"] == "10" and sessions["1.0"] == "1.0"
    assert sessions["True"] == "1" and sessions["False"] == "0" and sessions["1e+20"] == "1.0e+20"
    assert sessions["None"] is None and sessions[repr(MISSING)] is None and sessions["[1, 'a']"] == '[1,"a"]'
    assert sessions[repr(2**63)] == "9.22337203685478e+18"


def test_json_type_and_missing_keys(stores):
    project_id, _, store = stores
    kinds = read(store, project_id, store.dialect.json_type("e.properties", "v"))[0]
    assert set(kinds) == {"text", "integer", "real", "true", "false", "null", None, "array", "object"}


def test_arrays_and_objects_with_non_ascii_text_as_ingestion_stores_them(conn, ch_client):
    # ingestion writes properties with the characters themselves (local_backend/json_text.py), as both read back
    project_id = int(create_project(conn, name="Text", timezone="UTC", now="2026-01-15T12:00:00Z")["id"])
    add_events(conn, project_id, [("shape", "ann", f"2026-01-10T00:0{minute}:00Z") for minute in range(3)])
    stored = [
        {"v": {"b": "é", "c": ["😀", "x/y"]}},
        {"v": ["naïve", {"k": "\u2028"}]},
        {"v": [1.0, 1e16, 1.5e-07, {"k": 2.50, "n": -0.0}, "a, b"]},  # ClickHouse's own text: [1,10000000000000000,...
    ]
    conn.executemany(
        "UPDATE events SET properties = ? WHERE project_id = ? AND timestamp = ?",
        [(json.dumps(props, ensure_ascii=False, separators=(",", ":")), project_id, at(10, 0, minute))
         for minute, props in enumerate(stored)],
    )  # fmt: skip
    conn.commit()
    mirror(conn, ch_client)
    stores = (project_id, SQLiteEventStore(conn), ClickHouseEventStore(conn, ch_client))
    for method in ("text", "breakdown_value"):

        def make(store: EventStore, pid: int, method: str = method) -> tuple[list, list]:
            return read(store, pid, getattr(store.dialect, method)("e.properties", "v"))

        expected, found = both(stores, make)
        assert found == expected
    assert found[0] == [
        '{"b":"é","c":["😀","x/y"]}',
        '["naïve",{"k":"\u2028"}]',
        '[1.0,1e+16,1.5e-07,{"k":2.5,"n":-0.0},"a, b"]',
    ]


def _mutations(seeds: list[str], alphabet: list[str], count: int, seed: int) -> list[str]:
    """``count`` texts made from ``seeds`` by up to three random edits each (replace, insert or delete a
    character of ``alphabet``), the same on every run."""
    rng = random.Random(seed)
    texts = set(seeds)
    while len(texts) < count:
        text = list(rng.choice(seeds))
        for _ in range(rng.randint(1, 3)):
            at_index, roll = rng.randrange(len(text) + 1), rng.random()
            if roll < 0.4 and text:
                text[min(at_index, len(text) - 1)] = rng.choice(alphabet)
            elif roll < 0.7:
                text.insert(at_index, rng.choice(alphabet))
            elif text:
                del text[min(at_index, len(text) - 1)]
        texts.add("".join(text))
    return sorted(texts)


NUMBER_TEXTS = _mutations(
    [" 12 ", "-1.5e3", "1_000", ".5", "+5.", "0x10", "inf", "1e999", "\u0661\u0662", "\uff11", "3\u00a0"],
    [*"0123456789+-.eE_ xinfa\t\n\r\x0b\x0c\x1c", "\u00a0", "\u0661", "\uff11", "\u2007", "\x85"],
    3000,
    seed=1,
)
DATE_TEXTS = _mutations(
    ["2026-01-10", "2026-01-10T10:00:00Z", "2026-01-10 10:00:00.5", "2026-01-10T10:00:00+02:00", "20260110",
     "20260110T1000", "2026-W02-6", "2024-02-29", "1026-01-10", "0001-01-01T00:00:00+01:00"],
    [*"0123456789-:T Z+.,Wt", "\u0661", "\u00a0", "\t", "\n"],
    3000,
    seed=2,
)  # fmt: skip


@pytest.mark.parametrize(("texts", "read_as"), [(NUMBER_TEXTS, "number"), (DATE_TEXTS, "date")])
def test_generated_texts_read_alike(ch_client, texts, read_as):
    """Thousands of near-miss texts: SQLite's reader (Python) and ClickHouse's expression give the same value
    for every one, and both read some of them."""
    sqlite_read = {"number": to_float, "date": read_date}[read_as]
    expression = getattr(ClickHouseDialect(), read_as)("t")
    found = dict(
        ch_client.query_rows(f"SELECT t, {expression} FROM (SELECT arrayJoin({{texts:Array(String)}}) AS t)",
                             {"texts": texts})
    )  # fmt: skip
    differing = [(text, sqlite_read(text), found[text]) for text in texts if sqlite_read(text) != found[text]]
    assert differing == []
    assert sum(value is not None for value in found.values()) > 100
