"""Person counts on ClickHouse with and without merges: a project without override rows skips the join through
``person_overrides``, one with them maps each event to the person it belongs to now.

    project Plain                          project Merged
    alice  $pageview  Jan 10 10:00         dave   $pageview  Jan 10 09:00
    alice  $pageview  Jan 10 11:00         davy   $pageview  Jan 11 09:00   (davy is merged into dave)
    bob    $pageview  Jan 10 12:00         erin   $pageview  Jan 11 10:00
    bob    $pageview  Jan 11 12:00
    carol  $pageview  Jan 11 13:00

Daily persons: Plain Jan 10 alice, bob = 2; Jan 11 bob, carol = 2; both days alice, bob, carol = 3.
Merged Jan 10 dave = 1; Jan 11 dave (as davy), erin = 2; both days dave, erin = 2 (3 without the merge).
"""

from __future__ import annotations

from typing import Any

import pytest

from local_backend.store.engine.clickhouse.client import ChdbClient
from local_backend.store.engine.clickhouse.event_store import ClickHouseEventStore
from local_backend.store.engine.interface import ActiveActors, Measure, SpanAggregate
from local_backend.store.projects import create_project
from tests.backend.store.clickhouse.mirror import insert_rows, mirror
from tests.backend.store.test_event_store import DAYS, EVERYTHING, at
from tests.factories import add_events

PLAIN = [
    ("$pageview", "alice", "2026-01-10T10:00:00Z"),
    ("$pageview", "alice", "2026-01-10T11:00:00Z"),
    ("$pageview", "bob", "2026-01-10T12:00:00Z"),
    ("$pageview", "bob", "2026-01-11T12:00:00Z"),
    ("$pageview", "carol", "2026-01-11T13:00:00Z"),
]
MERGED = [
    ("$pageview", "dave", "2026-01-10T09:00:00Z"),
    ("$pageview", "davy", "2026-01-11T09:00:00Z"),
    ("$pageview", "erin", "2026-01-11T10:00:00Z"),
]
DISTINCT = Measure(aggregate="count(DISTINCT e.person_id)")


class Recording:
    """The client, keeping the text of every query run through it."""

    def __init__(self, client: ChdbClient) -> None:
        self.client = client
        self.texts: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)

    def query_rows(self, text: str, params: Any = None, *, timeout: float | None = None) -> Any:
        self.texts.append(text)
        return self.client.query_rows(text, params, timeout=timeout)

    def query_arrow(self, text: str, params: Any = None, *, timeout: float | None = None) -> Any:
        self.texts.append(text)
        return self.client.query_arrow(text, params, timeout=timeout)


@pytest.fixture
def projects(conn, ch_client) -> tuple[int, int, dict[str, int]]:
    plain = int(create_project(conn, name="Plain", timezone="UTC", now="2026-01-15T12:00:00Z")["id"])
    merged = int(create_project(conn, name="Merged", timezone="UTC", now="2026-01-15T12:00:00Z")["id"])
    people = {**add_events(conn, plain, PLAIN), **add_events(conn, merged, MERGED)}
    mirror(conn, ch_client)
    merge(ch_client, merged, people["davy"], people["dave"])
    return plain, merged, people


def merge(client: ChdbClient, project_id: int, old: int, new: int) -> None:
    """A merge as ClickHouse records it: events keep the old person, an override row maps it to the new one."""
    insert_rows(client, "person_overrides", ("project_id", "old_person_id", "person_id", "version"),
                [(project_id, old, new, 1)])  # fmt: skip


def counts(store: ClickHouseEventStore, project_id: int) -> tuple[list[float], float, list[tuple[int, int]]]:
    """Persons per day, persons over Jan 10-11, and the (day, person) pairs active."""
    daily = store.aggregate_spans(SpanAggregate(project_id=project_id, spans=DAYS, where=EVERYTHING, measure=DISTINCT))
    both = store.aggregate_spans(
        SpanAggregate(project_id=project_id, spans=[(at(10), at(12))], where=EVERYTHING, measure=DISTINCT)
    )
    active = store.active_actors(ActiveActors(project_id=project_id, spans=DAYS, where=EVERYTHING, actor="e.person_id"))
    return (
        [daily.get((day, None), 0) for day in range(len(DAYS))],
        both[(0, None)],
        sorted((int(day), int(person)) for day, _, person in active),
    )


def test_a_project_without_merges_counts_its_persons_without_the_overrides_join(conn, ch_client, projects):
    plain, _, people = projects
    client = Recording(ch_client)
    daily, both, active = counts(ClickHouseEventStore(conn, client), plain)
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    assert daily == [2, 2, 0]
    assert both == 3
    assert active == sorted([(0, alice), (0, bob), (1, bob), (1, carol)])
    statements = [text for text in client.texts if "e.person_id" in text]
    assert len(statements) == 3
    assert not any("AS ov" in text for text in statements)


def test_a_project_with_a_merge_counts_the_merged_persons_once(conn, ch_client, projects):
    _, merged, people = projects
    client = Recording(ch_client)
    daily, both, active = counts(ClickHouseEventStore(conn, client), merged)
    dave, erin = people["dave"], people["erin"]
    assert daily == [1, 2, 0]
    assert both == 2
    assert active == sorted([(0, dave), (1, dave), (1, erin)])
    statements = [text for text in client.texts if "e.person_id" in text]
    assert len(statements) == 3
    assert all("AS ov" in text for text in statements)


def test_a_merge_written_between_two_calculations_is_seen_by_the_second(conn, ch_client, projects):
    plain, _, people = projects
    assert counts(ClickHouseEventStore(conn, ch_client), plain)[:2] == ([2, 2, 0], 3)
    merge(ch_client, plain, people["bob"], people["alice"])
    alice, carol = people["alice"], people["carol"]
    # bob's events are alice's now: Jan 10 alice = 1; Jan 11 alice (as bob), carol = 2; both days 2
    assert counts(ClickHouseEventStore(conn, ch_client), plain) == ([1, 2, 0], 2, [(0, alice), (1, alice), (1, carol)])
