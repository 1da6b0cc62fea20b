"""`Client.people` through the local backend in the test process: the persons behind a trend point, a
broken-down trend point, a stickiness bucket and a lifecycle interval, worked out by hand from the events of
`tests.toolkit.engagement_events` (its docstring has the table of who viewed when)."""

from __future__ import annotations

import pandas as pd
import pytest

from toolkit import Client, ValidationError
from toolkit.frames import PERSON_COLUMNS, stickiness_frame

from .engagement_events import RANGE


@pytest.fixture
def analyst(engagement_client: Client) -> Client:
    return engagement_client


def _who(people: pd.DataFrame) -> list[str]:
    return sorted(ids[0] for ids in people["distinct_ids"])


def _on(frame: pd.DataFrame, day: str, **equal: str) -> pd.DataFrame:
    keep = frame["date"] == pd.Timestamp(day, tz="UTC")
    for name, value in equal.items():
        keep &= frame[name] == value
    return frame[keep]


def test_the_people_behind_a_trend_point(analyst):
    frame = analyst.trend(events="view", **RANGE)
    # 6 January: ann at 10:00 and bob at 11:00 and 15:00, so 3 views by 2 persons
    row = frame.loc[1]
    assert row["value"] == 3
    people = analyst.people(row)
    assert list(people.columns) == list(PERSON_COLUMNS)
    assert _who(people) == ["ann", "bob"]
    # the same URL as text gives the same persons
    assert _who(analyst.people(frame.attrs["people_urls"][1])) == ["ann", "bob"]


def test_the_people_behind_a_broken_down_trend_point(analyst):
    frame = analyst.trend(events="view", breakdown="plan", **RANGE)
    # 8 January: ann (pro) at 10:00 and cy (free) at 12:00
    assert _who(analyst.people(_on(frame, "2026-01-08", breakdown_value="free"))) == ["cy"]
    assert _who(analyst.people(_on(frame, "2026-01-08", breakdown_value="pro"))) == ["ann"]
    # 7 January free: nobody (only dee, pro, viewed)
    assert _who(analyst.people(_on(frame, "2026-01-07", breakdown_value="free"))) == []


def test_the_people_behind_a_stickiness_bucket(analyst):
    frame = analyst.stickiness(events="view", **RANGE)
    # 5 to 8 January: bob and cy on 1 day, dee on 2 (5, 7), ann on 3 (5, 6, 8)
    assert _who(analyst.people(frame.loc[0])) == ["bob", "cy"]
    assert _who(analyst.people(frame.loc[1])) == ["dee"]
    assert _who(analyst.people(frame.loc[2])) == ["ann"]
    assert _who(analyst.people(frame.loc[3])) == []


def test_the_people_behind_a_lifecycle_interval(analyst):
    frame = analyst.lifecycle("view", **RANGE)
    # 7 January: ann (active the 6th) and bob (new the 6th) not active, so dormant; dee back after the 6th
    assert _who(analyst.people(_on(frame, "2026-01-07", status="dormant"))) == ["ann", "bob"]
    assert _who(analyst.people(_on(frame, "2026-01-07", status="resurrecting"))) == ["dee"]
    # 8 January: cy's first event
    assert _who(analyst.people(_on(frame, "2026-01-08", status="new"))) == ["cy"]


def test_people_pages_through_next(analyst):
    frame = analyst.stickiness(events="view", **RANGE)
    paths = analyst.session.paths
    start = len(paths)
    # bob and cy were active on exactly 1 day: one person a page takes two pages (and a third that is empty
    # or none, as the server's next says)
    people = analyst.people(frame.loc[0], page_size=1)
    assert _who(people) == ["bob", "cy"]
    asked = [path for path in paths[start:] if path.endswith("persons/stickiness/")]
    assert len(asked) >= 2
    assert len(analyst.people(frame.loc[0], limit=1)) == 1


def test_people_refuses_what_is_not_a_point(analyst):
    frame = analyst.stickiness(events="view", **RANGE)
    with pytest.raises(TypeError, match="frame row or a people URL"):
        analyst.people(42)
    with pytest.raises(ValueError, match="one row"):
        analyst.people(frame)
    wide = analyst.stickiness(events="view", wide=True, **RANGE)
    with pytest.raises(ValueError, match="no people URLs"):
        analyst.people(wide.iloc[0])
    with pytest.raises(ValueError, match="empty"):
        analyst.people(" ")


