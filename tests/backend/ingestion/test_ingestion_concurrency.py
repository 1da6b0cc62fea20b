"""The single writer path: concurrent ingestion never fails with "database is locked" and loses nothing."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

from local_backend.ingestion import ingest_events
from local_backend.store.db import transaction
from local_backend.store.engine.choice import open_database
from local_backend.store.projects import get_project

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
THREADS, BATCHES, PER_BATCH = 8, 15, 40


def test_concurrent_writers_each_on_their_own_connection_store_every_event(db_path, conn, world):
    project = get_project(conn, world.project_id)
    errors: list[BaseException] = []
    acknowledged = [0] * THREADS
    start = threading.Barrier(THREADS)

    def writer(number: int) -> None:
        own = open_database(db_path)
        try:
            start.wait()
            for batch in range(BATCHES):
                events = [
                    # every thread also touches the shared person "everyone", so person writes contend too
                    {"event": "e", "distinct_id": f"t{number}" if i % 2 else "everyone",
                     "properties": {"$set": {f"t{number}": batch}},
                     "uuid": f"00000000-0000-7000-8000-{number:04d}{batch:04d}{i:04d}"}
                    for i in range(PER_BATCH)
                ]  # fmt: skip
                acknowledged[number] += ingest_events(own, project, events, now=NOW).accepted
        except BaseException as error:  # collected and asserted below: a thread's exception must fail the test
            errors.append(error)
        finally:
            own.close()

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    total = THREADS * BATCHES * PER_BATCH
    assert sum(acknowledged) == total
    assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == total
    # one person per thread id plus the shared one, never two persons for one distinct id
    assert conn.execute("SELECT COUNT(*) FROM persons").fetchone()[0] == THREADS + 1
    assert conn.execute("SELECT COUNT(*) FROM person_distinct_ids").fetchone()[0] == THREADS + 1
    volume = conn.execute("SELECT volume FROM event_definitions WHERE name = 'e'").fetchone()[0]
    assert volume == total


def test_ingestion_waits_for_another_writer_instead_of_failing(db_path, conn, world):
    """A writer outside ingestion (another connection holding the write lock) delays ingestion, no error."""
    project = get_project(conn, world.project_id)
    holder = open_database(db_path)
    result: list[object] = []

    def ingest() -> None:
        own = open_database(db_path)
        try:
            result.append(ingest_events(own, project, [{"event": "e", "distinct_id": "u"}], now=NOW).accepted)
        except BaseException as error:
            result.append(error)
        finally:
            own.close()

    with transaction(holder):
        holder.execute("UPDATE projects SET name = name WHERE id = ?", (world.project_id,))
        thread = threading.Thread(target=ingest)
        thread.start()
        thread.join(timeout=0.5)
        assert thread.is_alive()  # waiting on the lock, not failed
    thread.join(timeout=30)
    holder.close()
    assert result == [1]
