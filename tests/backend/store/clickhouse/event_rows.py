"""A few hand-written rows of the events and persons tables, as Arrow, for the ClickHouse client tests."""

from __future__ import annotations

import pyarrow as pa

__all__ = ["AWKWARD", "DAY", "EVENTS", "PERSONS", "OVERRIDES", "T0", "events_table"]

AWKWARD = 'it\'s "C:\\new\\table"\twith `ticks`\nand \\N and {curly:String}'
EVENT_TYPES: dict[str, pa.DataType] = {
    "project_id": pa.int64(),
    "person_id": pa.int64(),
    "timestamp": pa.int64(),
    "created_at": pa.int64(),
}
DAY = 86_400_000_000
T0 = 1_700_000_000_000_000  # 2023-11-14 22:13:20 UTC


def events_table(rows: list[tuple[str, str, str, int, int, str]]) -> pa.Table:
    """Arrow rows of the events table: (uuid, event, distinct_id, person_id, timestamp, properties)."""
    columns = {
        "project_id": [1] * len(rows),
        "uuid": [row[0] for row in rows],
        "event": [row[1] for row in rows],
        "distinct_id": [row[2] for row in rows],
        "person_id": [row[3] for row in rows],
        "timestamp": [row[4] for row in rows],
        "created_at": [row[4] for row in rows],
        "properties": [row[5] for row in rows],
        "elements_chain": [""] * len(rows),
    }
    return pa.table(
        {name: pa.array(values, type=EVENT_TYPES.get(name, pa.string())) for name, values in columns.items()}
    )


EVENTS = events_table(
    [
        ("u1", "$pageview", "alice", 1, T0, '{"$browser": "Chrome", "path": "/"}'),
        ("u2", "$pageview", "alice", 1, T0 + 60_000_000, '{"$browser": "Chrome", "path": "/pricing"}'),
        ("u3", "signup", "alice", 1, T0 + DAY, '{"plan": "pro"}'),
        (
            "u4",
            "$pageview",
            "bob",
            2,
            T0 + DAY,
            '{"$browser": "Firefox", "path": "' + AWKWARD.replace('"', '\\"') + '"}',
        ),
        ("u5", AWKWARD, "bob", 2, T0 + 2 * DAY, "{}"),
        ("u6", "$pageview", "carol", 3, T0 + 2 * DAY, '{"$browser": "Safari", "$session_id": "s1"}'),
    ]
)


PERSONS = pa.table(
    {
        "project_id": pa.array([1, 1, 1, 1], pa.int64()),
        "id": pa.array([1, 2, 3, 1], pa.int64()),
        "uuid": ["p-1", "p-2", "p-3", "p-1"],
        "properties": ['{"email": "a@x"}', '{"email": "b@x"}', '{"email": "c@x"}', '{"email": "alice@x"}'],
        "created_at": pa.array([T0, T0, T0, T0], pa.int64()),
        "version": pa.array([0, 0, 0, 1], pa.int64()),
    }
)
OVERRIDES = pa.table(  # bob (2) was merged into carol (3)
    {
        "project_id": pa.array([1], pa.int64()),
        "old_person_id": pa.array([2], pa.int64()),
        "person_id": pa.array([3], pa.int64()),
        "version": pa.array([1], pa.int64()),
    }
)
