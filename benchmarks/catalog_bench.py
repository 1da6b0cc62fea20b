"""Rows per second through the catalog's reads, against plain Python over the same rows.

    python benchmarks/catalog_bench.py [--events 300000] [--persons 30000]

Builds a throw-away project, then times: a property-based cohort's count (persons/s, against json.loads and
a comparison in Python for every person), resolving a static cohort's distinct ids (ids/s, against a dict
built from the whole id table), the event_names property sample (events/s, against json.loads of the same
sample), and one page of the events list, unfiltered and by event name (against the bare SELECT of the
page's rows). Run it on a quiet machine; numbers from a shared machine are indicative only.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from local_backend.queries.cohort_members import cohort_count
from local_backend.store.cohorts import resolve_person_ids
from local_backend.store.db import transaction
from local_backend.store.definitions import EVENT_SAMPLE_SIZE, properties_seen_on_events
from local_backend.store.engine.choice import open_database
from local_backend.store.event_rows import EventRow, insert_events, to_micros
from local_backend.store.listed_events import list_events
from local_backend.store.migrations import migrate
from local_backend.store.projects import create_project

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
NAMES = ["$pageview", "signup", "purchase", "$autocapture"]
PLANS = ["free", "pro", "team", None]


def build(path: Path, events: int, persons: int, seed: int = 7) -> int:
    migrate(path)
    conn = open_database(path)
    project_id = int(create_project(conn, name="bench", timezone="UTC", now="2026-01-15T12:00:00Z")["id"])
    rng = random.Random(seed)
    with transaction(conn):
        people = []
        for n in range(persons):
            properties = {"email": f"user{n}@example.com", "seats": rng.randrange(1, 100)}
            plan = rng.choice(PLANS)
            if plan is not None:
                properties["plan"] = plan
            people.append((n + 1, project_id, f"person-{n}", json.dumps(properties)))
        conn.executemany(
            "INSERT INTO persons (id, project_id, uuid, properties, created_at) VALUES (?, ?, ?, ?, 0)", people
        )
        conn.executemany(
            "INSERT INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES (?, ?, ?)",
            [(project_id, f"d{n + 1}", n + 1) for n in range(persons)],
        )
        start = NOW - timedelta(days=30)
        rows = []
        for _ in range(events):
            person = rng.randrange(persons) + 1
            name = rng.choice(NAMES)
            rows.append(
                EventRow(
                    project_id=project_id,
                    event=name,
                    distinct_id=f"d{person}",
                    person_id=person,
                    timestamp=to_micros(start + timedelta(seconds=rng.randrange(30 * 86_400))),
                    properties={"$current_url": "/x", f"{name}_only": 1, "n": rng.randrange(1000)},
                )
            )
        insert_events(conn, rows)
    conn.execute("ANALYZE")
    conn.close()
    return project_id


def timed(label: str, run: Callable[[], object], rows: int, unit: str) -> float:
    started = time.perf_counter()
    run()
    seconds = time.perf_counter() - started
    print(f"{label:<44} {seconds:8.4f} s  {rows / seconds:14,.0f} {unit}/s")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=300_000)
    parser.add_argument("--persons", type=int, default=30_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.db"
        project_id = build(path, args.events, args.persons)
        conn = open_database(path)
        rule = {
            "type": "AND",
            "values": [
                {"key": "plan", "value": ["pro", "team"], "type": "person"},
                {"key": "seats", "operator": "gte", "value": 10, "type": "person"},
            ],
        }
        cohort = {"id": 0, "project_id": project_id, "is_static": False, "filters": {"properties": rule}}

        def by_python() -> int:
            count = 0
            for (text,) in conn.execute("SELECT properties FROM persons WHERE project_id = ?", (project_id,)):
                props = json.loads(text)
                count += props.get("plan") in ("pro", "team") and props.get("seats", 0) >= 10
            return count

        print(f"{args.events:,} events, {args.persons:,} persons")
        ours = timed("cohort count (property rules)", lambda: cohort_count(conn, cohort), args.persons, "persons")
        ref = timed("  reference: json.loads + compare in Python", by_python, args.persons, "persons")
        assert cohort_count(conn, cohort) == by_python()
        print(f"  ratio {ours / ref:.2f}x the reference's time")

        wanted = [f"d{n}" for n in range(1, args.persons + 1, 3)] + ["missing"] * 10

        def by_dict() -> list[int]:
            table = dict(conn.execute("SELECT distinct_id, person_id FROM person_distinct_ids WHERE project_id = ?",
                                      (project_id,)).fetchall())  # fmt: skip
            return [table[d] for d in wanted if d in table]

        def resolve() -> object:
            return resolve_person_ids(conn, project_id, "distinct_id", wanted)

        ours = timed("static cohort: resolve distinct ids", resolve, len(wanted), "ids")
        ref = timed("  reference: dict of the whole id table", by_dict, len(wanted), "ids")
        print(f"  ratio {ours / ref:.2f}x the reference's time")

        sample = min(EVENT_SAMPLE_SIZE, args.events // len(NAMES))

        def keys_by_python() -> set[str]:
            keys: set[str] = set()
            for (text,) in conn.execute(
                "SELECT properties FROM events WHERE project_id = ? AND event = ? ORDER BY timestamp DESC LIMIT ?",
                (project_id, "signup", EVENT_SAMPLE_SIZE),
            ):
                keys.update(json.loads(text))
            return keys

        ours = timed("event_names sample (one name)",
                     lambda: properties_seen_on_events(conn, project_id, ["signup"]), sample, "events")  # fmt: skip
        ref = timed("  reference: json.loads of the same sample", keys_by_python, sample, "events")
        assert properties_seen_on_events(conn, project_id, ["signup"]) == keys_by_python()
        print(f"  ratio {ours / ref:.2f}x the reference's time")

        for label, where in (("events page, unfiltered", []), ("events page, event=purchase",
                                                               [("e.event = ?", ["purchase"])])):  # fmt: skip
            condition = " AND ".join(["e.project_id = ?", *(sql for sql, _ in where)])
            params = [project_id, *(p for _, ps in where for p in ps)]

            def bare(condition: str = condition, params: list = params) -> list:
                return conn.execute(f"SELECT * FROM events e WHERE {condition} ORDER BY e.timestamp DESC, e.id DESC"
                                    " LIMIT 101", params).fetchall()  # fmt: skip

            ours = timed(label, lambda where=where: list_events(conn, project_id, where=where, limit=101), 101, "rows")
            ref = timed("  reference: the bare SELECT of the page", bare, 101, "rows")
            print(f"  ratio {ours / ref:.2f}x the reference's time")
        conn.close()


if __name__ == "__main__":
    main()
