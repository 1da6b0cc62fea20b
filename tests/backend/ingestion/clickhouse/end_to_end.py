"""Two databases, one keeping its events in SQLite and one in chdb, fed the same events the same way, and the
insight answers each gives (the helpers of ``test_end_to_end``).

The events, on Mon 2026-01-12 .. Wed 2026-01-14 (the clock stands at Thu 2026-01-15 12:00 UTC), come in two
sends; the second one merges a person whose events were already stored, resends an event by its uuid, and
names a group:

    first send                                              second send
    anon-1  $pageview  12th 09:00  Chrome  /home            alice  $identify (anon-1)  14th 12:00
    anon-1  $pageview  12th 09:05  Chrome  /pricing         bob    purchase  13th 09:00  (the same uuid again)
    alice   $pageview  12th 09:20  Firefox /signup  plan=pro  alice  purchase  14th 12:30  company acme
    alice   signup     12th 10:10                           alice  $groupidentify company acme (name Acme)
    bob     $pageview  13th 08:00  Chrome  /home    plan=free carol  $pageview 14th 11:05 Safari /pricing plan=free
    bob     signup     13th 08:30
    bob     purchase   13th 09:00  company acme (uuid U)
    alice   $pageview  13th 12:00  Firefox /pricing
    carol   $pageview  14th 11:00  Safari  /home
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from local_backend.app import create_app
from local_backend.clock import FixedClock
from local_backend.config import Settings
from local_backend.store.accounts import create_personal_api_key, get_or_create_user
from local_backend.store.engine.choice import open_database

RESENT = "01890000-0000-7000-8000-00000000e2e0"
NOW_TEXT = "2026-01-15T12:00:00Z"


def _view(who: str, when: str, browser: str, url: str, **extra: Any) -> dict[str, Any]:
    properties = {"$browser": browser, "$current_url": url, **extra}
    return {"event": "$pageview", "distinct_id": who, "timestamp": f"2026-01-{when}:00Z", "properties": properties}


def _event(name: str, who: str, when: str, **properties: Any) -> dict[str, Any]:
    return {"event": name, "distinct_id": who, "timestamp": f"2026-01-{when}:00Z", "properties": properties}


PURCHASE = {**_event("purchase", "bob", "13T09:00", **{"$groups": {"company": "acme"}}), "uuid": RESENT}
FIRST = [
    _view("anon-1", "12T09:00", "Chrome", "/home"),
    _view("anon-1", "12T09:05", "Chrome", "/pricing"),
    _view("alice", "12T09:20", "Firefox", "/signup", **{"$set": {"plan": "pro"}}),
    _event("signup", "alice", "12T10:10"),
    _view("bob", "13T08:00", "Chrome", "/home", **{"$set": {"plan": "free"}}),
    _event("signup", "bob", "13T08:30"),
    PURCHASE,
    _view("alice", "13T12:00", "Firefox", "/pricing"),
    _view("carol", "14T11:00", "Safari", "/home"),
]
SECOND = [
    _event("$identify", "alice", "14T12:00", **{"$anon_distinct_id": "anon-1"}),
    PURCHASE,
    _event("purchase", "alice", "14T12:30", **{"$groups": {"company": "acme"}}),
    _event("$groupidentify", "alice", "14T12:31", **{"$group_type": "company", "$group_key": "acme",
                                                      "$group_set": {"name": "Acme"}}),
    _view("carol", "14T11:05", "Safari", "/pricing", **{"$set": {"plan": "free"}}),
]  # fmt: skip


def write_jsonl(path: Path, events: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(event) + "\n" for event in events))
    return path


@dataclass
class Site:
    """One database served by the app: its client, project and keys."""

    client: TestClient
    project_id: int
    token: str
    key: str

    def send(self, batch: list[dict[str, Any]]) -> None:
        answer = self.client.post("/batch/", json={"api_key": self.token, "batch": batch})
        assert answer.status_code == 200, answer.text

    def insight(self, kind: str, body: dict[str, Any]) -> Any:
        answer = self.client.post(
            f"/api/projects/{self.project_id}/insights/{kind}/",
            json=body,
            headers={"Authorization": f"Bearer {self.key}"},
        )
        assert answer.status_code == 200, answer.text
        return answer.json()


@contextmanager
def site(db: Path, clock: FixedClock) -> Iterator[Site]:
    """The app on ``db`` (a project made by ``create-project``), with a key of every scope."""
    conn = open_database(db)
    try:
        project_id, token = conn.execute("SELECT id, api_token FROM projects ORDER BY id LIMIT 1").fetchone()
        user = get_or_create_user(conn, email="analyst@example.com", now=NOW_TEXT, current_project_id=project_id)
        key = create_personal_api_key(
            conn, user_id=user["id"], scopes=["*"], scoped_projects=None, label="e2e", now=NOW_TEXT
        )
    finally:
        conn.close()
    with TestClient(create_app(Settings(db_path=db, clock=clock)), raise_server_exceptions=False) as client:
        yield Site(client, project_id, token, key)


RANGE = {"date_from": "2026-01-12", "date_to": "2026-01-14"}


def by_value(body: dict[str, Any]) -> dict[str, list[float]]:
    return {series["breakdown_value"]: series["data"] for series in body["result"]}


def answers(target: Site) -> dict[str, Any]:
    """Every insight the end-to-end tests compare, reduced to the numbers (and labels) that matter."""
    pageviews = [{"id": "$pageview", "type": "events"}]

    def trend(**extra: Any) -> Any:
        return target.insight("trend", {**RANGE, "events": pageviews, **extra})

    funnel_steps = [
        {"id": name, "type": "events", "order": i} for i, name in enumerate(["$pageview", "signup", "purchase"])
    ]
    funnel = target.insight("funnel", {**RANGE, "events": funnel_steps, "insight": "FUNNELS"})
    by_browser = target.insight(
        "funnel", {**RANGE, "events": funnel_steps, "insight": "FUNNELS", "breakdown": "$browser",
                   "breakdown_type": "event"},
    )  # fmt: skip
    groups = target.insight("trend", {**RANGE, "events": [
        {"id": "purchase", "type": "events", "math": "unique_group", "math_group_type_index": 0}]})  # fmt: skip
    retention = target.insight("retention", {"total_intervals": 4, "period": "Day"})
    paths = target.insight("path", {"path_type": "$pageview"})
    return {
        "total": trend()["result"][0]["data"],
        "dau": trend(events=[{"id": "$pageview", "type": "events", "math": "dau"}])["result"][0]["data"],
        "by_browser": by_value(trend(breakdown="$browser", breakdown_type="event")),
        "by_plan": by_value(trend(breakdown="plan", breakdown_type="person")),
        "purchases": target.insight("trend", {**RANGE, "events": [{"id": "purchase"}]})["result"][0]["data"],
        "companies": groups["result"][0]["data"],
        "funnel": [step["count"] for step in funnel["result"]],
        "funnel_by_browser": {g[0]["breakdown_value"]: [s["count"] for s in g] for g in by_browser["result"]},
        "retention": [[value["count"] for value in row["values"]] for row in retention["result"]],
        "paths": [(e["source"], e["target"], e["value"], e["average_conversion_time"]) for e in paths["result"]],
    }
