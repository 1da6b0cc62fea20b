"""Bulk load of hostile records: each bad event is rejected with its reason, the good ones of its batch stored.

The checks are capture's (``ingestion/wire.py`` and ``ingest._encode_properties``): text holding a lone UTF-16
surrogate cannot be stored as UTF-8, and properties nesting deeper than ``MAX_JSON_DEPTH`` would fail every read.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pandas as pd
import pytest

from local_backend.limits import MAX_JSON_DEPTH
from local_backend.loading import load_file, load_frame

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
WHEN = "2026-01-10T10:00:00Z"


def deep(levels: int) -> dict:
    value: dict = {}
    for _ in range(levels):
        value = {"a": value}
    return value


def line(event: str, who: str, **extra) -> str:
    # json.dumps writes a lone surrogate as the escape "\ud800", as a hostile or broken exporter would
    return json.dumps({"event": event, "distinct_id": who, "timestamp": WHEN, **extra})


def deep_text(levels: int) -> str:
    # written by hand: json.dumps itself recurses, and fails on what a hostile file can hold
    return '{"a":' * levels + "{}" + "}" * levels


HOSTILE = [
    (line("bad", "bob")[:-1] + f', "properties": {deep_text(10_000)}}}', "nests too deeply"),  # line 1: still read
    (line("kept", "alice"), None),
    (line("bad", "bob", properties={"note": "\ud800"}), "lone UTF-16 surrogate"),
    (line("bad", "bob", properties={"\udfff": 1}), "lone UTF-16 surrogate"),
    (line("bad\ud800", "bob"), "event name holds a lone UTF-16 surrogate"),
    (line("bad", "bob\ud800"), "distinct_id holds a lone UTF-16 surrogate"),
    (line("bad", "bob", properties=deep(MAX_JSON_DEPTH + 5)), f"nest more than {MAX_JSON_DEPTH} levels deep"),
    (line("bad", "bob", note="\ud800"), "lone UTF-16 surrogate"),  # a plain column holding one
    # with its own uuid no content hash encodes the text: the check must, or the insert fails the batch
    (
        line("bad", "bob", uuid="0190d5f6-0000-7000-8000-000000000001", properties={"n": "\ud800"}),
        "lone UTF-16 surrogate",
    ),
    (line("also kept", "carol", properties={"nested": deep(3), "text": "ok \u00e9"}), None),
]


def stored(conn, project_id: int) -> list[tuple[str, str, dict]]:
    rows = conn.execute(
        "SELECT event, distinct_id, properties FROM events WHERE project_id = ? ORDER BY event", (project_id,)
    ).fetchall()
    return [(r["event"], r["distinct_id"], json.loads(r["properties"])) for r in rows]


@pytest.fixture
def hostile_file(tmp_path):
    path = tmp_path / "hostile.jsonl"
    path.write_text("\n".join(text for text, _ in HOSTILE) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("parallel", [False, True])
def test_hostile_records_are_rejected_and_the_rest_of_the_batch_stored(conn, world, hostile_file, parallel):
    report = load_file(conn, world.project_id, hostile_file, now=NOW, parallel=parallel)
    assert (report.read, report.loaded, report.rejected) == (10, 2, 8)
    reasons = {item["row"]: item["reason"] for item in report.rejections}
    for row, (_, expected) in enumerate(HOSTILE, start=1):
        if expected is None:
            assert row not in reasons
        else:
            assert expected in reasons[row], (row, reasons.get(row))
    assert stored(conn, world.project_id) == [
        ("also kept", "carol", {"nested": deep(3), "text": "ok \u00e9"}),
        ("kept", "alice", {}),
    ]


def test_hostile_records_in_a_frame(conn, world):
    frame = pd.DataFrame(
        {
            "event": ["kept", "bad", "bad"],
            "distinct_id": ["alice", "bob", "bob"],
            "timestamp": [WHEN] * 3,
            "note": pd.Series(["fine", "\ud800", None], dtype=object),  # arrow strings cannot hold a surrogate
            "properties": [None, None, json.dumps(deep(MAX_JSON_DEPTH + 1))],
        }
    )
    report = load_frame(conn, world.project_id, frame, now=NOW)
    assert (report.read, report.loaded, report.rejected) == (3, 1, 2)
    assert stored(conn, world.project_id) == [("kept", "alice", {"note": "fine"})]


def test_hostile_records_through_plugins(conn, world, hostile_file, monkeypatch):
    # a project with an enabled plugin loads through ingest_events, which applies the same checks
    import local_backend.loading.loader as loader

    monkeypatch.setattr(loader, "_plugins_enabled", lambda conn, project: True)
    report = load_file(conn, world.project_id, hostile_file, now=NOW, parallel=False)
    assert (report.read, report.loaded, report.rejected) == (10, 2, 8)
