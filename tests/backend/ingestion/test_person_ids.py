"""Person ids are handed out once: a person merged away keeps its id from new users (on SQLite; ClickHouse in
``clickhouse/test_write_journal.py``)."""

from __future__ import annotations

from datetime import UTC, datetime

from local_backend.ingestion import ingest_events
from local_backend.store.projects import get_project

RECEIVED = datetime(2026, 1, 15, 12, 0, 0, tzinfo=UTC)


def test_a_person_merged_away_keeps_its_id_from_new_users(conn, world):
    project = get_project(conn, world.project_id)

    def ingest(*events: dict) -> None:
        ingest_events(conn, project, list(events), now=RECEIVED)

    ingest({"event": "$pageview", "distinct_id": "anon"}, {"event": "$pageview", "distinct_id": "user"})
    ingest({"event": "$identify", "distinct_id": "anon", "properties": {"$anon_distinct_id": "user"}})
    ingest({"event": "$pageview", "distinct_id": "carol"})
    assert dict(conn.execute("SELECT distinct_id, person_id FROM person_distinct_ids")) == {
        "anon": 1, "user": 1, "carol": 3,
    }  # fmt: skip
    assert [row[0] for row in conn.execute("SELECT id FROM persons ORDER BY id")] == [1, 3]
