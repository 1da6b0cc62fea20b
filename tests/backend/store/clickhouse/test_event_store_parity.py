"""The ClickHouse event store answers every method as the SQLite store does, over the same hand-written events.

The events are those of ``tests/backend/store/test_event_store.py`` (written to SQLite through the factories and
copied into ClickHouse), plus a few groups. Each request is built with the store's own dialect, run on both
stores and compared; the hand-worked answers of the SQLite store's tests are asserted on ClickHouse too.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest

from local_backend.errors import QueryTimeout
from local_backend.guard import CalculationGuard
from local_backend.store.engine.clickhouse.event_store import ClickHouseEventStore
from local_backend.store.engine.interface import (
    COUNT,
    ActiveActors,
    ActiveIntervals,
    EventStore,
    FirstSeen,
    FlaggedScan,
    Measure,
    PersonEventScan,
    SpanAggregate,
    TopValues,
)
from local_backend.store.engine.sqlite.event_store import SQLiteEventStore
from local_backend.store.event_rows import EventRow, insert_events
from local_backend.store.projects import create_project
from tests.backend.store.clickhouse.mirror import mirror
from tests.backend.store.test_event_store import DAYS, EVENTS, EVERYTHING, PAGEVIEW, at
from tests.factories import add_events


@pytest.fixture
def project_id(conn) -> int:
    return int(create_project(conn, name="Store", timezone="UTC", now="2026-01-15T12:00:00Z")["id"])


@pytest.fixture
def people(conn, project_id) -> dict[str, int]:
    found = add_events(conn, project_id, EVENTS, persons={"alice": {"plan": "pro"}, "carol": {"plan": "pro"}})

    def grouped(event: str, when: int, key: str | None) -> EventRow:
        return EventRow(project_id, event, "alice", found["alice"], when, groups=(key, None, None, None, None))

    insert_events(
        conn,
        [grouped("g", at(14, 9), "zeta"), grouped("g", at(14, 8), "acme"), grouped("g", at(14, 10), "zeta"),
         grouped("g", at(14, 11), None)],
    )  # fmt: skip
    conn.executemany(
        "INSERT INTO groups (project_id, group_type_index, group_key, properties, created_at) VALUES (?, ?, ?, ?, 0)",
        [(project_id, 0, "acme", '{"plan": "big"}'), (project_id, 1, "acme", '{"plan": "other"}'),
         (project_id, 0, "zeta", "{}")],
    )  # fmt: skip
    return found


@pytest.fixture
def stores(conn, people, ch_client) -> tuple[SQLiteEventStore, ClickHouseEventStore]:
    mirror(conn, ch_client)
    return SQLiteEventStore(conn), ClickHouseEventStore(conn, ch_client)


def test_the_clickhouse_store_has_every_method_of_the_interface(stores):
    assert isinstance(stores[1], EventStore)


Case = Callable[[EventStore, int], Any]


def _spans(store: EventStore, project_id: int, measure: Measure, group: bool = False, spans=DAYS) -> Any:
    breakdown = store.dialect.breakdown_value("e.properties", "$browser") if group else None
    request = SpanAggregate(project_id=project_id, spans=spans, where=PAGEVIEW, measure=measure, group=breakdown)
    return {key: value for key, value in store.aggregate_spans(request).items() if value}


def _browser_or_none(store: EventStore) -> tuple[str, list[Any]]:
    sql, params = store.dialect.breakdown_value("e.properties", "$browser")
    return f"coalesce({sql}, ?)", [*params, "none"]


def _number_measure(store: EventStore, aggregate: str) -> Measure:
    dialect = store.dialect
    text = dialect.text("e.properties", "price")
    if "quantile" in aggregate:
        return Measure(aggregate=dialect.quantile("{v}", float(aggregate.split(":")[1])), value=text)
    return Measure(aggregate=f"{aggregate}({dialect.number('{v}')})", value=text)


def _flagged(store: EventStore, project_id: int, **changes: Any) -> Any:
    base: dict[str, Any] = dict(
        project_id=project_id, lower=at(10), upper=at(15), where=EVERYTHING,
        flags=[PAGEVIEW, ("e.event = ?", ["signup"])],
    )  # fmt: skip
    if changes.pop("browser", False):
        changes["value"] = store.dialect.breakdown_value("e.properties", "$browser")
    rows = store.flagged_rows(FlaggedScan(**{**base, **changes}))
    assert rows.actors.dtype == rows.timestamps.dtype == rows.flags.dtype == np.int64
    return rows.actors.tolist(), rows.timestamps.tolist(), rows.flags.tolist(), rows.values, rows.keys


CASES: dict[str, Case] = {
    "earliest event": lambda store, pid: store.earliest_event(pid),
    "earliest event of an empty project": lambda store, pid: store.earliest_event(pid + 1000),
    "count per day": lambda store, pid: _spans(store, pid, COUNT),
    "count per day and browser": lambda store, pid: _spans(store, pid, COUNT, group=True),
    "distinct persons": lambda store, pid: _spans(store, pid, Measure(aggregate="count(DISTINCT e.person_id)")),
    "overlapping spans": lambda store, pid: _spans(store, pid, COUNT, spans=[(at(10), at(12)), (at(11), at(13))]),
    "spans with gaps": lambda store, pid: _spans(
        store, pid, COUNT, spans=[(at(10, 10, 30), at(10, 11, 30)), (at(11), at(11, 9, 30)), (at(12), at(12, 0, 1))]
    ),
    "sum of a property": lambda store, pid: _spans(store, pid, _number_measure(store, "sum")),
    "avg of a property": lambda store, pid: _spans(store, pid, _number_measure(store, "avg")),
    "max of a property": lambda store, pid: _spans(store, pid, _number_measure(store, "max")),
    "median of a property": lambda store, pid: _spans(store, pid, _number_measure(store, "quantile:0.5")),
    "p90 of a property": lambda store, pid: _spans(store, pid, _number_measure(store, "quantile:0.9")),
    "events per actor": lambda store, pid: _spans(
        store, pid, Measure(aggregate="max({v})", per="e.person_id", per_value="count(*)"), group=True
    ),
    "session durations": lambda store, pid: _spans(
        store,
        pid,
        Measure(aggregate="avg({v})", per="e.session_id", session_durations=True),
        spans=[(at(10, 10, 30), at(11))],
    ),  # fmt: skip
    "counted per browser": lambda store, pid: store.aggregate_counted(
        SpanAggregate(project_id=pid, spans=DAYS, where=PAGEVIEW, measure=COUNT, group=_browser_or_none(store)),
        max_groups=10,
    ),
    "counted past the limit": lambda store, pid: store.aggregate_counted(
        SpanAggregate(project_id=pid, spans=DAYS, where=PAGEVIEW, measure=COUNT, group=_browser_or_none(store)),
        max_groups=2,
    ),
    "first seen in range": lambda store, pid: sorted(
        store.first_seen(
            FirstSeen(project_id=pid, lower=at(10, 11, 30), upper=at(13) - 1, where=PAGEVIEW, actor="e.person_id")
        )
    ),  # fmt: skip
    "first seen ever": lambda store, pid: sorted(
        store.first_seen(
            FirstSeen(
                project_id=pid, lower=at(10, 10, 30), upper=at(13) - 1, where=PAGEVIEW, actor="e.person_id", ever=True
            )
        )
    ),  # fmt: skip
    "first seen per group": lambda store, pid: sorted(
        store.first_seen(
            FirstSeen(
                project_id=pid, lower=at(10), upper=at(15), where=EVERYTHING, actor="e.group_0", group=("e.event", [])
            )
        )
    ),  # fmt: skip
    "active actors": lambda store, pid: sorted(
        store.active_actors(ActiveActors(project_id=pid, spans=DAYS, where=PAGEVIEW, actor="e.person_id"))
    ),
    "active intervals": lambda store, pid: sorted(
        store.active_intervals(ActiveIntervals(project_id=pid, spans=DAYS, where=PAGEVIEW, actor="e.person_id"))
    ),
    "active intervals of at most one event per browser": lambda store, pid: sorted(
        store.active_intervals(
            ActiveIntervals(
                project_id=pid,
                spans=DAYS,
                where=PAGEVIEW,
                actor="e.person_id",
                group=_browser_or_none(store),
                operator="lte",
                value=1,
            )
        )
    ),  # fmt: skip
    "active intervals of groups, exactly two events": lambda store, pid: sorted(
        store.active_intervals(
            ActiveIntervals(
                project_id=pid,
                spans=[(at(14), at(15))],
                where=EVERYTHING,
                actor="e.group_0",
                operator="exact",
                value=2,
            )
        )
    ),  # fmt: skip
    "persons created at": lambda store, pid: sorted(store.actors_created_at(pid, [1, 2, 3, 99_999])),
    "groups created at": lambda store, pid: sorted(store.actors_created_at(pid, ["zeta", "acme", "missing"], 0)),
    "top values": lambda store, pid: store.top_values(
        TopValues(
            project_id=pid,
            lower=at(10),
            upper=at(13) - 1,
            where=PAGEVIEW,
            null_label="$none",
            count=3,
            value=store.dialect.breakdown_value("e.properties", "$browser"),
        )
    ),  # fmt: skip
    "flagged rows": lambda store, pid: _flagged(store, pid),
    "flagged rows by name": lambda store, pid: _flagged(
        store, pid, flag_events=["$pageview", "signup"], events=["$pageview", "signup"]
    ),
    "flagged rows with values": lambda store, pid: _flagged(store, pid, flags=[PAGEVIEW], browser=True),
    "flagged rows, every event": lambda store, pid: _flagged(
        store, pid, flags=[("e.event = ?", ["signup"])], only_flagged=False
    ),
    "flagged rows by group": lambda store, pid: _flagged(
        store, pid, lower=at(14), flags=[("e.event = ?", ["g"])], group_type_index=0
    ),
    "person events": lambda store, pid: list(
        store.person_events(
            PersonEventScan(
                project_id=pid,
                lower=at(10),
                upper=at(15),
                where=EVERYTHING,
                properties=["$browser", "price", "$session_id"],
            )
        )
    ),  # fmt: skip
    "persons matching": lambda store, pid: store.persons_matching(
        pid,
        (
            f"{store.dialect.text(store.dialect.person_properties(), 'plan')[0]} = ?",
            [*store.dialect.text(store.dialect.person_properties(), "plan")[1], "pro"],
        ),
    ),  # fmt: skip
    "person properties": lambda store, pid: sorted(store.person_properties(pid, [1, 2, 3, 99_999])),
    "group properties": lambda store, pid: sorted(store.group_properties(pid, 0, ["zeta", "acme", "missing"])),
}


@pytest.mark.parametrize("case", list(CASES))
def test_clickhouse_answers_as_sqlite(stores, project_id, case):
    sqlite_store, clickhouse_store = stores
    assert CASES[case](clickhouse_store, project_id) == CASES[case](sqlite_store, project_id)


def test_hand_worked_answers_on_clickhouse(stores, project_id, people):
    store = stores[1]
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    assert store.earliest_event(project_id) == datetime(2015, 3, 1, 8, tzinfo=UTC)  # 2014's event ignored
    # carol's event at Jan 12 00:00 belongs to Jan 12, not Jan 11
    assert _spans(store, project_id, COUNT) == {(0, None): 3, (1, None): 1, (2, None): 1}
    # only alice's 11:00 pageview and carol's falls in a span: bob's 9:30 is the second span's end, left out
    assert CASES["spans with gaps"](store, project_id) == {(0, None): 1, (2, None): 1}
    assert CASES["overlapping spans"](store, project_id) == {(0, None): 4, (1, None): 2}
    # Jan 10: 10 + "5" + 2
    assert _spans(store, project_id, _number_measure(store, "sum")) == {(0, None): 17.0}
    # prices 2, 5, 10: the median is 5, p90 interpolates 5 + (10 - 5) * 0.8
    assert _spans(store, project_id, _number_measure(store, "quantile:0.5")) == {(0, None): 5.0}
    assert _spans(store, project_id, _number_measure(store, "quantile:0.9")) == {(0, None): 9.0}
    # s1 lasted from 10:00 to 11:00 though the span holds only its 11:00 event
    durations = Measure(aggregate="avg({v})", per="e.session_id", session_durations=True)
    assert _spans(store, project_id, durations, spans=[(at(10, 10, 30), at(11))]) == {(0, None): 3600.0}
    # Chrome 3, then Firefox and the null bucket with 1 each: "Firefox" > "$none"
    assert CASES["top values"](store, project_id) == ["Chrome", "Firefox", "$none"]
    actors, timestamps, flags, _, _ = _flagged(store, project_id, upper=at(13) - 1)
    assert actors == [alice, alice, alice, bob, bob, carol]
    assert timestamps == [at(10, 10), at(10, 11), at(11, 9), at(10, 12), at(11, 9, 30), at(12)]
    assert flags == [1, 1, 2, 1, 1, 1]
    # ordered by group key ("acme" < "zeta"), the event without a group left out
    assert CASES["flagged rows by group"](store, project_id)[1:] == (
        [at(14, 8), at(14, 9), at(14, 10)], [1, 1, 1], None, ["acme", "zeta"]
    )  # fmt: skip
    assert CASES["persons matching"](store, project_id) == [alice, carol]


def test_a_run_out_of_time_stops_before_its_next_clickhouse_statement(stores, project_id, conn):
    guard = CalculationGuard(timeout_seconds=0)
    with pytest.raises(QueryTimeout), guard.watching(conn):
        stores[1].earliest_event(project_id)
