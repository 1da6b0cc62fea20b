"""Against PostHog, where ``insights/trend/`` is gone: stickiness and lifecycle send their ``StickinessQuery`` /
``LifecycleQuery`` node to ``/query/`` and read its answer into the same frames (a fake session answers as
PostHog does)."""

from __future__ import annotations

from toolkit import LifecycleRequest, StickinessRequest

LEGACY_TREND = "/api/projects/1/insights/trend/"
QUERY = "/api/projects/1/query/"
GONE = (404, {"type": "invalid_request", "code": "not_found", "detail": "Endpoint not found.", "attr": None})
ACTION = {"id": "$pageview", "type": "events", "order": 0, "name": "$pageview", "custom_name": None, "math": None}


def calculation_paths(fake):
    return [call.path for call in fake.calls if not call.path.endswith("_definitions/")]


def query_answer(results):
    """PostHog's envelope of a query's answer."""
    return {"results": results, "is_cached": False, "last_refresh": "2026-01-15T12:00:00Z", "timezone": "UTC"}


def test_stickiness_through_the_query_api(client, fake):
    series = {"action": ACTION, "label": "$pageview", "count": 9, "data": [6, 2, 1],
              "labels": ["1 day", "2 days", "3 days"], "days": [1, 2, 3]}  # fmt: skip
    fake.routes[("POST", LEGACY_TREND)] = GONE
    fake.routes[("POST", QUERY)] = (200, query_answer([series]))
    request = StickinessRequest(events="$pageview", date_from="-3d", criteria=("gte", 2))
    frame = client.stickiness(request)
    assert calculation_paths(fake) == [LEGACY_TREND, QUERY]
    assert fake.calls[1].json == {"query": request.to_query(), "refresh": "blocking"}
    assert fake.calls[1].json["query"]["stickinessFilter"] == {"stickinessCriteria": {"operator": "gte", "value": 2}}
    assert frame["value"].tolist() == [6, 2, 1]
    assert frame["interval_label"].tolist() == ["1 day", "2 days", "3 days"]
    assert (frame.attrs["_source"], frame.attrs["actors"]) == ("query", {"$pageview": 9})
    # the legacy endpoint is remembered as gone: lifecycle, a trend kind too, goes straight to /query/
    statuses = ("new", "returning", "resurrecting", "dormant")
    answer = [
        {"action": ACTION, "label": f"$pageview - {status}", "status": status, "count": value,
         "data": [value], "labels": ["15-Jan-2026"], "days": ["2026-01-15"]}
        for status, value in zip(statuses, (3.0, 1.0, 2.0, -4.0), strict=True)
    ]  # fmt: skip
    fake.routes[("POST", QUERY)] = (200, query_answer(answer))
    fake.calls.clear()
    life = client.lifecycle(LifecycleRequest("$pageview", date_from="-1d"))
    assert calculation_paths(fake) == [QUERY]
    assert fake.calls[0].json["query"]["kind"] == "LifecycleQuery"
    assert dict(zip(life["status"], life["value"], strict=True)) == {
        "new": 3,
        "returning": 1,
        "resurrecting": 2,
        "dormant": -4,
    }
