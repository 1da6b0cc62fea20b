"""A small project for the catalog endpoints: persons, events, definitions, an action and cohorts in both projects."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from local_backend.clock import parse_instant
from local_backend.store.actions import create_action
from local_backend.store.cohorts import create_cohort
from local_backend.store.db import transaction
from local_backend.store.definitions import definition_id
from local_backend.store.event_rows import to_micros
from tests.factories import add_events

NOW = "2026-01-15T12:00:00.000000Z"

AUTH_CASES = [
    # (case, key kind, status, code)
    ("ok", "all", None, None),
    ("no key", None, 401, "not_authenticated"),
    ("bad key", "bad", 401, "authentication_failed"),
    ("missing scope", "weak", 403, "permission_denied"),
    ("key for another project", "other", 403, "permission_denied"),
]


@dataclass
class Seed:
    project_id: int
    other_project_id: int
    persons: dict[str, int]
    action_id: int
    other_action_id: int
    static_cohort_id: int
    property_cohort_id: int
    other_cohort_id: int
    event_uuid: str
    other_event_uuid: str
    person_uuid: str
    other_person_id: int


def micros(text: str) -> int:
    return to_micros(parse_instant(text))


def add_event_definitions(conn, project_id: int, rows: list[tuple[str, int, str, str]]) -> None:
    """(name, volume, first seen, last seen) rows, as ingestion writes them."""
    with transaction(conn):
        conn.executemany(
            "INSERT INTO event_definitions (project_id, name, volume, created_at, last_seen_at) VALUES (?,?,?,?,?)",
            [(project_id, name, volume, micros(first), micros(last)) for name, volume, first, last in rows],
        )


def add_property_definitions(conn, project_id: int, rows: list[tuple[int, str, int, str | None, bool]]) -> None:
    """(type, name, group_type_index, property_type, is_numerical) rows, as ingestion writes them."""
    with transaction(conn):
        conn.executemany(
            "INSERT INTO property_definitions (project_id, type, name, group_type_index, property_type,"
            " is_numerical) VALUES (?,?,?,?,?,?)",
            [(project_id, kind, name, index, ptype, int(num)) for kind, name, index, ptype, num in rows],
        )


def seed_catalog(conn, world) -> Seed:
    persons = add_events(
        conn,
        world.project_id,
        [
            ("$pageview", "alice", "2026-01-10T10:00:00Z", {"$current_url": "https://app.example.com/pricing"}),
            ("signup", "alice", "2026-01-10T10:05:00Z", {"plan": "pro"}),
            ("$pageview", "bob", "2026-01-11T09:00:00Z", {"$current_url": "https://app.example.com/"}),
        ],
        persons={"alice": {"email": "alice@example.com", "plan": "pro"}, "bob": {"email": "bob@corp.io"}},
    )
    other = add_events(conn, world.other_project_id, [("$pageview", "zed", "2026-01-10T10:00:00Z")])
    add_event_definitions(
        conn,
        world.project_id,
        [("$pageview", 2, "2026-01-10T10:00:00Z", "2026-01-11T09:00:00Z"),
         ("signup", 1, "2026-01-10T10:05:00Z", "2026-01-10T10:05:00Z")],
    )  # fmt: skip
    add_event_definitions(
        conn, world.other_project_id, [("$pageview", 1, "2026-01-10T10:00:00Z", "2026-01-10T10:00:00Z")]
    )
    add_property_definitions(
        conn,
        world.project_id,
        [(1, "$current_url", -1, "String", False), (1, "plan", -1, "String", False),
         (2, "email", -1, "String", False), (3, "industry", 0, "String", False)],
    )  # fmt: skip
    step = [{"event": "signup", "url": None, "url_matching": "contains", "properties": []}]
    action_id = create_action(conn, project_id=world.project_id, user_id=world.user_id,
                              values={"name": "Signed up", "steps": step}, now=NOW)  # fmt: skip
    other_action_id = create_action(conn, project_id=world.other_project_id, user_id=world.user_id,
                                    values={"name": "Elsewhere", "steps": step}, now=NOW)  # fmt: skip
    static = create_cohort(conn, project_id=world.project_id, user_id=world.user_id,
                           values={"name": "Beta", "is_static": True}, members={persons["alice"]}, now=NOW)  # fmt: skip
    rules = {"properties": {"type": "AND", "values": [{"key": "plan", "value": "pro", "type": "person"}]}}
    by_property = create_cohort(conn, project_id=world.project_id, user_id=world.user_id,
                                values={"name": "Pro", "filters": rules}, members=None, now=NOW)  # fmt: skip
    other_cohort = create_cohort(conn, project_id=world.other_project_id, user_id=world.user_id,
                                 values={"name": "Theirs", "filters": rules}, members=None, now=NOW)  # fmt: skip
    event_uuid = conn.execute("SELECT uuid FROM events WHERE project_id = ? AND event = 'signup'",
                              (world.project_id,)).fetchone()[0]  # fmt: skip
    other_event_uuid = conn.execute("SELECT uuid FROM events WHERE project_id = ?",
                                    (world.other_project_id,)).fetchone()[0]  # fmt: skip
    person_uuid = conn.execute("SELECT uuid FROM persons WHERE id = ?", (persons["alice"],)).fetchone()[0]
    return Seed(
        project_id=world.project_id,
        other_project_id=world.other_project_id,
        persons=persons,
        action_id=action_id,
        other_action_id=other_action_id,
        static_cohort_id=static,
        property_cohort_id=by_property,
        other_cohort_id=other_cohort,
        event_uuid=event_uuid,
        other_event_uuid=other_event_uuid,
        person_uuid=person_uuid,
        other_person_id=other["zed"],
    )


def fill(text: str, seed: Seed) -> str:
    return (
        text.replace("{pid}", str(seed.project_id))
        .replace("{aid}", str(seed.action_id))
        .replace("{oaid}", str(seed.other_action_id))
        .replace("{cid}", str(seed.static_cohort_id))
        .replace("{pcid}", str(seed.property_cohort_id))
        .replace("{ocid}", str(seed.other_cohort_id))
        .replace("{eid}", seed.event_uuid)
        .replace("{oeid}", seed.other_event_uuid)
        .replace("{person}", str(seed.persons["alice"]))
        .replace("{puuid}", seed.person_uuid)
        .replace("{operson}", str(seed.other_person_id))
        .replace("{edid}", definition_id(seed.project_id, "event", "$pageview"))
        .replace("{pdid}", definition_id(seed.project_id, "person", "email"))
    )


def send(client, method: str, path: str, body: Any, headers: dict[str, str]):
    if isinstance(body, str):
        return client.request(method, path, content=body, headers={**headers, "Content-Type": "application/json"})
    return client.request(method, path, json=body, headers=headers)


def check_auth_case(client, world, seed, method, path, body, ok_status, weak_scope, kind, status, code) -> None:
    keys = {
        "all": world.key,
        "bad": "phx_not_a_real_key",
        "weak": world.make_key(weak_scope),
        "other": world.make_key("*", projects=[world.other_project_id]),
    }
    headers = {"Authorization": f"Bearer {keys[kind]}"} if kind else {}
    response = send(client, method, fill(path, seed), body, headers)
    assert response.status_code == (status or ok_status), response.text
    if code is not None:
        assert response.json()["code"] == code


def check_bad_input(client, world, seed, method, path, body, status, code, attr, *, listing: str) -> None:
    """The request fails with this envelope, and the listing is the same after it as before."""
    before = client.get(fill(listing, seed), headers=world.headers()).json()
    response = send(client, method, fill(path, seed), body, world.headers())
    assert response.status_code == status, response.text
    error = response.json()
    assert set(error) == {"type", "code", "detail", "attr"}
    assert (error["code"], error["attr"]) == (code, attr), error
    assert client.get(fill(listing, seed), headers=world.headers()).json() == before


def stored(conn, sql: str, *params: Any) -> list[Any]:
    return [tuple(row) if len(row) > 1 else row[0] for row in conn.execute(sql, params)]


def as_json(value: Any) -> str:
    return json.dumps(value)
