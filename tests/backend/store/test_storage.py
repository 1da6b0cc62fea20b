"""The schema: migrations are recorded, a database reopens, events are idempotent on uuid."""

from __future__ import annotations

import sqlite3

import pytest

from local_backend.store.db import transaction
from local_backend.store.event_rows import EventRow, ensure_person, from_micros, insert_events, to_micros
from local_backend.store.migrations import MIGRATIONS, applied_migrations, migrate
from tests.factories import add_events


def test_migrations_are_named_recorded_and_run_once(tmp_path):
    path = tmp_path / "fresh.db"
    assert migrate(path) == [name for name, _ in MIGRATIONS]
    assert migrate(path) == []
    conn = sqlite3.connect(path)
    assert applied_migrations(conn) == [name for name, _ in MIGRATIONS]
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


def test_database_from_an_older_version_is_upgraded(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    conn.commit()
    conn.close()
    from local_backend.store import migrations

    first_name, first = MIGRATIONS[0]
    # lay down only the first migration, as the first release did
    import sqlite_utils

    conn = sqlite3.connect(path)
    first(sqlite_utils.Database(conn))
    conn.execute("INSERT INTO _migrations VALUES (?, '2026-01-01T00:00:00Z')", (first_name,))
    conn.execute("INSERT INTO organizations (uuid, name, created_at) VALUES ('o', 'Org', 'x')")
    conn.commit()
    conn.close()
    assert migrations.migrate(path) == [name for name, _ in MIGRATIONS[1:]]
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT name FROM organizations").fetchone()[0] == "Org"


def test_micros_round_trip():
    from local_backend.clock import parse_instant

    instant = parse_instant("2026-01-10T10:00:00.123456Z")
    assert to_micros(instant) == 1768039200123456
    assert from_micros(to_micros(instant)) == instant


@pytest.mark.parametrize(
    ("micros", "text"),
    [
        (0, "1970-01-01T00:00:00.000000Z"),
        (1, "1970-01-01T00:00:00.000001Z"),
        (-1, "1969-12-31T23:59:59.999999Z"),
        (1768039200123456, "2026-01-10T10:00:00.123456Z"),
        (951782400000000, "2000-02-29T00:00:00.000000Z"),
        (-62135596800000000, "0001-01-01T00:00:00.000000Z"),
        (-30610310400000000, "0999-12-31T00:00:00.000000Z"),
        (253402300799999999, "9999-12-31T23:59:59.999999Z"),
    ],
)
def test_a_time_in_micros_is_formatted_as_every_stored_time_is(micros, text):
    from local_backend.clock import format_instant, format_micros

    assert format_micros(micros) == text == format_instant(from_micros(micros))


def test_events_are_idempotent_on_uuid(conn, world):
    with transaction(conn):
        person = ensure_person(conn, project_id=world.project_id, distinct_id="alice", created_at=0)
        row = EventRow(project_id=world.project_id, event="signup", distinct_id="alice", person_id=person, timestamp=1)
        assert insert_events(conn, [row]) == 1
        assert insert_events(conn, [row]) == 0
    assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == 1


def test_factory_joins_distinct_ids_into_one_person(conn, world):
    ids = add_events(
        conn,
        world.project_id,
        [("a", "anon-1", "2026-01-10T10:00:00Z"), ("b", "alice", "2026-01-10T11:00:00Z", {"$session_id": "s1"})],
        persons={"alice": {"plan": "pro"}},
        same_person=[("alice", "anon-1")],
    )
    assert ids["alice"] == ids["anon-1"]
    assert conn.execute("SELECT session_id FROM events WHERE event = 'b'").fetchone()[0] == "s1"
