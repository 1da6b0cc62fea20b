"""A trend's counts by ``$browser`` read from the browser index range by range give the one-pass statement's
numbers: an empty browser and a missing one are the same value, and a person seen with both counts once.

The events (project timezone UTC; spans are the days Jan 10 and 11 of 2026)::

    ann  $pageview  Jan 10 09:00  Chrome
    ann  $pageview  Jan 10 10:00  Chrome
    ann  $pageview  Jan 10 11:00  (no browser)
    ann  $pageview  Jan 10 12:00  ''
    bob  $pageview  Jan 10 13:00  ''
    bob  $pageview  Jan 11 08:00  Firefox
    bob  signup     Jan 11 09:00  Chrome     (another event)
    cy   $pageview  Jan 11 10:00  (no browser)
    cy   $pageview  Jan 12 10:00  Chrome     (after the range)
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from local_backend.store.engine.choice import event_store
from local_backend.store.engine.interface import COUNT, Measure, SpanAggregate
from local_backend.store.engine.sqlite.dialect import DIALECT
from local_backend.store.event_rows import to_micros
from local_backend.store.projects import create_project
from tests.factories import add_events

EVENTS = [
    ("$pageview", "ann", "2026-01-10T09:00:00Z", {"$browser": "Chrome"}),
    ("$pageview", "ann", "2026-01-10T10:00:00Z", {"$browser": "Chrome"}),
    ("$pageview", "ann", "2026-01-10T11:00:00Z"),
    ("$pageview", "ann", "2026-01-10T12:00:00Z", {"$browser": ""}),
    ("$pageview", "bob", "2026-01-10T13:00:00Z", {"$browser": ""}),
    ("$pageview", "bob", "2026-01-11T08:00:00Z", {"$browser": "Firefox"}),
    ("signup", "bob", "2026-01-11T09:00:00Z", {"$browser": "Chrome"}),
    ("$pageview", "cy", "2026-01-11T10:00:00Z"),
    ("$pageview", "cy", "2026-01-12T10:00:00Z", {"$browser": "Chrome"}),
]
BROWSER = DIALECT.breakdown_value("e.properties", "$browser", hot="e.v_browser")
GROUP = (f"coalesce({BROWSER[0]}, ?)", [*BROWSER[1], "none"])
PERSONS = Measure(aggregate="count(DISTINCT e.person_id)")


def at(day: int) -> int:
    return to_micros(datetime(2026, 1, day, tzinfo=UTC))


@pytest.fixture
def store(conn):
    project_id = int(create_project(conn, name="Store", timezone="UTC", now="2026-01-15T12:00:00Z")["id"])
    add_events(conn, project_id, EVENTS)
    return project_id, event_store(conn)


def counted(conn, store, measure: Measure, events: list[str] | None, max_groups: int = 10):
    project_id, events_store = store
    request = SpanAggregate(
        project_id=project_id,
        spans=[(at(10), at(11)), (at(11), at(12))],
        where=("e.event = ?", ["$pageview"]),
        measure=measure,
        group=GROUP,
        events=events,
    )
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        return events_store.aggregate_counted(request, max_groups=max_groups), statements
    finally:
        conn.set_trace_callback(None)


@pytest.mark.parametrize("events", [None, ["$pageview"]], ids=["one pass", "a range per browser"])
def test_counts_and_distinct_persons_by_browser(conn, store, events):
    found, statements = counted(conn, store, COUNT, events)
    assert any("CROSS JOIN events e INDEXED BY idx_events_browser" in sql for sql in statements) == bool(events)
    # (span, value): (aggregate, events)
    assert found == {(0, "Chrome"): (2, 2), (0, "none"): (3, 3), (1, "Firefox"): (1, 1), (1, "none"): (1, 1)}
    found, _ = counted(conn, store, PERSONS, events)
    # ann's missing and empty browsers are one value: she is one of its two persons on the 10th
    assert found == {(0, "Chrome"): (1, 2), (0, "none"): (2, 3), (1, "Firefox"): (1, 1), (1, "none"): (1, 1)}


@pytest.mark.parametrize("events", [None, ["$pageview"]], ids=["one pass", "a range per browser"])
def test_too_many_groups_answer_none(conn, store, events):
    assert counted(conn, store, COUNT, events, max_groups=3)[0] is None


def test_past_the_most_ranges_one_statement_reads_them_all(conn, store, monkeypatch):
    from local_backend.store.engine.sqlite import browser_ranges

    monkeypatch.setattr(browser_ranges, "MAX_RANGES", 2)  # three browsers and NULL: four ranges
    found, statements = counted(conn, store, PERSONS, ["$pageview"])
    assert not any("CROSS JOIN" in sql for sql in statements)
    assert found == {(0, "Chrome"): (1, 2), (0, "none"): (2, 3), (1, "Firefox"): (1, 1), (1, "none"): (1, 1)}


@pytest.mark.parametrize("events", [None, ["$pageview"]], ids=["one pass", "a range per browser"])
def test_without_the_browser_index_the_same_numbers(conn, store, events):
    # a bulk load drops the index while it runs: a breakdown asked meanwhile reads the events per span
    conn.execute("DROP INDEX idx_events_browser")
    found, statements = counted(conn, store, PERSONS, events)
    assert not any("INDEXED BY idx_events_browser" in sql for sql in statements)
    assert found == {(0, "Chrome"): (1, 2), (0, "none"): (2, 3), (1, "Firefox"): (1, 1), (1, "none"): (1, 1)}
