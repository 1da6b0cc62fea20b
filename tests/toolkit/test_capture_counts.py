"""`CaptureResult` reports what the server answered for every batch: stored, already stored, dropped, rejected.

Through the local backend in the test process; against a PostHog-like answer (``{"status": 1}`` only) the
counts the server does not give stay unknown (None) instead of being guessed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd
import pytest

from toolkit import CaptureResult, Client

from .inprocess import in_process_app, in_process_client

TOKEN = "phc_projecttoken"


@pytest.fixture
def analyst(db_path, clock, world) -> Iterator[Client]:
    with in_process_app(db_path, clock) as app:
        yield in_process_client(app, world.key, world.project_id)


def _rows(count: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "event": ["signup"] * count,
            "distinct_id": [f"user{number}" for number in range(count)],
            "timestamp": pd.date_range("2026-01-05 10:00", periods=count, freq="min"),
        }
    )


def test_loading_the_same_rows_again_counts_them_as_duplicates_over_every_batch(analyst):
    first = analyst.load_events(_rows(50), batch_size=20, progress=False)
    again = analyst.load_events(_rows(50), batch_size=20, progress=False)
    assert (first.sent, first.accepted, first.duplicates, first.dropped, first.rejected) == (50, 50, 0, 0, 0)
    assert (again.sent, again.accepted, again.duplicates, again.dropped, again.rejected) == (50, 0, 50, 0, 0)
    assert repr(again) == (
        "CaptureResult(sent=50, accepted=0, duplicates=50, dropped=0, rejected=0): 0 stored, 50 already stored"
    )


def test_events_a_plugin_drops_are_counted_as_dropped(analyst):
    plugins = analyst.plugins()
    bot_filter = int(plugins.loc[plugins["name"] == "Bot Filter", "id"].iloc[0])
    analyst.create_plugin_config(bot_filter, order=1, enabled=True)
    agents = ["Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0", "Googlebot/2.1", "Mozilla/5.0 Safari/605", "Googlebot"]
    frame = pd.DataFrame(
        {
            "event": ["$pageview"] * 4,
            "distinct_id": ["ann", "crawler", "bob", "crawler"],
            "timestamp": ["2026-01-05T10:00:00Z"] * 4,
            "$raw_user_agent": agents,
        }
    )
    result = analyst.capture_frame(frame, progress=False)
    assert (result.accepted, result.duplicates, result.dropped, result.rejected) == (2, 0, 2, 0)
    assert result.summary() == "2 stored, 2 dropped by plugins"


def test_rows_the_server_rejects_are_named_by_their_row(analyst):
    frame = pd.DataFrame(
        {
            "event": ["signup", None, "signup", "x" * 500, "signup"],
            "distinct_id": ["ann", "bob", "cy", "dee", "eve"],
            "timestamp": ["2026-01-05T10:00:00Z", "2026-01-05T10:00:00Z", "not a time", "2026-01-05T11:00:00Z", None],
        }
    )
    result = analyst.capture_frame(frame, batch_size=1, progress=False)
    # rows 1 and 2 are not sent; the server refuses row 3's name: 2 stored of 3 sent, 3 rejected
    assert (result.sent, result.accepted, result.duplicates, result.dropped, result.rejected) == (3, 2, 0, 0, 3)
    assert result.errors[:2] == ["row 1: no event name", "row 2: timestamp 'not a time' is not a date-time"]
    assert result.errors[2].startswith("row 3: event name is longer than")
    assert len(result.errors) == 3


def test_an_answer_without_counts_leaves_them_unknown(client, fake):
    # PostHog's capture API answers {"status": 1}: the events were received, their fate is decided later
    fake.routes[("POST", "/batch/")] = [(200, {"status": 1}), (200, {"status": 1})]
    result = client.capture_frame(_rows(3), batch_size=2, token=TOKEN, progress=False)
    assert (result.sent, result.accepted, result.duplicates, result.dropped, result.rejected) == (
        3,
        None,
        None,
        None,
        0,
    )
    assert not result.counted
    assert result.summary() == "3 received (the server gives no counts)"


def test_one_batch_without_counts_makes_the_totals_unknown(client, fake):
    counted = {"status": 1, "accepted": 2, "duplicates": 0, "rejected": 0, "dropped": 0, "rejections": []}
    fake.routes[("POST", "/batch/")] = [(200, counted), (200, {"status": 1})]
    result = client.capture_frame(_rows(3), batch_size=2, token=TOKEN, progress=False)
    assert (result.sent, result.accepted, result.duplicates, result.dropped) == (3, None, None, None)


def test_an_empty_frame_stores_nothing(client, fake):
    result = client.capture_frame(_rows(0), token=TOKEN, progress=False)
    assert result == CaptureResult(sent=0, accepted=0, duplicates=0, dropped=0, rejected=0)
    assert fake.calls == []
