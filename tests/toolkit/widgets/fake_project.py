"""A project with three events, two actions (one deleted) and a few properties, answered by a fake session."""

from __future__ import annotations

from ..fakes import FakeSession, load

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


def project_session() -> FakeSession:
    """A fake session answering the project's definitions, actions, properties and insight creation."""
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


def sent(fake: FakeSession, path: str) -> list:
    """Bodies of the calls made to ``path``, oldest first."""
    return [call.body for call in fake.calls if call.path == path]
