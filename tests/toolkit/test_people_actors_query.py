"""`Client.people` where the query API answered: the local backend in the test process, seen as PostHog shows
itself (``insights/trend/`` gone, ``/query/`` answers without ``persons_urls``), so the toolkit takes its query
path and asks each row's people with an ``ActorsQuery`` over an ``InsightActorsQuery``. Every row gives the same
persons as the URL of the same point on the legacy answer, and a few are worked out by hand from the events of
`tests.toolkit.engagement_events` (its docstring has the table of who viewed when)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

import pandas as pd
import pytest
import requests
from requests.structures import CaseInsensitiveDict

from toolkit import Client
from toolkit.frames import PERSON_COLUMNS

from .engagement_events import RANGE

GONE = {"type": "invalid_request", "code": "not_found", "detail": "Endpoint not found.", "attr": None}


def _reply(status: int, body: Any) -> requests.Response:
    response = requests.Response()
    response.status_code = status
    response.headers = CaseInsensitiveDict({"Content-Type": "application/json"})
    response._content = json.dumps(body).encode()
    return response


class AsPostHog:
    """The local backend as PostHog answers: the legacy ``insights/trend/`` is gone (404) and the series of a
    ``/query/`` answer carry no people URLs. Records every ``/query/`` node sent."""

    def __init__(self, local: Any) -> None:
        self.local = local
        self.queries: list[dict[str, Any]] = []

    def request(self, method: str, url: str, **kwargs: Any) -> Any:
        path = urlsplit(url).path
        if path.endswith("/insights/trend/"):
            return _reply(404, GONE)
        response = self.local.request(method, url, **kwargs)
        if not (method == "POST" and path.endswith("/query/")):
            return response
        self.queries.append(kwargs["json"]["query"])
        body = response.json()
        for item in body.get("results") or []:
            if isinstance(item, dict):
                item.pop("persons_urls", None)
                item.pop("persons", None)
        return _reply(response.status_code, body)

    def close(self) -> None:
        pass


@pytest.fixture
def analyst(engagement_client: Client) -> Client:
    """The legacy answers' client: its frames keep people URLs."""
    return engagement_client


@pytest.fixture
def posthog(engagement_client: Client) -> Client:
    """A client of the same backend that sees it as PostHog."""
    return Client(
        base_url=engagement_client.base_url,
        api_key=engagement_client.settings.api_key,
        project_id=engagement_client.project_id,
        session=AsPostHog(engagement_client.session),
        check_names=False,
    )


def _who(people: pd.DataFrame) -> list[str]:
    return sorted(ids[0] for ids in people["distinct_ids"])


def _row(frame: pd.DataFrame, **equal: Any) -> pd.DataFrame:
    keep = pd.Series(True, index=frame.index)
    for name, value in equal.items():
        keep &= frame[name] == (pd.Timestamp(value, tz="UTC") if name == "date" else value)
    assert keep.sum() == 1, equal
    return frame[keep]


def _same_people_on_every_row(query_frame: pd.DataFrame, legacy_frame: pd.DataFrame, posthog: Client, analyst: Client):
    pd.testing.assert_frame_equal(query_frame, legacy_frame)
    assert "people_urls" not in query_frame.attrs and "people_urls" in legacy_frame.attrs
    counted = 0
    for label in query_frame.index:
        through_query = posthog.people(query_frame.loc[label])
        assert list(through_query.columns) == list(PERSON_COLUMNS)
        assert _who(through_query) == _who(analyst.people(legacy_frame.loc[label])), query_frame.loc[label].to_dict()
        counted += len(through_query)
    return counted


