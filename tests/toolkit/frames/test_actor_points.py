"""Tidy frames of answers without people URLs (PostHog's query API) keep each row's point as an
``InsightActorsQuery`` names it in ``attrs["actor_points"]``, by row position; the responses are written by hand."""

from __future__ import annotations

from toolkit.frames import lifecycle_frame, stickiness_frame, trend_frame


def _series(order, days, **more):
    return {"action": {"name": "a", "order": order}, "days": days, "data": [1] * len(days), **more}


def test_trend_rows_keep_series_day_breakdown_and_compare():
    response = {
        "results": [
            _series(0, ["2026-01-01", "2026-01-02"], breakdown_value=["Chrome", "Mac"], compare_label="current"),
            _series(1, ["2025-12-30"], breakdown_value=7, compare_label="previous"),
            {"action": None, "label": "Formula", "days": ["2026-01-01"], "data": [2]},
        ]
    }
    frame = trend_frame(response)
    assert frame.attrs["actor_points"] == (
        {"series": 0, "day": "2026-01-01", "breakdown": ["Chrome", "Mac"], "compare": "current"},
        {"series": 0, "day": "2026-01-02", "breakdown": ["Chrome", "Mac"], "compare": "current"},
        {"series": 1, "day": "2025-12-30", "breakdown": 7, "compare": "previous"},
        None,
    )
    assert "actor_points" not in trend_frame(response, wide=True).attrs
    # a copy of the frame shares the points, as it shares the URLs
    assert frame.head(2).attrs["actor_points"] is frame.attrs["actor_points"]


def test_an_aggregated_trend_names_no_day():
    frame = trend_frame({"results": [{"action": {"name": "a", "order": 0}, "aggregated_value": 5}]})
    assert frame.attrs["actor_points"] == ({"series": 0},)


def test_an_answer_with_people_urls_keeps_the_urls_only():
    linked = _series(0, ["2026-01-01"], persons_urls=[{"filter": {}, "url": "u1"}])
    frame = trend_frame({"result": [linked]})
    assert frame.attrs["people_urls"] == ("u1",) and "actor_points" not in frame.attrs


def test_stickiness_buckets_and_lifecycle_statuses():
    sticky = stickiness_frame({"results": [_series(0, [1, 2, 3])]})
    assert [point["day"] for point in sticky.attrs["actor_points"]] == [1, 2, 3]
    # the statuses come in PostHog's order whatever the answer's, and the points with them
    life = lifecycle_frame(
        {
            "results": [
                {"action": {"order": 0}, "status": "dormant", "days": ["2026-01-05"], "data": [-1]},
                {"action": {"order": 0}, "status": "new", "days": ["2026-01-05"], "data": [2]},
            ]
        }
    )
    assert life["status"].tolist() == ["new", "dormant"]
    assert life.attrs["actor_points"] == (
        {"series": 0, "day": "2026-01-05", "status": "new"},
        {"series": 0, "day": "2026-01-05", "status": "dormant"},
    )
