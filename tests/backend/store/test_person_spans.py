"""The SQLite store's persons per span, personless events left out through the partial index of migration 0033.

The events (project timezone UTC; spans are the days Jan 10 and 11 of 2026)::

    ann   $pageview  Jan 10 10:00  $process_person_profile false
    ann   $pageview  Jan 10 11:00                                  (a personful event the same day: she stays)
    bob   $pageview  Jan 10 12:00  $process_person_profile false   (only personless that day: left out)
    bob   $pageview  Jan 11 09:00  $process_person_profile true
    cat   $pageview  Jan 11 10:00  a text with an escaped NUL and the key written with an escape: personless
    dan   $pageview  Jan 11 11:00  the key's name inside a value only: personful
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

import pytest

from local_backend.store.engine.choice import event_store
from local_backend.store.engine.interface import ActiveActors
from local_backend.store.engine.sqlite.person_spans import MAY_BE_PERSONLESS, PERSONLESS_INDEX
from local_backend.store.event_rows import to_micros
from local_backend.store.projects import create_project
from tests.factories import add_events

PAGEVIEW = ("e.event = ?", ["$pageview"])


def at(day: int, hour: int = 0) -> int:
    return to_micros(datetime(2026, 1, day, hour, tzinfo=UTC))


DAYS = [(at(10), at(11)), (at(11), at(12))]


@pytest.fixture
def people(conn: sqlite3.Connection) -> dict[str, int]:
    project_id = int(create_project(conn, name="Store", timezone="UTC", now="2026-01-15T12:00:00Z")["id"])
    people = add_events(
        conn,
        project_id,
        [
            ("$pageview", "ann", "2026-01-10T10:00:00Z", {"$process_person_profile": False}),
            ("$pageview", "ann", "2026-01-10T11:00:00Z"),
            ("$pageview", "bob", "2026-01-10T12:00:00Z", {"$process_person_profile": False}),
            ("$pageview", "bob", "2026-01-11T09:00:00Z", {"$process_person_profile": True}),
            ("$pageview", "cat", "2026-01-11T10:00:00Z"),
            ("$pageview", "dan", "2026-01-11T11:00:00Z", {"note": "$process_person_profile"}),
        ],
    )
    conn.execute(
        "UPDATE events SET properties = ? WHERE person_id = ?",
        ['{"\\u0024process_person_profile": false, "name": "a\\u0000b"}', people["cat"]],
    )
    conn.commit()
    return people


@pytest.fixture
def project_id(conn: sqlite3.Connection, people: dict[str, int]) -> int:
    (found,) = conn.execute("SELECT DISTINCT project_id FROM events").fetchone()
    return int(found)


def active(conn: sqlite3.Connection, project_id: int, people: dict[str, int], *, personful_only: bool) -> set:
    request = ActiveActors(
        project_id=project_id, spans=DAYS, where=PAGEVIEW, actor="e.person_id", personful_only=personful_only
    )
    names = {person_id: name for name, person_id in people.items()}
    return {(span, names[actor]) for span, _, actor in event_store(conn).active_actors(request)}


PERSONFUL = {(0, "ann"), (1, "bob"), (1, "dan")}


def test_personless_events_are_left_out(conn, project_id, people):
    assert active(conn, project_id, people, personful_only=True) == PERSONFUL
    assert active(conn, project_id, people, personful_only=False) == {*PERSONFUL, (0, "bob"), (1, "cat")}


def test_without_the_index_every_events_properties_are_read_alike(conn, project_id, people):
    conn.execute(f"DROP INDEX {PERSONLESS_INDEX}")  # as while a bulk load defers it
    assert active(conn, project_id, people, personful_only=True) == PERSONFUL


def test_the_index_holds_only_the_events_that_may_be_personless(conn, people):
    # a statement pinned to a partial index it cannot prove it may read fails to prepare: the term is the index's
    sql = f"SELECT count(*) FROM events e INDEXED BY {PERSONLESS_INDEX} WHERE e.timestamp >= 0 AND {MAY_BE_PERSONLESS}"
    # ann's and bob's with the key, cat's with the escapes, dan's naming the key in a value
    assert tuple(conn.execute(sql).fetchone()) == (5,)
