"""capture_frame sends rows through POST /batch/ with the project token, in batches, and counts them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from toolkit.capture import frame_to_events

TOKEN = "phc_projecttoken"


@pytest.fixture
def events_df():
    return pd.DataFrame(
        {
            "event": ["signup", "purchase", None, "purchase", "$pageview"],
            "distinct_id": ["ann", "ann", "bob", np.nan, "cy"],
            "timestamp": pd.to_datetime(
                ["2026-01-05 10:00", "2026-01-05 11:30", "2026-01-05 12:00", "2026-01-06 09:00", "2026-01-06 10:00"]
            ),
            "amount": [np.nan, 49.5, 3.0, 10.0, np.nan],
            "plan": pd.array(["pro", None, "free", "free", "pro"], dtype="string"),
        }
    )


def test_rows_become_capture_events(events_df):
    events, errors = frame_to_events(events_df)
    assert errors == ["row 2: no event name", "row 3: no distinct_id"]
    assert [(e["event"], e["distinct_id"], e["timestamp"], e["properties"]) for e in events] == [
        ("signup", "ann", "2026-01-05T10:00:00Z", {"plan": "pro"}),
        ("purchase", "ann", "2026-01-05T11:30:00Z", {"amount": 49.5}),
        ("$pageview", "cy", "2026-01-06T10:00:00Z", {"plan": "pro"}),
    ]


def test_uuids_are_stable_so_a_rerun_is_deduplicated(events_df):
    first, _ = frame_to_events(events_df)
    again, _ = frame_to_events(events_df.copy())
    assert [e["uuid"] for e in first] == [e["uuid"] for e in again]
    assert len({e["uuid"] for e in first}) == 3


def test_identical_rows_stay_distinct():
    df = pd.DataFrame(
        {"event": ["click", "click"], "distinct_id": ["u", "u"], "timestamp": ["2026-01-01T00:00:00Z"] * 2}
    )
    events, _ = frame_to_events(df)
    assert events[0]["uuid"] != events[1]["uuid"]


def test_timezone_aware_timestamps_are_sent_in_utc_and_properties_column_merges():
    df = pd.DataFrame(
        {
            "event": ["x"],
            "distinct_id": [7],
            "timestamp": [pd.Timestamp("2026-01-01 01:00", tz="Europe/Paris")],
            "properties": [{"$browser": "Firefox"}],
            "uuid": ["0190d3c6-0000-7000-8000-000000000001"],
        }
    )
    (event,), _ = frame_to_events(df)
    assert event == {
        "event": "x",
        "distinct_id": "7",
        "properties": {"$browser": "Firefox"},
        "timestamp": "2026-01-01T00:00:00Z",
        "uuid": "0190d3c6-0000-7000-8000-000000000001",
    }


def test_capture_frame_batches_and_counts(client, fake, events_df):
    fake.routes[("GET", "/api/projects/1/")] = (200, {"id": 1, "api_token": TOKEN})
    fake.routes[("POST", "/batch/")] = [(200, {"status": 1}), (200, {"status": 1})]
    result = client.capture_frame(events_df, batch_size=2, progress=False)
    # {"status": 1} says the events were received, not how many were stored
    assert (result.sent, result.accepted, result.rejected) == (3, None, 2)
    batches = [call for call in fake.calls if call.path == "/batch/"]
    assert [len(call.json["batch"]) for call in batches] == [2, 1]
    assert all(call.json["api_key"] == TOKEN for call in batches)
    # the capture API authenticates by project token, not by the personal key
    assert all("Authorization" not in call.headers for call in batches)


def test_refused_batch_and_server_counted_rejections(client, fake, events_df):
    fake.routes[("POST", "/batch/")] = [
        (
            400,
            {"type": "validation_error", "code": "invalid_payload", "detail": "Malformed request data", "attr": None},
        ),
        (200, {"status": 1, "rejected": 1}),
    ]
    result = client.load_events(events_df, batch_size=2, token=TOKEN, progress=False)
    assert (result.sent, result.accepted, result.rejected) == (1, None, 5)
    assert any("Malformed request data" in message for message in result.errors)
    assert not any(call.path == "/api/projects/1/" for call in fake.calls)


def test_missing_column_is_named(client):
    with pytest.raises(KeyError, match="distinct_id"):
        client.capture_frame(pd.DataFrame({"event": ["x"]}), token=TOKEN, progress=False)
