"""The toolkit reads this backend's funnel answers: steps, breakdowns, trends, time to convert and people."""

from __future__ import annotations

from urllib.parse import urlencode

import pandas as pd
import pytest

from tests.backend.funnel_events import EVENTS
from tests.factories import add_events
from toolkit import Client
from toolkit.errors import ValidationError


class InProcess:
    """The app's test client as the toolkit's ``requests``-like session.

    Unlike ``requests``, the test client takes no timeout, wants raw bodies as ``content`` and replaces a
    URL's query string with ``params``, so ``params`` are appended to it here as ``requests`` does.
    """

    def __init__(self, client) -> None:
        self.client = client

    def request(self, method, url, *, timeout=None, data=None, params=None, **kwargs):
        if params:
            url += ("&" if "?" in url else "?") + urlencode(params)
        if isinstance(data, str | bytes):
            kwargs["content"] = data
        elif data is not None:
            kwargs["data"] = data
        return self.client.request(method, url, **kwargs)

    def close(self) -> None:
        pass


def toolkit(client, world) -> Client:
    session = InProcess(client)
    return Client(base_url="http://testserver", api_key=world.key, project_id=world.project_id, session=session)


def test_steps_frame(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    frame = toolkit(client, world).funnel(steps=["$pageview", "signup", "purchase"])
    assert frame["count"].tolist() == [3, 2, 1]
    assert frame["drop_off"].tolist() == [0, 1, 1]
    assert frame["average_conversion_time"].tolist()[1:] == [pd.Timedelta(seconds=1200), pd.Timedelta(seconds=3600)]


def test_breakdown_frame(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    frame = toolkit(client, world).funnel(steps=["$pageview", "signup"], breakdown="$browser")
    counts = {value: group["count"].tolist() for value, group in frame.groupby("breakdown_value")}
    assert counts == {"Chrome": [2, 1], "Safari": [1, 1]}


def test_trends_and_time_to_convert_frames(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    analyst = toolkit(client, world)
    trends = analyst.funnel(
        steps=["$pageview", "signup"], funnel_viz_type="trends", date_from="2026-01-10", date_to="2026-01-12"
    )
    # Jan 10 alice signs up, Jan 11 bob does, Jan 12 carol does not
    assert trends["conversion_rate"].tolist() == [1.0, 1.0, 0.0]
    bins = analyst.funnel(steps=["$pageview", "signup"], funnel_viz_type="time_to_convert")
    assert bins["count"].sum() == 2
    assert bins.attrs["average_conversion_time"] == pd.Timedelta(seconds=1200)


def test_people_of_a_step(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    people = toolkit(client, world).funnel_people(steps=["$pageview", "signup"], step=2, dropped=True)
    assert [ids for ids in people["distinct_ids"]] == [["carol"]]


class WithoutLegacy(InProcess):
    """A server whose legacy funnel endpoint is gone: the toolkit asks ``/query/`` for the people."""

    def request(self, method, url, **kwargs):
        if url.endswith("/insights/funnel/"):
            return self.client.request("GET", "/api/projects/0/no-such-endpoint/")
        return super().request(method, url, **kwargs)


@pytest.mark.parametrize("legacy", [True, False])
@pytest.mark.parametrize("breakdown", ["$browser", ["$browser"]])
def test_people_of_a_broken_down_step(client, world, conn, breakdown, legacy):
    add_events(conn, world.project_id, EVENTS)
    session = InProcess(client) if legacy else WithoutLegacy(client)
    analyst = Client(base_url="http://testserver", api_key=world.key, project_id=world.project_id, session=session)
    steps = ["$pageview", "signup", "purchase"]

    def names(step, dropped, value):
        frame = analyst.funnel_people(
            steps=steps, step=step, dropped=dropped, breakdown=breakdown, breakdown_value=value
        )
        return sorted(name for ids in frame["distinct_ids"] for name in ids)

    # Chrome: alice does all three steps, carol only the first; Safari: bob stops at signup
    assert names(1, False, "Chrome") == ["alice", "carol"]
    assert names(2, True, "Chrome") == ["carol"]
    assert names(3, False, "Chrome") == ["alice"]
    assert names(3, True, "Safari") == ["bob"]
    assert names(3, False, "Safari") == []


def test_people_of_a_value_the_funnel_does_not_show(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    with pytest.raises(ValidationError) as raised:
        toolkit(client, world).funnel_people(
            steps=["$pageview", "signup"], step=2, breakdown="$browser", breakdown_value="Opera"
        )
    assert raised.value.attr == "funnel_step_breakdown" and "Opera" in raised.value.detail


def test_people_of_a_broken_down_step_without_a_value_are_everyone_counted(client, world, conn):
    add_events(conn, world.project_id, EVENTS)
    frame = toolkit(client, world).funnel_people(steps=["$pageview", "signup"], step=1, breakdown="$browser")
    # Chrome: alice, carol; Safari: bob
    assert sorted(name for ids in frame["distinct_ids"] for name in ids) == ["alice", "bob", "carol"]
