"""A project with three events, two actions (one deleted) and a few properties, answered by a fake session."""

from __future__ import annotations

import matplotlib
import pytest

from toolkit import Client

from ..toolkit.conftest import BASE, KEY, FakeSession, load

matplotlib.use("Agg")

PROJECT = "/api/projects/1/"
TREND = f"{PROJECT}insights/trend/"
FUNNEL = f"{PROJECT}insights/funnel/"
INSIGHTS = f"{PROJECT}insights/"

EVENT_NAMES = ["$pageview", "signup", "purchase"]
PROPERTIES = {
    "event": [("$browser", False), ("amount", True), ("$current_url", False)],
    "person": [("email", False), ("plan", False)],
}


def page(items):
    return (200, {"count": len(items), "next": None, "previous": None, "results": items})


def property_page(call):
    rows = PROPERTIES.get(call.params.get("type"), [])
    return page([{"id": f"p{i}", "name": name, "is_numerical": numeric} for i, (name, numeric) in enumerate(rows)])


@pytest.fixture
def fake() -> FakeSession:
    return FakeSession(
        {
            ("GET", f"{PROJECT}event_definitions/"): page(
                [{"id": f"e{i}", "name": n} for i, n in enumerate(EVENT_NAMES)]
            ),
            ("GET", f"{PROJECT}actions/"): page(
                [
                    {"id": 7, "name": "Signed up", "deleted": False, "steps": []},
                    {"id": 8, "name": "Retired", "deleted": True, "steps": []},
                ]
            ),
            ("GET", f"{PROJECT}property_definitions/"): property_page,
            ("POST", INSIGHTS): (201, load("insight.json")),
        }
    )


@pytest.fixture
def client(fake: FakeSession) -> Client:
    return Client(base_url=BASE, api_key=KEY, project_id=1, session=fake)


def sent(fake: FakeSession, path: str) -> list:
    """Bodies of the calls made to ``path``, oldest first."""
    return [call.body for call in fake.calls if call.path == path]
