"""Tidy trend, stickiness and lifecycle frames keep each row's people URL in ``attrs["people_urls"]`` by row
position; the responses are written by hand, one URL per point named after the point."""

from __future__ import annotations

from toolkit.frames import lifecycle_frame, stickiness_frame, trend_frame
from toolkit.frames.results import wide_lifecycle_frame


def _links(*urls: str) -> list[dict[str, object]]:
    return [{"filter": {}, "url": url} for url in urls]


def test_trend_rows_keep_their_point_urls_in_series_order():
    response = {
        "result": [
            {
                "action": {"name": "a"},
                "days": ["2026-01-01", "2026-01-02"],
                "data": [1, 2],
                "persons_urls": _links("a1", "a2"),
            },
            {
                "action": {"name": "b"},
                "days": ["2026-01-01", "2026-01-02"],
                "data": [3, 4],
                "persons_urls": _links("b1", "b2"),
            },
        ]
    }
    frame = trend_frame(response)
    # rows run a's two days, then b's
    assert frame.attrs["people_urls"] == ("a1", "a2", "b1", "b2")
    assert "people_urls" not in trend_frame(response, wide=True).attrs


def test_an_aggregated_trend_keeps_its_persons_url_and_a_series_without_links_has_none():
    aggregated = {"result": [{"action": {"name": "a"}, "aggregated_value": 5, "persons": {"url": "total"}}]}
    assert trend_frame(aggregated).attrs["people_urls"] == ("total",)
    plain = {"result": [{"action": {"name": "a"}, "days": ["2026-01-01"], "data": [1]}]}
    assert "people_urls" not in trend_frame(plain).attrs


def test_stickiness_rows_keep_their_bucket_urls():
    response = {
        "result": [{"action": {"name": "a"}, "days": [1, 2], "data": [2, 1], "persons_urls": _links("k1", "k2")}]
    }
    assert stickiness_frame(response).attrs["people_urls"] == ("k1", "k2")


def test_lifecycle_urls_follow_the_frames_status_order():
    # the answer lists dormant before new; the frame puts new first (LIFECYCLE_STATUSES), and the URLs with it
    response = {
        "result": [
            {"status": "dormant", "days": ["2026-01-05"], "data": [-1], "persons_urls": _links("dormant-5")},
            {"status": "new", "days": ["2026-01-05"], "data": [2], "persons_urls": _links("new-5")},
        ]
    }
    frame = lifecycle_frame(response)
    assert frame["status"].tolist() == ["new", "dormant"]
    assert frame.attrs["people_urls"] == ("new-5", "dormant-5")
    assert "people_urls" not in wide_lifecycle_frame(frame).attrs


def test_frames_made_from_a_tidy_frame_keep_the_same_urls_unchanged():
    response = {
        "result": [
            {"action": {"name": "a"}, "days": ["2026-01-01", "2026-01-02"], "data": [1, 2],
             "persons_urls": _links("a1", "a2")},
        ]
    }  # fmt: skip
    frame = trend_frame(response)
    picked = frame.loc[frame["value"] == 2]
    urls = frame.attrs["people_urls"]
    # a row picked from the frame still finds its URL by the frame's row position; the URLs cannot be changed
    assert picked.attrs["people_urls"] is urls and urls[picked.index[0]] == "a2"
    assert frame.sort_values("value", ascending=False).attrs["people_urls"] == ("a1", "a2")
    assert not hasattr(urls, "append")
