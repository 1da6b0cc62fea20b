"""Property keys and values the capture API stores, however awkward, read back by every engine.

Each key of :data:`KEYS` (JSON path syntax, escapes, control characters, NUL, non-ASCII, a long key) is sent
through ``/batch/`` on two events with different values and once as a person property (``$set``); then the
trends API filters (``is_set``, ``exact``) and breaks down by it, and ``events/values`` lists its values. The
expected numbers follow from the events alone: the key is on two of three events of its own name, each value
once.
"""

from __future__ import annotations

from typing import Any

import pytest

KEYS: dict[str, str] = {
    "backslash": "a\\b",
    "newline": "line\nbreak",
    "tab": "a\tb",
    "quote": 'say "hi"',
    "dot": "a.b",
    "brackets": "a[0]",
    "closing bracket": "a]",
    "dollar": "$.x",
    "star": "*",
    "spaces": "  ",
    "unicode": "clé 日本 \u2028",
    "control": "bell\x07",
    "long": "k" * 400,
}
NUL_KEY = "a\x00b"
"""Stored by capture and listed by ``events/values``; a filter refuses it (a 400 naming the key)."""
VALUES = ("plain", "x\x00y", "ün\\i\ncode", 'q"uote')
"""Two of these per key (turn by turn), so each value is read under several keys."""
NULL = "$$_posthog_breakdown_null_$$"


def _keys() -> list[tuple[str, str]]:
    return [*KEYS.items(), ("nul", NUL_KEY)]


def _values(index: int) -> tuple[str, str]:
    return VALUES[index % len(VALUES)], VALUES[(index + 1) % len(VALUES)]


@pytest.fixture
def captured(client, world) -> dict[str, str]:
    """Per key label, the event name its events carry; events of key ``i`` are named ``k<i>``."""
    batch: list[dict[str, Any]] = []
    names = {}
    for index, (label, key) in enumerate(_keys()):
        name = f"k{index}"
        names[label] = name
        first, second = _values(index)
        batch += [
            {"event": name, "distinct_id": f"u{index}", "properties": {key: first, "$set": {key: first}}},
            {"event": name, "distinct_id": f"v{index}", "properties": {key: second}},
            {"event": name, "distinct_id": f"w{index}", "properties": {"other": first}},
        ]
    timestamps = {"timestamp": "2026-01-15T10:00:00Z"}
    answer = client.post(
        "/batch/", json={"api_key": world.project_token, "batch": [{**e, **timestamps} for e in batch]}
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["accepted"] == len(batch)
    return names


def _trend(client, world, name: str, **extra: Any) -> dict[str, float]:
    body = {"events": [{"id": name}], "date_from": "2026-01-14", "date_to": "2026-01-15", **extra}
    answer = client.post(f"/api/projects/{world.project_id}/insights/trend/", json=body, headers=world.headers())
    assert answer.status_code == 200, answer.text
    return {series.get("breakdown_value", "all"): series["count"] for series in answer.json()["result"]}


def _count(client, world, name: str, prop: dict[str, Any]) -> float:
    return _trend(client, world, name, properties=[prop]).get("all", 0.0)


def test_event_properties_with_awkward_keys(client, world, captured, engine):
    got, expected = {}, {}
    for index, (label, key) in enumerate(KEYS.items()):
        name = captured[label]
        first, second = _values(index)
        got[label] = {
            "is_set": _count(client, world, name, {"key": key, "operator": "is_set", "value": "is_set"}),
            "is_not_set": _count(client, world, name, {"key": key, "operator": "is_not_set", "value": "x"}),
            "exact": _count(client, world, name, {"key": key, "value": second}),
            "exact truncated": _count(client, world, name, {"key": key, "value": second.split("\x00")[0]}),
            "breakdown": _trend(client, world, name, breakdown=key),
        }
        expected[label] = {
            "is_set": 2.0,
            "is_not_set": 1.0,
            "exact": 1.0,
            "exact truncated": 0.0 if "\x00" in second else 1.0,
            "breakdown": {first: 1.0, second: 1.0, NULL: 1.0},
        }
    assert got == expected


def test_values_of_awkward_keys(client, world, captured, engine):
    got, expected = {}, {}
    for index, (label, key) in enumerate(_keys()):
        answer = client.get(
            f"/api/projects/{world.project_id}/events/values/",
            params={"key": key, "event_name": captured[label]},
            headers=world.headers(),
        )
        got[label] = (answer.status_code, sorted(item["name"] for item in answer.json()) if answer.is_success else None)
        expected[label] = (200, sorted(_values(index)))
    assert got == expected


def test_person_properties_with_awkward_keys(client, world, captured, engine):
    got, expected = {}, {}
    for index, (label, key) in enumerate(KEYS.items()):
        name = captured[label]
        first, _ = _values(index)
        person = {"key": key, "type": "person"}
        got[label] = {
            "is_set": _count(client, world, name, {**person, "operator": "is_set", "value": "is_set"}),
            "exact": _count(client, world, name, {**person, "value": first}),
            "breakdown": _trend(client, world, name, breakdown=key, breakdown_type="person"),
        }
        expected[label] = {"is_set": 1.0, "exact": 1.0, "breakdown": {first: 1.0, NULL: 2.0}}
    assert got == expected


def test_a_filter_on_a_key_holding_nul_is_a_400(client, world, captured, engine):
    body = {"events": [{"id": captured["nul"]}], "properties": [{"key": NUL_KEY, "operator": "is_set"}]}
    answer = client.post(f"/api/projects/{world.project_id}/insights/trend/", json=body, headers=world.headers())
    assert answer.status_code == 400
    assert answer.json()["attr"] == "properties__0__key"


def test_a_value_holding_nul_matches_under_a_hot_key(client, world, engine):
    # $browser is read from its own column on SQLite, which holds the value as SQLite's JSON functions read it
    batch = [
        {"event": "seen", "distinct_id": "a", "properties": {"$browser": "Fire\x00fox"}},
        {"event": "seen", "distinct_id": "b", "properties": {"$browser": "Firefox"}},
    ]
    stamped = [{**event, "timestamp": "2026-01-15T10:00:00Z"} for event in batch]
    assert client.post("/batch/", json={"api_key": world.project_token, "batch": stamped}).status_code == 200
    assert _count(client, world, "seen", {"key": "$browser", "value": "Fire\x00fox"}) == 1
    assert _count(client, world, "seen", {"key": "$browser", "value": ["Firefox", "Fire\x00fox"]}) == 2


def test_the_keys_seen_on_events_are_the_stored_keys(client, world, captured, conn, engine):
    from local_backend.store.definitions import properties_seen_on_events

    for index, (_, key) in enumerate(_keys()):
        assert properties_seen_on_events(conn, world.project_id, [f"k{index}"]) == {key, "other", "$set"}


def test_an_array_under_an_awkward_key_reads_as_stored(client, world, engine):
    # the stored text, numbers as written (1.0 keeps its point), on ClickHouse as on SQLite
    batch = [
        {"event": f"a{index}", "distinct_id": "a", "properties": {key: [1.0, "é", {"k": None}]}}
        for index, key in enumerate(KEYS.values())
    ]
    stamped = [{**event, "timestamp": "2026-01-15T10:00:00Z"} for event in batch]
    assert client.post("/batch/", json={"api_key": world.project_token, "batch": stamped}).status_code == 200
    got = {label: _trend(client, world, f"a{index}", breakdown=key) for index, (label, key) in enumerate(KEYS.items())}
    assert got == {label: {'[1.0,"é",{"k":null}]': 1.0} for label in KEYS}
