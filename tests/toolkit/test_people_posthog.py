"""Against PostHog, where ``insights/trend/`` is gone: the people of a trend, stickiness or lifecycle row come from
an ``ActorsQuery`` over an ``InsightActorsQuery`` sent to ``/query/`` (a fake session answers as PostHog does:
recorded answers of ``tests/toolkit/fixtures``)."""

from __future__ import annotations

import pytest
from pandas.testing import assert_frame_equal

from toolkit import LifecycleRequest, StickinessRequest, TrendRequest
from toolkit.frames import persons_frame, stickiness_frame

from .fakes import load

LEGACY_TREND = "/api/projects/1/insights/trend/"
QUERY = "/api/projects/1/query/"
GONE = (404, {"type": "invalid_request", "code": "not_found", "detail": "Endpoint not found.", "attr": None})
ACTION = {"id": "$pageview", "type": "events", "order": 0, "name": "$pageview", "custom_name": None, "math": None}


def answer_by_kind(insight_answer, *actor_pages):
    """A ``/query/`` route: the insight's answer to its node, the actor pages in turn to ``ActorsQuery`` nodes."""
    pages = list(actor_pages)

    def route(call):
        if call.json["query"]["kind"] == "ActorsQuery":
            return (200, pages.pop(0))
        return (200, insight_answer)

    return route


def sent_actors(fake):
    return [
        call.json["query"] for call in fake.calls if call.path == QUERY and call.json["query"]["kind"] == "ActorsQuery"
    ]


def test_a_trend_point_of_the_second_series(client, fake):
    actors = load("query_actors_response.json")
    fake.routes[("POST", LEGACY_TREND)] = GONE
    fake.routes[("POST", QUERY)] = answer_by_kind(load("query_trends_response.json"), actors)
    request = TrendRequest(events=["$pageview", {"id": "$pageview", "math": "dau"}], date_from="-2d")
    frame = client.trend(request)
    assert frame.attrs["query"] == request.to_query()
    # rows 3..5 are the dau series (order 1) on 13, 14 and 15 January
    people = client.people(frame.loc[4])
    assert sent_actors(fake) == [
        {
            "kind": "ActorsQuery",
            "source": {"kind": "InsightActorsQuery", "source": request.to_query(), "series": 1, "day": "2026-01-14"},
            "select": ["actor"],
            "limit": 100,
        }
    ]
    assert_frame_equal(people, persons_frame(row[0] for row in actors["results"]))
    assert people["distinct_ids"].tolist() == [["bob"], ["cy", "cy-phone"]]


def test_pages_follow_has_more_from_the_next_offset(client, fake):
    first = load("query_actors_response.json")
    first.update({"hasMore": True, "limit": 2})
    # PostHog answers the actor column beside others when asked for them: it is found by its name
    last = {
        "columns": ["event_count", "actor"],
        "results": [[4, {"id": "018d0c2e-7a10-7000-8000-00000000000d", "distinct_ids": ["dee"], "properties": {}}]],
        "hasMore": False,
        "limit": 2,
        "offset": 2,
    }
    series = {"action": ACTION, "label": "$pageview", "count": 3, "data": [3, 0], "labels": ["1 day", "2 days"],
              "days": [1, 2]}  # fmt: skip
    fake.routes[("POST", LEGACY_TREND)] = GONE
    fake.routes[("POST", QUERY)] = answer_by_kind({"results": [series], "timezone": "UTC"}, first, last)
    request = StickinessRequest(events="$pageview", date_from="-2d")
    frame = client.stickiness(request)
    people = client.people(frame.loc[0], page_size=2)
    assert [ids[0] for ids in people["distinct_ids"]] == ["bob", "cy", "dee"]
    pages = sent_actors(fake)
    assert [(page["source"]["day"], page["limit"], page.get("offset")) for page in pages] == [(1, 2, None), (1, 2, 2)]
    assert pages[0]["source"]["source"] == request.to_query()


def test_a_lifecycle_status_and_a_broken_down_compared_point(client, fake):
    statuses = ("new", "returning", "resurrecting", "dormant")
    answer = [
        {"action": ACTION, "label": f"$pageview - {status}", "status": status, "count": value, "data": [value],
         "labels": ["15-Jan-2026"], "days": ["2026-01-15"]}
        for status, value in zip(statuses, (3.0, 1.0, 2.0, -4.0), strict=True)
    ]  # fmt: skip
    fake.routes[("POST", LEGACY_TREND)] = GONE
    fake.routes[("POST", QUERY)] = answer_by_kind({"results": answer}, load("query_actors_response.json"))
    request = LifecycleRequest("$pageview", date_from="-1d")
    frame = client.lifecycle(request)
    client.people(frame[frame["status"] == "dormant"])
    source = sent_actors(fake)[0]["source"]
    assert source == {
        "kind": "InsightActorsQuery",
        "source": request.to_query(),
        "series": 0,
        "day": "2026-01-15",
        "status": "dormant",
    }
    compared = [
        {"action": ACTION, "label": "$pageview", "breakdown_value": ["Chrome", "Mac"], "compare_label": label,
         "count": 1, "data": [1], "labels": ["15-Jan-2026"], "days": [day]}
        for label, day in (("current", "2026-01-15"), ("previous", "2026-01-14"))
    ]  # fmt: skip
    fake.calls.clear()
    fake.routes[("POST", QUERY)] = answer_by_kind({"results": compared}, load("query_actors_response.json"))
    trend = client.trend(events="$pageview", breakdown=["$browser", "$os"], compare=True, date_from="-1d")
    client.people(trend.loc[1])
    source = sent_actors(fake)[0]["source"]
    # the value as the answer gave it (a list for a multi-property breakdown), not the frame's "Chrome::Mac"
    assert (source["day"], source["breakdown"], source["compare"]) == ("2026-01-14", ["Chrome", "Mac"], "previous")


def test_rows_without_people_say_why(client, fake):
    formula = {"action": None, "label": "Formula (A*2)", "breakdown_value": None, "data": [4], "days": ["2026-01-15"]}
    fake.routes[("POST", LEGACY_TREND)] = GONE
    fake.routes[("POST", QUERY)] = (
        200,
        {"results": [{"action": ACTION, "data": [2], "days": ["2026-01-15"]}, formula]},
    )
    frame = client.trend(events="$pageview", formula="A*2", date_from="-1d")
    with pytest.raises(ValueError, match="formula"):
        client.people(frame.loc[1])
    # a frame read from an answer by hand keeps the points, not the query they belong to
    bare = stickiness_frame({"results": [{"action": ACTION, "days": [1], "data": [2]}]})
    with pytest.raises(ValueError, match=r"attrs\['query'\]"):
        client.people(bare.loc[0])
    wide = client.trend(events="$pageview", formula="A*2", date_from="-1d", wide=True)
    assert "query" in wide.attrs and "actor_points" not in wide.attrs
    with pytest.raises(ValueError, match="no people URLs, no points"):
        client.people(wide.iloc[0])
    assert not sent_actors(fake)
