"""Frames with list/dict cells and attrs survive a trip through CSV and Parquet files."""

from __future__ import annotations

import json

import pandas as pd

import toolkit
from toolkit.frames import insights_frame
from toolkit.frames.results import time_to_convert_frame

from .fakes import load


def test_parquet_keeps_json_cells_and_attrs(tmp_path):
    frame = insights_frame([load("insight.json")])
    frame.attrs = {"source": "test", "when": pd.Timestamp("2026-01-15", tz="UTC")}
    path = tmp_path / "insights.parquet"
    toolkit.to_parquet(frame, path)
    back = pd.read_parquet(path)
    assert json.loads(back.loc[0, "filters"]) == load("insight.json")["filters"]
    assert json.loads(back.loc[0, "dashboards"]) == [3]
    assert back.attrs == {"source": "test", "when": "2026-01-15 00:00:00+00:00"}
    assert back.loc[0, "created_at"] == pd.Timestamp("2026-01-14T08:30:00.123456Z")


def test_parquet_of_a_frame_with_timedelta_attrs(tmp_path):
    frame = time_to_convert_frame({"result": {"bins": [[60, 1], [120, 2]], "average_conversion_time": 75}})
    toolkit.to_parquet(frame, tmp_path / "ttc.parquet")
    back = pd.read_parquet(tmp_path / "ttc.parquet")
    assert back["count"].tolist() == [1, 2]
    assert back.attrs["average_conversion_time"] == "0 days 00:01:15"


def test_csv_writes_json_text_for_nested_cells(tmp_path):
    frame = insights_frame([load("insight.json")])
    toolkit.to_csv(frame, tmp_path / "insights.csv")
    back = pd.read_csv(tmp_path / "insights.csv")
    assert json.loads(back.loc[0, "filters"])["interval"] == "week"
    assert back.loc[0, "short_id"] == "a1B2c3D4"