def test_a_frame_without_people_urls_names_what_to_do(analyst):
    # PostHog's query API answers series without persons_urls
    frame = stickiness_frame({"result": [{"action": {"name": "view"}, "days": [1, 2], "data": [2, 1]}]})
    assert "people_urls" not in frame.attrs
    with pytest.raises(ValueError, match="ActorsQuery"):
        analyst.people(frame.loc[0])


RETENTION = {"target_entity": "view", "period": "Day", "total_intervals": 4, "date_to": "2026-01-08"}
"""Cohorts of 5, 6, 7 and 8 January: who viewed that day, and who of them viewed again 1, 2, 3 days later."""


def _cell(frame: pd.DataFrame, day: str, period: int) -> pd.Series:
    return frame[(frame["cohort_date"] == pd.Timestamp(day, tz="UTC")) & (frame["period"] == period)].iloc[0]


def test_the_people_behind_a_retention_cell(analyst):
    frame = analyst.retention(**RETENTION)
    # 5 January's cohort: dee (09:00) and ann (10:00); ann is back on the 6th and 8th, dee on the 7th
    assert _who(analyst.people(_cell(frame, "2026-01-05", 0))) == ["ann", "dee"]
    assert _who(analyst.people(_cell(frame, "2026-01-05", 1))) == ["ann"]
    assert _who(analyst.people(_cell(frame, "2026-01-05", 2))) == ["dee"]
    # 6 January's cohort: ann and bob; nobody of them viewed on the 7th, ann on the 8th
    assert _who(analyst.people(_cell(frame, "2026-01-06", 1))) == []
    assert _who(analyst.people(_cell(frame, "2026-01-06", 2))) == ["ann"]
    people = analyst.people(_cell(frame, "2026-01-08", 0), page_size=1)
    assert list(people.columns) == list(PERSON_COLUMNS) and _who(people) == ["ann", "cy"]


PATH_EVENTS = pd.DataFrame(
    {
        "event": ["home", "pricing", "signup", "home", "pricing", "home", "signup"],
        "distinct_id": ["pia", "pia", "pia", "quin", "quin", "rae", "rae"],
        "timestamp": pd.to_datetime(
            [
                "2026-01-06 10:00",
                "2026-01-06 10:05",
                "2026-01-06 10:10",
                "2026-01-06 11:00",
                "2026-01-06 11:02",
                "2026-01-06 12:00",
                "2026-01-06 12:03",
            ]
        ),
        "properties": [{}] * 7,
    }
)
"""Three sessions on 6 January: pia home, pricing, signup; quin home, pricing; rae home, signup. The views of
the engagement events that day are sessions of one item (hours apart), so they make no edge."""
PATHS = {"include_event_types": ["custom_event"], "date_from": "2026-01-06", "date_to": "2026-01-06"}


def test_the_people_behind_a_path_node_and_edge(analyst):
    analyst.load_events(PATH_EVENTS, progress=False)
    edges = analyst.paths(**PATHS)
    assert sorted(zip(edges["source"], edges["target"], edges["value"], strict=True)) == [
        ("1_home", "2_pricing", 2),
        ("1_home", "2_signup", 1),
        ("2_pricing", "3_signup", 1),
    ]
    assert _who(analyst.path_people(**PATHS, end_key="2_pricing")) == ["pia", "quin"]
    assert _who(analyst.path_people(**PATHS, start_key="1_home", end_key="2_signup")) == ["rae"]
    assert _who(analyst.path_people(**PATHS, start_key="2_pricing")) == ["pia"]
    assert _who(analyst.path_people(**PATHS, dropoff_key="2_pricing")) == ["quin"]
    assert len(analyst.path_people(**PATHS, end_key="1_home", limit=2)) == 2  # of the three who reached it
    with pytest.raises(ValidationError) as raised:
        analyst.path_people(**PATHS, end_key="9_nowhere")
    assert raised.value.attr == "path_end_key"
