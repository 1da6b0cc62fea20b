"""The events list, one event by uuid and property-value suggestions: the same answers from the SQLite and the
ClickHouse store over the same hand-written events (written to SQLite, copied into ClickHouse).

Row keys differ between the engines (SQLite's row id, ClickHouse's uuid hash), so rows are compared without
them; events sharing a timestamp are paged through on each store with its own keys.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from local_backend.store.engine.clickhouse.event_store import ClickHouseEventStore
from local_backend.store.engine.interface import EventListing, EventStore, PropertyValues, StoredEvent
from local_backend.store.engine.sqlite.event_store import SQLiteEventStore
from local_backend.store.event_rows import from_micros, to_micros
from local_backend.store.projects import create_project
from tests.backend.store.clickhouse.mirror import mirror
from tests.factories import add_events

SAME = "2026-01-09T08:00:00Z"
EVENTS = [
    ("tick", "dave", SAME, {"n": 1}),
    ("tick", "dave", SAME, {"n": 2}),
    ("tick", "dave", SAME, {"n": 3}),
    ("$pageview", "alice", "2026-01-10T10:00:00Z", {"$browser": "Chrome", "plan": "pro"}),
    ("$pageview", "alice", "2026-01-10T11:00:00Z", {"$browser": "Chrome"}),
    ("$pageview", "bob", "2026-01-10T12:00:00Z", {"$browser": "Firefox", "seats": 3}),
    ("signup", "bob", "2026-01-11T09:00:00Z", {"$browser": "Safari", "paid": True, "plan": "free"}),
    ("$pageview", "carol", "2026-01-11T10:00:00Z", {"$browser": "chromium", "ratio": 1.5, "tags": ["a", "b"]}),
    ("$pageview", "carol", "2026-01-12T10:00:00Z", {"$browser": None}),
    ("$pageview", "carol", "2026-01-12T11:00:00Z", {"$browser": ""}),
]
NEWEST_FIRST = [
    ("$pageview", "carol", "2026-01-12T11:00:00Z"),
    ("$pageview", "carol", "2026-01-12T10:00:00Z"),
    ("$pageview", "carol", "2026-01-11T10:00:00Z"),
    ("signup", "bob", "2026-01-11T09:00:00Z"),
    ("$pageview", "bob", "2026-01-10T12:00:00Z"),
    ("$pageview", "alice", "2026-01-10T11:00:00Z"),
    ("$pageview", "alice", "2026-01-10T10:00:00Z"),
    ("tick", "dave", SAME),
    ("tick", "dave", SAME),
    ("tick", "dave", SAME),
]


def micros(text: str) -> int:
    return to_micros(datetime.fromisoformat(text.replace("Z", "+00:00")))


@pytest.fixture
def project_id(conn) -> int:
    return int(create_project(conn, name="Lists", timezone="UTC", now="2026-01-15T12:00:00Z")["id"])


@pytest.fixture
def other_project_id(conn) -> int:
    return int(create_project(conn, name="Other", timezone="UTC", now="2026-01-15T12:00:00Z")["id"])


@pytest.fixture
def stores(conn, project_id, other_project_id, ch_client) -> tuple[SQLiteEventStore, ClickHouseEventStore]:
    add_events(conn, project_id, EVENTS)
    add_events(conn, other_project_id, [("$pageview", "zed", "2026-01-12T12:00:00Z", {"$browser": "Opera"})])
    mirror(conn, ch_client)
    return SQLiteEventStore(conn), ClickHouseEventStore(conn, ch_client)


def test_the_new_methods_are_part_of_the_interface(stores):
    for store in stores:
        assert isinstance(store, EventStore)


def _summary(rows: list[StoredEvent]) -> list[tuple[str, str, str]]:
    return [(row.event, row.distinct_id, from_micros(row.timestamp).isoformat().replace("+00:00", "Z")) for row in rows]


def _without_key(rows: list[StoredEvent]) -> list[tuple[Any, ...]]:
    return [(r.uuid, r.event, r.distinct_id, r.person_id, r.timestamp, r.properties, r.elements_chain) for r in rows]


def _both(stores, ask) -> list[StoredEvent]:
    """The rows of ``ask`` on SQLite, after checking ClickHouse gives the same: the same timestamps in the same
    order, and the same events (events sharing a timestamp come in each engine's own key order)."""
    sqlite_rows, clickhouse_rows = (ask(store) for store in stores)
    assert [row.timestamp for row in clickhouse_rows] == [row.timestamp for row in sqlite_rows]
    assert sorted(_without_key(clickhouse_rows)) == sorted(_without_key(sqlite_rows))
    return sqlite_rows


def test_every_event_newest_first_only_of_the_project(stores, project_id):
    rows = _both(stores, lambda store: store.list_events(EventListing(project_id, [], 100)))
    assert _summary(rows) == NEWEST_FIRST
    assert all(row.key >= 0 for row in rows)


def test_conditions_limit_and_before(stores, project_id):
    pageviews = _both(
        stores, lambda store: store.list_events(EventListing(project_id, [("e.event = ?", ["$pageview"])], 3))
    )
    assert _summary(pageviews) == NEWEST_FIRST[:3]
    by_person = _both(
        stores, lambda store: store.list_events(EventListing(project_id, [("e.distinct_id = ?", ["bob"])], 10))
    )
    assert _summary(by_person) == NEWEST_FIRST[3:5]
    # before is exclusive: the event at 2026-01-11T09:00 itself is left out
    before = _both(
        stores, lambda store: store.list_events(EventListing(project_id, [], 2, before=micros("2026-01-11T09:00:00Z")))
    )
    assert _summary(before) == NEWEST_FIRST[4:6]


def test_a_property_condition_in_each_stores_dialect(stores, project_id):
    def chrome(store: EventStore) -> list[StoredEvent]:
        text_sql, text_params = store.dialect.text("e.properties", "$browser")
        where = (store.dialect.find(text_sql), [*text_params, "CHROM"])
        return store.list_events(EventListing(project_id, [where], 10))

    assert [row.distinct_id for row in _both(stores, chrome)] == ["carol", "alice", "alice"]


@pytest.mark.parametrize("engine", [0, 1], ids=["sqlite", "clickhouse"])
def test_paging_by_timestamp_and_key_lists_each_event_once(stores, project_id, engine):
    store = stores[engine]
    everything = store.list_events(EventListing(project_id, [], 100))
    seen: list[StoredEvent] = []
    page = store.list_events(EventListing(project_id, [], 2))
    while page:
        seen += page
        last = page[-1]
        page = store.list_events(EventListing(project_id, [], 2, before=last.timestamp, before_key=last.key))
    assert seen == everything
    assert len({row.key for row in seen}) == len(EVENTS)
    ticks = [row for row in seen if row.event == "tick"]
    assert sorted(row.properties for row in ticks) == ['{"n":1}', '{"n":2}', '{"n":3}']
    assert [row.key for row in ticks] == sorted((row.key for row in ticks), reverse=True)


def test_one_event_by_uuid(stores, project_id, other_project_id):
    for row in stores[0].list_events(EventListing(project_id, [], 100)):
        found = _both(stores, lambda store, uuid=row.uuid: [store.get_event(project_id, uuid)])
        assert _without_key(found) == _without_key([row])
    other = stores[0].list_events(EventListing(other_project_id, [], 1))[0]
    for store in stores:
        assert store.get_event(project_id, "not-an-event") is None
        assert store.get_event(project_id, other.uuid) is None  # another project's event


VALUES = [
    # key, event names, search, limit, sample, values (hand-worked: most frequent, then by value in byte order)
    ("$browser", (), None, 10, 10_000, ["Chrome", "Firefox", "Safari", "chromium"]),
    ("$browser", (), "CHROM", 10, 10_000, ["Chrome", "chromium"]),
    ("$browser", ("signup",), None, 10, 10_000, ["Safari"]),
    ("$browser", ("signup", "tick"), None, 10, 10_000, ["Safari"]),
    ("$browser", (), None, 2, 10_000, ["Chrome", "Firefox"]),
    # the newest 3 events hold "", null and chromium; the newest 5 add Safari and Firefox
    ("$browser", (), None, 10, 3, ["chromium"]),
    ("$browser", (), None, 10, 5, ["Firefox", "Safari", "chromium"]),
    ("paid", (), None, 10, 10_000, ["true"]),
    ("seats", (), None, 10, 10_000, ["3"]),
    ("ratio", (), None, 10, 10_000, ["1.5"]),
    ("tags", (), None, 10, 10_000, ['["a","b"]']),
    ("plan", (), None, 10, 10_000, ["free", "pro"]),
    ("n", ("tick",), None, 10, 10_000, ["1", "2", "3"]),
    ("nothing", (), None, 10, 10_000, []),
]


@pytest.mark.parametrize("key, names, search, limit, sample, expected", VALUES)
def test_property_values(stores, project_id, key, names, search, limit, sample, expected):
    request = PropertyValues(project_id, key, limit, sample, event_names=names, search=search)
    assert [store.property_values(request) for store in stores] == [expected, expected]


def test_property_values_stay_in_their_project(stores, other_project_id):
    request = PropertyValues(other_project_id, "$browser", 10, 10_000)
    assert [store.property_values(request) for store in stores] == [["Opera"], ["Opera"]]


def test_has_events(stores, project_id, other_project_id, conn):
    empty = int(create_project(conn, name="Empty", timezone="UTC", now="2026-01-15T12:00:00Z")["id"])
    for store in stores:
        assert (store.has_events(project_id), store.has_events(other_project_id), store.has_events(empty)) == (
            True,
            True,
            False,
        )


@pytest.mark.parametrize(
    "name, sample, keys",
    [
        ("$pageview", 10, {"$browser", "plan", "seats", "ratio", "tags"}),
        # the newest two pageviews (carol's on the 12th) carry only $browser; the third adds ratio and tags
        ("$pageview", 2, {"$browser"}),
        ("$pageview", 3, {"$browser", "ratio", "tags"}),
        ("signup", 10, {"$browser", "paid", "plan"}),
        ("never", 10, set()),
    ],
)
def test_property_keys_of_the_newest_events(stores, project_id, name, sample, keys):
    assert [store.property_keys(project_id, name, sample) for store in stores] == [keys, keys]
