"""ingest_events: counts, rejections, idempotency, clock skew, atomicity and definitions, on hand-written events."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime

import pytest

import local_backend.ingestion.ingest as ingest_module
from local_backend.ingestion import MAX_REJECTIONS, ingest_events
from local_backend.plugins.base import Plugin
from local_backend.plugins.pipeline import ConfiguredPlugin
from local_backend.store.projects import get_project

from ..plugin_helpers import add_config

RECEIVED = datetime(2026, 1, 15, 12, 0, 0, tzinfo=UTC)
RECEIVED_US = 1_768_478_400_000_000  # 2026-01-15T12:00:00Z in microseconds
UUID_B = "01890000-0000-7000-8000-0000000000bb"


def micros(text: str) -> int:
    return int((datetime.fromisoformat(text) - datetime(1970, 1, 1, tzinfo=UTC)).total_seconds()) * 1_000_000


def ingest(conn, world, events, **options):
    project = get_project(conn, world.project_id)
    options.setdefault("now", RECEIVED)
    return ingest_events(conn, project, events, **options)


def stored(conn, *columns: str) -> list[tuple]:
    return [tuple(row) for row in conn.execute(f"SELECT {', '.join(columns)} FROM events ORDER BY id")]


def test_received_at_constant_matches_the_instant():
    assert micros("2026-01-15T12:00:00+00:00") == RECEIVED_US


def test_valid_events_are_stored_with_their_fields(conn, world):
    report = ingest(
        conn,
        world,
        [
            {
                "event": "signup",
                "distinct_id": "alice",
                "timestamp": "2026-01-10T10:00:00Z",
                "properties": {"plan": "pro"},
            },
            {"event": "$pageview", "properties": {"distinct_id": "bob"}, "timestamp": "2026-01-10T10:00:01.5+01:00"},
        ],
    )
    assert (report.accepted, report.duplicates, report.rejected, report.dropped) == (2, 0, 0, 0)
    rows = stored(conn, "event", "distinct_id", "timestamp", "properties", "created_at", "project_id")
    assert rows == [
        ("signup", "alice", micros("2026-01-10T10:00:00+00:00"), '{"plan":"pro"}', RECEIVED_US, world.project_id),
        # +01:00 is one hour earlier in UTC; the half second is kept
        ("$pageview", "bob", micros("2026-01-10T09:00:01+00:00") + 500_000, '{"distinct_id":"bob"}', RECEIVED_US,
         world.project_id),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("event", "reason"),
    [
        ({"distinct_id": "a"}, "no event name"),
        ({"event": "", "distinct_id": "a"}, "no event name"),
        ({"event": 5, "distinct_id": "a"}, "event name must be text"),
        ({"event": "x"}, "no distinct_id"),
        ({"event": "x", "distinct_id": "   "}, "no distinct_id"),
        ({"event": "x", "distinct_id": {"id": 1}}, "distinct_id must be text or a number"),
        ({"event": "x", "distinct_id": "a", "properties": [1]}, "properties must be a JSON object"),
        ({"event": "x", "distinct_id": "a", "timestamp": "yesterday"},
         "timestamp is not an ISO 8601 date-time: 'yesterday'"),
        ({"event": "x", "distinct_id": "a", "uuid": "nope"}, "uuid is not a valid UUID: 'nope'"),
        # Python's uuid.UUID reads these (int(text, 16) takes 0x, underscores, a sign and spaces); no uuid is
        ({"event": "x", "distinct_id": "a", "uuid": "0x0123456789abcdef0123456789abcd"},
         "uuid is not a valid UUID: '0x0123456789abcdef0123456789abcd'"),
        ({"event": "x", "distinct_id": "a", "uuid": "01234567_89abcdef0123456789abcde"},
         "uuid is not a valid UUID: '01234567_89abcdef0123456789abcde'"),
        ({"event": "x", "distinct_id": "a", "uuid": "+0123456789abcdef0123456789abcde"},
         "uuid is not a valid UUID: '+0123456789abcdef0123456789abcde'"),
        ({"event": "x", "distinct_id": "a", "offset": "5"}, "offset must be a number of milliseconds"),
        ({"event": "x", "distinct_id": "a", "properties": {"v": float("nan")}},
         "properties are not valid JSON: Out of range float values are not JSON compliant"),
        ("not an event", "event must be a JSON object"),
        ({"event": "x" * 401, "distinct_id": "a"}, "event name is longer than 400 characters"),
        ({"event": "x", "distinct_id": "a", "uuid": 7}, "uuid must be text"),
        ({"event": "x", "distinct_id": True}, "distinct_id must be text or a number"),
        ({"event": "x", "distinct_id": "a", "timestamp": True},
         "timestamp must be an ISO 8601 date-time or epoch milliseconds"),
    ],
)  # fmt: skip
def test_invalid_events_are_rejected_with_a_reason_and_the_rest_stored(conn, world, event, reason):
    report = ingest(conn, world, [{"event": "ok", "distinct_id": "a"}, event, {"event": "ok", "distinct_id": "b"}])
    assert (report.accepted, report.rejected) == (2, 1)
    assert report.rejections == [{"index": 1, "reason": reason}]
    assert stored(conn, "distinct_id") == [("a",), ("b",)]


def test_numeric_distinct_ids_become_text_and_long_ones_are_cut(conn, world):
    ingest(conn, world, [{"event": "x", "distinct_id": 42}, {"event": "x", "distinct_id": "z" * 250}])
    assert stored(conn, "distinct_id") == [("42",), ("z" * 200,)]


def test_rejection_list_is_capped_but_the_count_is_not(conn, world):
    report = ingest(conn, world, [{"event": "x"}] * (MAX_REJECTIONS + 5))
    assert report.rejected == MAX_REJECTIONS + 5
    assert len(report.rejections) == MAX_REJECTIONS


def test_events_are_idempotent_on_uuid_within_and_across_calls(conn, world):
    first = "01890000-0000-7000-8000-000000000001"
    second = "01890000-0000-7000-8000-000000000002"
    batch = [
        {"event": "a", "distinct_id": "u", "uuid": first},
        {"event": "a", "distinct_id": "u", "uuid": first.upper()},  # the same uuid, written differently
        {"event": "b", "distinct_id": "u", "uuid": second},
    ]
    report = ingest(conn, world, batch)
    assert (report.accepted, report.duplicates) == (2, 1)
    again = ingest(conn, world, batch)
    assert (again.accepted, again.duplicates) == (0, 3)
    assert stored(conn, "uuid", "event") == [(first, "a"), (second, "b")]
    volumes = dict(conn.execute("SELECT name, volume FROM event_definitions").fetchall())
    assert volumes == {"a": 1, "b": 1}


def test_the_same_uuid_in_another_project_is_a_different_event(conn, world):
    event = {"event": "a", "distinct_id": "u", "uuid": "01890000-0000-7000-8000-000000000001"}
    ingest(conn, world, [event])
    other = get_project(conn, world.other_project_id)
    assert ingest_events(conn, other, [event], now=RECEIVED).accepted == 1


def test_events_without_uuid_get_distinct_version_7_uuids(conn, world):
    ingest(conn, world, [{"event": "a", "distinct_id": "u", "timestamp": "2026-01-10T00:00:00Z"}] * 3)
    uuids = [row[0] for row in stored(conn, "uuid")]
    assert len(set(uuids)) == 3
    # the first 48 bits are the event's time in milliseconds
    assert {u[14] for u in uuids} == {"7"}
    assert {int(u.replace("-", "")[:12], 16) for u in uuids} == {micros("2026-01-10T00:00:00+00:00") // 1000}


# Clock skew: the client's clock is 1 hour fast. It stamps the event at 12:59:50 and sends it 10 s later, at
# 13:00:00, both by its own clock; the server receives it at 12:00:00, so the event happened at 11:59:50.
SKEWED = {"event": "a", "distinct_id": "u", "timestamp": "2026-01-15T12:59:50Z"}


@pytest.mark.parametrize(
    ("event", "options", "expected"),
    [
        (SKEWED, {"sent_at": "2026-01-15T13:00:00Z"}, "2026-01-15T11:59:50+00:00"),
        ({**SKEWED, "sent_at": "2026-01-15T13:00:00Z"}, {}, "2026-01-15T11:59:50+00:00"),
        # the event's own sent_at wins over the batch's
        ({**SKEWED, "sent_at": "2026-01-15T13:00:00Z"}, {"sent_at": "2026-01-15T10:00:00Z"},
         "2026-01-15T11:59:50+00:00"),
        # no sent_at: nothing to measure the skew with
        (SKEWED, {}, "2026-01-15T12:59:50+00:00"),
        ({**SKEWED, "properties": {"$ignore_sent_at": True}}, {"sent_at": "2026-01-15T13:00:00Z"},
         "2026-01-15T12:59:50+00:00"),
        (SKEWED, {"sent_at": "2026-01-15T13:00:00Z", "historical_migration": True}, "2026-01-15T12:59:50+00:00"),
        # offset: milliseconds before sending, measured from receipt
        ({"event": "a", "distinct_id": "u", "offset": 1500}, {}, "2026-01-15T11:59:58.500000+00:00"),
        ({"event": "a", "distinct_id": "u"}, {}, "2026-01-15T12:00:00+00:00"),
        # more than 23 hours in the future is an instrumentation bug: the time of receipt is used
        ({"event": "a", "distinct_id": "u", "timestamp": "2026-01-16T11:00:01Z"}, {}, "2026-01-15T12:00:00+00:00"),
        ({"event": "a", "distinct_id": "u", "timestamp": "2026-01-16T10:59:59Z"}, {}, "2026-01-16T10:59:59+00:00"),
        ({"event": "a", "distinct_id": "u", "timestamp": "2027-01-01T00:00:00Z"}, {"historical_migration": True},
         "2027-01-01T00:00:00+00:00"),
        # an unreadable sent_at only loses the correction
        (SKEWED, {"sent_at": "soon"}, "2026-01-15T12:59:50+00:00"),
        # epoch milliseconds, as JavaScript reads a number
        ({"event": "a", "distinct_id": "u", "timestamp": 1_768_478_390_000}, {}, "2026-01-15T11:59:50+00:00"),
    ],
)  # fmt: skip
def test_clock_skew_is_measured_against_the_time_of_receipt(conn, world, event, options, expected):
    # the server clock (now) is a frozen date far away: it must not be what skew is measured against
    ingest(conn, world, [event], now=datetime(2020, 1, 1, tzinfo=UTC), received_at=RECEIVED, **options)
    timestamp = datetime.fromisoformat(expected)
    assert stored(conn, "timestamp") == [((timestamp - datetime(1970, 1, 1, tzinfo=UTC)) // _MICRO,)]


_MICRO = datetime(1970, 1, 1, 0, 0, 0, 1, tzinfo=UTC) - datetime(1970, 1, 1, tzinfo=UTC)


def test_a_failing_call_stores_nothing(conn, world, monkeypatch):
    import local_backend.ingestion.ingest as ingest_module

    def broken_flush(self, connection):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(ingest_module.DefinitionsWriter, "flush", broken_flush)
    with pytest.raises(sqlite3.OperationalError):
        ingest(conn, world, [{"event": "a", "distinct_id": "new", "properties": {"$set": {"x": 1}}}])
    assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM persons").fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM person_distinct_ids").fetchone()[0] == 0
    assert not conn.in_transaction


def test_event_definitions_count_stored_events_and_span_their_times(conn, world):
    ingest(
        conn,
        world,
        [
            {"event": "a", "distinct_id": "u", "timestamp": "2026-01-10T00:00:00Z"},
            {"event": "a", "distinct_id": "u", "timestamp": "2026-01-08T00:00:00Z"},
            {"event": "b", "distinct_id": "u", "timestamp": "2026-01-09T00:00:00Z"},
        ],
    )
    ingest(conn, world, [{"event": "a", "distinct_id": "u", "timestamp": "2026-01-12T00:00:00Z"}])
    rows = [tuple(r) for r in conn.execute("SELECT name, volume, created_at, last_seen_at FROM event_definitions")]
    assert sorted(rows) == [
        ("a", 3, micros("2026-01-08T00:00:00+00:00"), micros("2026-01-12T00:00:00+00:00")),
        ("b", 1, micros("2026-01-09T00:00:00+00:00"), micros("2026-01-09T00:00:00+00:00")),
    ]


def test_property_definitions_take_their_type_from_the_first_typed_value(conn, world):
    ingest(
        conn,
        world,
        [
            {
                "event": "a",
                "distinct_id": "u",
                "properties": {
                    "amount": 9.5,
                    "count": 3,
                    "flag": True,
                    "yes": "TRUE",
                    "day": "2026-01-10",
                    "at": "2026-01-10T10:00:00.123Z",
                    "name": "x",
                    "utm_source": "2026-01-10",
                    "later": None,
                    "$set": {"plan": "pro"},
                    "$set_once": {"first_seen": "2026-01-01T00:00:00Z"},
                    "$groups": {"company": "acme"},
                },
            },
            # a later value never changes a type already known; a null is typed by the first real value
            {"event": "a", "distinct_id": "u", "properties": {"amount": "lots", "later": 5}},
        ],
    )
    ingest(conn, world, [{"event": "b", "distinct_id": "u", "properties": {"count": "many"}}])
    rows = sorted(
        tuple(r)
        for r in conn.execute(
            "SELECT type, name, group_type_index, property_type, is_numerical FROM property_definitions"
        )
    )
    assert rows == [
        (1, "amount", -1, "Numeric", 1),
        (1, "at", -1, "DateTime", 0),
        (1, "count", -1, "Numeric", 1),
        (1, "day", -1, "DateTime", 0),
        (1, "flag", -1, "Boolean", 0),
        (1, "later", -1, "Numeric", 1),
        (1, "name", -1, "String", 0),
        (1, "utm_source", -1, "String", 0),
        (1, "yes", -1, "Boolean", 0),
        (2, "first_seen", -1, "DateTime", 0),
        (2, "plan", -1, "String", 0),
    ]


def test_created_at_is_the_server_clock_not_the_time_of_receipt(conn, world):
    ingest(
        conn, world, [{"event": "a", "distinct_id": "u"}], now=datetime(2020, 1, 1, tzinfo=UTC), received_at=RECEIVED
    )
    assert stored(conn, "timestamp", "created_at") == [(RECEIVED_US, micros("2020-01-01T00:00:00+00:00"))]


def test_callers_objects_are_not_changed(conn, world):
    properties = {"plan": "pro", "$set": {"a": 1}}
    event = {"event": "a", "distinct_id": "u", "properties": properties, "$set": {"b": 2}}
    ingest(conn, world, [event])
    assert properties == {"plan": "pro", "$set": {"a": 1}}
    stored_properties = json.loads(stored(conn, "properties")[0][0])
    assert stored_properties["$set"] == {"a": 1, "b": 2}


def fail_on_b(event, config):
    if event["event"] == "b":
        raise ValueError("cannot handle b")
    return {**event, "properties": {**event["properties"], "seen": True}}


FAILING = Plugin(id=92, slug="fail-on-b", name="Fail on b", description="", tag="0", process_event=fail_on_b)


def test_a_plugin_error_is_recorded_on_its_config_and_the_event_is_still_stored(conn, world, monkeypatch):
    config_id = add_config(conn, world.project_id, 2, order=1)
    configured = [ConfiguredPlugin(config_id=config_id, plugin=FAILING, config={})]
    monkeypatch.setattr(ingest_module, "load_enabled_plugins", lambda connection, project_id: configured)
    report = ingest(
        conn, world, [{"event": "a", "distinct_id": "u"}, {"event": "b", "distinct_id": "u", "uuid": UUID_B}]
    )
    assert (report.accepted, report.dropped) == (2, 0)
    # the failing plugin leaves the event as it was; the other event went through it
    assert stored(conn, "event", "properties") == [("a", '{"seen":true}'), ("b", "{}")]
    error = json.loads(conn.execute("SELECT error FROM plugin_configs WHERE id = ?", (config_id,)).fetchone()[0])
    assert error == {
        "message": "cannot handle b",
        "time": "2026-01-15T12:00:00.000000Z",
        "name": "ValueError",
        "event_uuid": UUID_B,
        "event": "b",
    }
    counts = conn.execute(
        "SELECT SUM(successes), SUM(failures) FROM plugin_config_metrics WHERE plugin_config_id = ?", (config_id,)
    ).fetchone()
    assert tuple(counts) == (1, 1)


def test_duplicates_do_not_reach_the_plugins(conn, world, monkeypatch):
    config_id = add_config(conn, world.project_id, 2, order=1)
    configured = [ConfiguredPlugin(config_id=config_id, plugin=FAILING, config={})]
    monkeypatch.setattr(ingest_module, "load_enabled_plugins", lambda connection, project_id: configured)
    event = {"event": "a", "distinct_id": "u", "uuid": UUID_B}
    ingest(conn, world, [event])
    ingest(conn, world, [event])
    successes = conn.execute(
        "SELECT SUM(successes) FROM plugin_config_metrics WHERE plugin_config_id = ?", (config_id,)
    ).fetchone()[0]
    assert successes == 1


def test_run_plugins_false_skips_the_pipeline(conn, world):
    add_config(conn, world.project_id, 2, order=1, config={"defaultNamingConvention": "snake_case"})
    ingest(conn, world, [{"event": "Signed Up", "distinct_id": "u"}], run_plugins=False)
    ingest(conn, world, [{"event": "Signed Up", "distinct_id": "u"}])
    assert stored(conn, "event") == [("Signed Up",), ("signed_up",)]


def test_circular_properties_from_a_python_caller_are_rejected_not_fatal(conn, world):
    circular: dict = {}
    circular["self"] = circular
    report = ingest(conn, world, [{"event": "x", "distinct_id": "a", "properties": {"loop": circular}}])
    assert report.rejections == [{"index": 0, "reason": "properties are not valid JSON: nested too deeply or circular"}]
    assert stored(conn, "event") == []


def test_an_event_name_of_exactly_400_characters_is_kept(conn, world):
    assert ingest(conn, world, [{"event": "x" * 400, "distinct_id": "a"}]).accepted == 1
