"""trend/funnel/retention/paths send the request body to the legacy endpoint, or fall back to the
query API where PostHog removed it, and return the same frames either way."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from toolkit import FunnelRequest, NotFoundError, PermissionDeniedError, TrendRequest, ValidationError

from .fakes import load

LEGACY_TREND = "/api/projects/1/insights/trend/"
LEGACY_FUNNEL = "/api/projects/1/insights/funnel/"
QUERY = "/api/projects/1/query/"
GONE = (404, {"type": "invalid_request", "code": "not_found", "detail": "Endpoint not found.", "attr": None})


def calculation_paths(fake):
    """The paths asked for, without the definitions read to check the names (see test_unseen_names.py)."""
    return [call.path for call in fake.calls if not call.path.endswith("_definitions/")]


def as_legacy(query_response):
    """The same numbers in the legacy envelope (``result`` instead of ``results``)."""
    body = {key: value for key, value in query_response.items() if key != "results"}
    return {**body, "result": query_response["results"]}


def test_trend_posts_the_exact_request_body(client, fake):
    fake.routes[("POST", LEGACY_TREND)] = (200, as_legacy(load("query_trends_response.json")))
    request = TrendRequest(events=["$pageview", {"id": "$pageview", "math": "dau"}], date_from="-2d")
    frame = client.trend(request)
    call = fake.calls[0]
    assert call.data == request.to_json()
    assert call.headers["Content-Type"] == "application/json"
    assert frame.attrs["_source"] == "legacy"
    assert frame.attrs["request"] == request.to_dict()
    assert len(frame) == 6


def test_trend_falls_back_to_the_query_api_and_gives_the_same_frame(client, fake):
    response = load("query_trends_response.json")
    fake.routes[("POST", LEGACY_TREND)] = GONE
    fake.routes[("POST", QUERY)] = (200, response)
    request = TrendRequest(events=["$pageview", {"id": "$pageview", "math": "dau"}], date_from="-2d")
    via_query = client.trend(request)
    assert calculation_paths(fake) == [LEGACY_TREND, QUERY]
    assert fake.calls[1].json == {"query": request.to_query(), "refresh": "blocking"}
    assert via_query.attrs["_source"] == "query"

    fake.routes[("POST", LEGACY_TREND)] = (200, as_legacy(response))
    from toolkit import Client

    from .fakes import BASE, KEY

    via_legacy = Client(base_url=BASE, api_key=KEY, project_id=1, session=fake).trend(request)
    assert_frame_equal(via_query, via_legacy)

    # the client remembers the legacy endpoint is gone
    fake.calls.clear()
    client.trend(request)
    assert calculation_paths(fake) == [QUERY]


def test_wide_trend_through_the_query_api(client, fake):
    fake.routes[("POST", LEGACY_TREND)] = GONE
    fake.routes[("POST", QUERY)] = (200, load("query_trends_response.json"))
    wide = client.trend(events=["$pageview"], wide=True)
    expected = pd.DataFrame(
        {
            "$pageview": pd.array([2, 3, 4], dtype="Int64"),
            "$pageview: unique users": pd.array([1, 2, 2], dtype="Int64"),
        },
        index=pd.DatetimeIndex(["2026-01-13", "2026-01-14", "2026-01-15"], tz="UTC", name="date").as_unit("ns"),
    )
    assert_frame_equal(wide, expected)


def test_legacy_endpoint_disabled_for_the_user_falls_back(client, fake):
    fake.routes[("POST", LEGACY_FUNNEL)] = (
        403,
        {
            "type": "authentication_error",
            "code": "permission_denied",
            "detail": "Legacy insight endpoints are not available for this user.",
            "attr": None,
        },
    )
    fake.routes[("POST", QUERY)] = (200, load("query_funnels_response.json"))
    frame = client.funnel(steps=["signup", "purchase"])
    assert frame["count"].tolist() == [8, 2]
    assert fake.calls[1].json["query"]["kind"] == "FunnelsQuery"


@pytest.mark.parametrize(
    "reply, error",
    [
        (
            (400, {"type": "validation_error", "code": "invalid_input", "detail": "Unknown math.", "attr": "math"}),
            ValidationError,
        ),
        (
            (
                403,
                {
                    "type": "authentication_error",
                    "code": "permission_denied",
                    "detail": "API key missing required scope 'insight:read'",
                    "attr": None,
                },
            ),
            PermissionDeniedError,
        ),
        (
            (404, {"type": "invalid_request", "code": "not_found", "detail": "Project not found.", "attr": None}),
            NotFoundError,
        ),
    ],
)
def test_other_errors_do_not_fall_back(client, fake, reply, error):
    fake.routes[("POST", LEGACY_TREND)] = reply
    with pytest.raises(error):
        client.trend(events=["$pageview"])
    assert [call.path for call in fake.calls] == [LEGACY_TREND]


def test_async_query_answer_is_polled_until_complete(client, fake, monkeypatch):
    monkeypatch.setattr("toolkit.calculations.QUERY_POLL_INTERVAL", 0)
    results = load("query_funnels_response.json")["results"]
    fake.routes[("POST", LEGACY_FUNNEL)] = GONE
    fake.routes[("POST", QUERY)] = (200, {"query_status": {"id": "q1", "complete": False, "query_async": True}})
    fake.routes[("GET", "/api/projects/1/query/q1/")] = [
        (200, {"query_status": {"id": "q1", "complete": False}}),
        (200, {"query_status": {"id": "q1", "complete": True, "error": False, "results": results}}),
    ]
    assert client.funnel(steps=["signup", "purchase"])["count"].tolist() == [8, 2]


def test_funnel_viz_types_pick_their_frames(client, fake):
    fake.routes[("POST", LEGACY_FUNNEL)] = [
        (
            200,
            {
                "result": [{"count": 1, "data": [20.0], "days": ["2026-01-01"], "labels": ["1-Jan-2026"]}],
                "timezone": "UTC",
            },
        ),
        (200, {"result": {"bins": [[10, 1], [20, 0]], "average_conversion_time": 10.0}, "timezone": "UTC"}),
    ]
    trends = client.funnel(steps=["a", "b"], funnel_viz_type="trends")
    assert trends.columns.tolist() == ["date", "conversion_rate"]  # no breakdown: no breakdown_value
    assert trends.loc[0, "conversion_rate"] == pytest.approx(0.2)
    ttc = client.funnel(FunnelRequest(steps=["a", "b"], funnel_viz_type="time_to_convert"))
    assert ttc["count"].tolist() == [1, 0]


def test_retention_and_paths_endpoints(client, fake):
    fake.routes[("POST", "/api/projects/1/insights/retention/")] = (
        200,
        {"result": [{"label": "Week 0", "date": "2026-01-04T00:00:00Z", "values": [{"count": 2}, {"count": 1}]}]},
    )
    fake.routes[("POST", "/api/projects/1/insights/path/")] = (
        200,
        {"result": [{"source": "1_/a", "target": "2_/b", "value": 2, "average_conversion_time": 3000}]},
    )
    assert client.retention(target_entity="signup", period="Week")["retention_rate"].tolist() == [1.0, 0.5]
    assert json.loads(fake.calls[0].data)["period"] == "Week"
    assert client.paths(include_event_types=["$pageview"])["value"].tolist() == [2]


def test_funnel_people_follows_the_step_people_url(client, fake):
    fake.routes[("POST", LEGACY_FUNNEL)] = (200, load("legacy_funnel_breakdown.json"))
    fake.routes[("GET", "/api/person/funnel/")] = (200, load("legacy_funnel_people.json"))
    people = client.funnel_people(
        steps=["signup", "purchase"], breakdown="$browser", step=2, dropped=True, breakdown_value="Safari"
    )
    assert fake.calls[1].params["funnel_step"] == "-2"
    assert fake.calls[1].params["funnel_step_breakdown"] == "Safari"
    assert people["id"].tolist() == ["018d0c2e-7a10-7000-8000-000000000001"]
    assert people.loc[0, "distinct_ids"] == ["ann", "anon-1"]


def test_funnel_people_through_the_actors_query(client, fake):
    fake.routes[("POST", LEGACY_FUNNEL)] = GONE
    fake.routes[("POST", QUERY)] = [
        (200, load("query_funnels_response.json")),
        (200, load("query_actors_response.json")),
    ]
    request = FunnelRequest(steps=["signup", "purchase"])
    people = client.funnel_people(request, step=2)
    actors = fake.calls[2].json["query"]
    assert actors == {
        "kind": "ActorsQuery",
        "source": {"kind": "FunnelsActorsQuery", "source": request.to_query(), "funnelStep": 2},
        "select": ["actor"],
    }
    assert people["id"].tolist() == ["018d0c2e-7a10-7000-8000-00000000000b", "018d0c2e-7a10-7000-8000-00000000000c"]
    assert str(people["created_at"].dtype) == "datetime64[ns, UTC]"


@pytest.mark.parametrize("step, dropped", [(0, False), (3, False), (1, True)])
def test_funnel_people_rejects_impossible_steps(client, step, dropped):
    with pytest.raises(ValueError, match="step must be"):
        client.funnel_people(steps=["a", "b"], step=step, dropped=dropped)


def test_all_breakdowns_follows_the_next_pages(client, fake):
    def one(value):
        return {
            "action": {"id": "$pageview", "name": "$pageview", "order": 0},
            "label": value,
            "breakdown_value": value,
            "days": ["2026-01-01"],
            "data": [1.0],
            "count": 1.0,
        }

    fake.routes[("POST", LEGACY_TREND)] = (
        200,
        {"result": [one("a"), one("b")], "timezone": "UTC", "next": f"{LEGACY_TREND}?breakdown=%24browser&offset=2"},
    )
    fake.routes[("GET", LEGACY_TREND)] = (200, {"result": [one("c")], "timezone": "UTC", "next": None})
    first_page = client.trend(events=["$pageview"], breakdown="$browser", breakdown_limit=2)
    assert first_page["breakdown_value"].tolist() == ["a", "b"] and first_page.attrs["next"]
    everything = client.trend(events=["$pageview"], breakdown="$browser", breakdown_limit=2, all_breakdowns=True)
    assert everything["breakdown_value"].tolist() == ["a", "b", "c"]
    assert fake.calls[-1].params == {"breakdown": "$browser", "offset": "2"}