def test_a_broken_down_compared_trend_gives_each_point_its_people(posthog, analyst):
    fields = {"events": "view", "breakdown": "plan", "compare": True, **RANGE}
    frame = posthog.trend(**fields)
    assert frame.attrs["_source"] == "query" and frame.attrs["query"]["kind"] == "TrendsQuery"
    # 8 January: ann (pro) at 10:00 and cy (free) at 12:00; the period before (1 to 4 January): ann on the 4th
    assert _who(posthog.people(_row(frame, date="2026-01-08", breakdown_value="free", compare_label="current"))) == [
        "cy"
    ]
    assert _who(posthog.people(_row(frame, date="2026-01-04", breakdown_value="pro", compare_label="previous"))) == [
        "ann"
    ]
    asked = posthog.session.queries[-1]
    assert asked["kind"] == "ActorsQuery" and asked["select"] == ["actor"]
    assert asked["source"] == {
        "kind": "InsightActorsQuery",
        "source": frame.attrs["query"],
        "series": 0,
        "day": "2026-01-04",
        "breakdown": "pro",
        "compare": "previous",
    }
    # each day's viewers, 5 to 8 January: 2, 2 (bob twice), 1, 2; and ann on the 4th: 8 persons in all
    assert _same_people_on_every_row(frame, analyst.trend(**fields), posthog, analyst) == 8


def test_a_second_series_is_asked_by_its_position(posthog, analyst):
    fields = {"events": ["other", "view"], **RANGE}
    frame = posthog.trend(**fields)
    # 6 January: eve did other; ann and bob viewed
    assert _who(posthog.people(_row(frame, date="2026-01-06", series="other"))) == ["eve"]
    assert _who(posthog.people(_row(frame, date="2026-01-06", series="view"))) == ["ann", "bob"]
    assert posthog.session.queries[-1]["source"]["series"] == 1
    _same_people_on_every_row(frame, analyst.trend(**fields), posthog, analyst)


def test_a_stickiness_bucket_is_asked_by_its_number(posthog, analyst):
    fields = {"events": "view", "breakdown": "plan", "compare": True, **RANGE}
    frame = posthog.stickiness(**fields)
    # 5 to 8 January: bob and cy (free) on 1 day, dee (pro) on 2, ann (pro) on 3; 1 to 4 January: ann on 1
    assert _who(posthog.people(_row(frame, intervals=1, breakdown_value="free", compare_label="current"))) == [
        "bob",
        "cy",
    ]
    assert _who(posthog.people(_row(frame, intervals=3, breakdown_value="pro", compare_label="current"))) == ["ann"]
    assert posthog.session.queries[-1]["source"]["day"] == 3
    assert _who(posthog.people(_row(frame, intervals=1, breakdown_value="pro", compare_label="previous"))) == ["ann"]
    assert _same_people_on_every_row(frame, analyst.stickiness(**fields), posthog, analyst) == 5


def test_a_lifecycle_interval_is_asked_by_its_day_and_status(posthog, analyst):
    frame = posthog.lifecycle("view", **RANGE)
    # 7 January: ann (active the 6th) and bob (new the 6th) not active, so dormant; dee back after the 6th
    assert _who(posthog.people(_row(frame, date="2026-01-07", status="dormant"))) == ["ann", "bob"]
    source = posthog.session.queries[-1]["source"]
    assert (source["day"], source["status"], source["series"]) == ("2026-01-07", "dormant", 0)
    assert _who(posthog.people(_row(frame, date="2026-01-07", status="resurrecting"))) == ["dee"]
    # new 3, returning 2, resurrecting 2, dormant 4 over the four days
    assert _same_people_on_every_row(frame, analyst.lifecycle("view", **RANGE), posthog, analyst) == 11


def test_people_pages_through_has_more_and_offset(posthog):
    frame = posthog.stickiness(events="view", **RANGE)
    start = len(posthog.session.queries)
    # bob and cy were active on exactly 1 day: one a page
    assert _who(posthog.people(frame.loc[0], page_size=1)) == ["bob", "cy"]
    pages = posthog.session.queries[start:]
    assert [(page["limit"], page.get("offset", 0)) for page in pages] == [(1, 0), (1, 1)]
    start = len(posthog.session.queries)
    assert len(posthog.people(frame.loc[0], limit=1)) == 1
    assert len(posthog.session.queries[start:]) == 1
