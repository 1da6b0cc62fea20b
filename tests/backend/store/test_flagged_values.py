"""A flagged scan with a ``$browser`` value read from the browser index gives the person-index scan's rows.

Ties are the point: bob's two page views and his signup share one microsecond, with different browsers, so
the order within the tie (event name, then row id, as the person index keeps them) decides which value is
first in the day. Both shapes are checked: one statement over every browser, and, when the request names its
events, one index range per event and browser (NULL and the empty browser included).
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

import numpy as np
import pytest

from local_backend.store.engine.choice import event_store
from local_backend.store.engine.interface import FlaggedRows, FlaggedScan
from local_backend.store.engine.sqlite import browser_ranges
from local_backend.store.engine.sqlite.covering import BROWSER_INDEX
from local_backend.store.engine.sqlite.dialect import DIALECT
from local_backend.store.event_rows import to_micros
from local_backend.store.projects import create_project
from tests.factories import add_events

BROWSER = DIALECT.breakdown_value("e.properties", "$browser", hot="e.v_browser")
EVENTS = [
    ("$pageview", "ann", "2026-01-10T10:00:00Z", {"$browser": "Safari"}),
    ("$pageview", "bob", "2026-01-10T11:00:00Z", {"$browser": "Firefox"}),
    ("signup", "bob", "2026-01-10T11:00:00Z", {"$browser": "Chrome"}),
    ("$pageview", "bob", "2026-01-10T11:00:00Z", {"$browser": "Chrome"}),
    ("$pageview", "ann", "2026-01-11T09:00:00Z"),
    ("$pageview", "bob", "2026-01-09T09:00:00Z", {"$browser": "Edge"}),  # before the range
    ("signup", "cy", "2026-01-11T10:00:00Z", {"$browser": ""}),
    ("$pageview", "cy", "2026-01-13T10:00:00Z", {"$browser": "Opera"}),  # after the range
    ("$autocapture", "cy", "2026-01-11T10:00:00Z", {"$browser": "Chrome"}),  # no flag
]


@pytest.fixture
def project_id(conn: sqlite3.Connection) -> int:
    project_id = int(create_project(conn, name="Store", timezone="UTC", now="2026-01-15T12:00:00Z")["id"])
    add_events(conn, project_id, EVENTS)
    return project_id


def scan(conn: sqlite3.Connection, project_id: int, events: list[str] | None) -> tuple[FlaggedRows, list[str]]:
    request = FlaggedScan(
        project_id=project_id,
        lower=to_micros(datetime(2026, 1, 10, tzinfo=UTC)),
        upper=to_micros(datetime(2026, 1, 12, tzinfo=UTC)) - 1,
        where=("1", []),
        flags=[("e.event = ?", ["$pageview"]), ("e.event = ?", ["signup"])],
        events=events,
        value=BROWSER,
    )
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        return event_store(conn).flagged_rows(request), statements
    finally:
        conn.set_trace_callback(None)


@pytest.mark.parametrize(
    ("events", "most"),
    [(None, 500), (["$pageview", "signup"], 500), (["$pageview", "signup"], 3)],
    ids=["one statement", "a range per browser", "past the most ranges"],
)
def test_the_browser_index_gives_the_person_index_rows_ties_and_all(conn, project_id, events, most, monkeypatch):
    monkeypatch.setattr(browser_ranges, "MAX_RANGES", most)
    from_browser, statements = scan(conn, project_id, events)
    assert any(f"INDEXED BY {BROWSER_INDEX}" in sql for sql in statements)
    one_statement = any("GROUP BY e.event, e.v_browser" in sql for sql in statements)
    assert one_statement == (events is None or most == 3)
    conn.execute(f"DROP INDEX {BROWSER_INDEX}")
    from_person, statements = scan(conn, project_id, events)
    assert not any(f"INDEXED BY {BROWSER_INDEX}" in sql for sql in statements)
    for column in ("actors", "timestamps", "flags"):
        np.testing.assert_array_equal(getattr(from_browser, column), getattr(from_person, column))
    assert from_browser.values == from_person.values
    # ann's two page views, then bob's tie: '$pageview' before 'signup', the page views in the order stored;
    # then cy's signup with an empty browser (the breakdown reads it as no value)
    assert from_person.values == ["Safari", None, "Firefox", "Chrome", "Chrome", None]
    assert from_person.flags.tolist() == [1, 1, 1, 1, 2, 2]
