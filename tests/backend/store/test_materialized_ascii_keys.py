"""Materializing a property never changes an answer, whatever its key: a key outside printable ASCII is
refused with a 400 before anything is recorded, as the column's JSON path would miss the rows whose text
spells it otherwise (escaped, as here, or raw)."""

from __future__ import annotations

import pytest

from tests.factories import add_events

KEY = "clé"


def _count(client, world) -> float:
    body = {"events": [{"id": "seen"}], "date_from": "2026-01-10", "date_to": "2026-01-15",
            "properties": [{"key": KEY, "value": "x"}]}  # fmt: skip
    answer = client.post(f"/api/projects/{world.project_id}/insights/trend/", json=body, headers=world.headers())
    assert answer.status_code == 200, answer.text
    return answer.json()["result"][0]["count"]


@pytest.mark.parametrize("kind", ["event", "person"])
def test_a_key_outside_printable_ascii_is_refused(client, world, conn, kind):
    add_events(conn, world.project_id, [("seen", "a", "2026-01-14T10:00:00Z", {KEY: "x"})])
    assert _count(client, world) == 1
    path = f"/api/projects/{world.project_id}/materialized_properties/"
    made = client.post(path, json={"property": KEY, "type": kind}, headers=world.headers())
    assert _count(client, world) == 1
    assert made.status_code == 400, made.text
    assert made.json()["attr"] == "property"
    assert client.get(path, headers=world.headers()).json()["results"] == []
