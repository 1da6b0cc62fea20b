"""Cohorts: access, bad input, static cohorts from ids and CSV files, property rules and their members."""

from __future__ import annotations

import pytest

from tests.backend.catalog_helpers import (
    AUTH_CASES,
    check_auth_case,
    check_bad_input,
    fill,
    seed_catalog,
    send,
    stored,
)
from tests.factories import add_events

COHORTS = "/api/projects/{pid}/cohorts"
ONE = COHORTS + "/{cid}"
ADD = ONE + "/add_persons_to_static_cohort"
RULES = {"properties": {"type": "OR", "values": [{"key": "plan", "value": ["pro", "team"], "type": "person"}]}}

# (name, method, path, body, status when all is well, a scope that is NOT enough)
ENDPOINTS = [
    ("list", "GET", COHORTS, None, 200, "action:read"),
    ("create", "POST", COHORTS, {"name": "Paying", "filters": RULES}, 201, "cohort:read"),
    ("retrieve", "GET", ONE, None, 200, "person:read"),
    ("update", "PATCH", ONE, {"description": "Early users"}, 200, "cohort:read"),
    ("delete", "DELETE", ONE, None, 405, "cohort:read"),
    ("persons", "GET", ONE + "/persons", None, 200, "cohort:read"),
    ("persons without cohort scope", "GET", ONE + "/persons", None, 200, "person:read"),
    ("activity", "GET", ONE + "/activity", None, 200, "cohort:write"),
    ("add persons", "PATCH", ONE + "/add_persons_to_static_cohort", {"person_ids": []}, 200, "cohort:read"),
]

BAD_INPUT = [
    # (method, path, body, status, code, attr)
    ("POST", COHORTS, {"filters": RULES}, 400, "required", "name"),
    ("POST", COHORTS, {"name": "  ", "filters": RULES}, 400, "required", "name"),
    ("POST", COHORTS, {"name": "No rules"}, 400, "invalid_input", "filters"),
    ("POST", COHORTS, {"name": "x", "filters": {"properties": []}}, 400, "invalid_input", "filters"),
    ("POST", COHORTS, {"name": "x", "filters": {"properties": {"type": "AND", "values": []}}}, 400,
     "invalid_input", "filters__properties__values"),
    ("POST", COHORTS, {"name": "x", "filters": {"properties": {"type": "XOR", "values": [{"key": "a"}]}}}, 400,
     "invalid_input", "filters__properties__type"),
    ("POST", COHORTS, {"name": "x", "filters": {"properties": {"type": "AND", "values": [{"value": 1}]}}}, 400,
     "invalid_input", "filters__properties__values__0"),
    ("POST", COHORTS, {"name": "x", "filters": {"properties": {"type": "AND", "values": [
        {"key": "$pageview", "type": "behavioral", "value": "performed_event"}]}}}, 400,
     "unsupported", "filters__properties__values__0__type"),
    ("POST", COHORTS, {"name": "x", "filters": {"properties": {"type": "AND", "values": [
        {"key": "id", "type": "cohort", "value": 1}]}}}, 400, "unsupported", "filters__properties__values__0__type"),
    ("POST", COHORTS, {"name": "x", "filters": {"properties": {"type": "AND", "values": [
        {"key": "plan", "operator": "sounds_like", "value": "pro"}]}}}, 400, "invalid_input",
     "filters__properties__values__0__operator"),
    ("POST", COHORTS, {"name": "x", "filters": {"properties": {"type": "AND", "values": [
        {"type": "OR", "values": [{"type": "OR", "values": [{"type": "OR", "values": [{"type": "OR", "values": [
            {"type": "OR", "values": [{"type": "OR", "values": [{"key": "a"}]}]}]}]}]}]}]}}}, 400,
     "invalid_input", "filters__properties__values__0__values__0__values__0__values__0__values__0__values__0"),
    ("POST", COHORTS, {"name": "x", "distinct_ids": ["alice"]}, 400, "invalid_input", "is_static"),
    ("POST", COHORTS, {"name": "x", "is_static": True, "distinct_ids": "alice"}, 400, "invalid_input",
     "distinct_ids"),
    ("POST", COHORTS, {"name": "x", "is_static": "sometimes"}, 400, "invalid_input", "is_static"),
    ("POST", COHORTS, "[", 400, "parse_error", None),
    ("POST", COHORTS, '{"name": "x", "filters": ' + "[" * 5000 + "]" * 5000 + "}", 400, "parse_error", None),
    ("PATCH", ONE, {"is_static": False}, 400, "invalid_input", "is_static"),
    ("PATCH", ONE, {"name": None}, 400, "null", "name"),
    ("PATCH", ONE, {"name": ""}, 400, "blank", "name"),
    ("PATCH", COHORTS + "/{pcid}", {"distinct_ids": ["alice"]}, 400, "invalid_input", "distinct_ids"),
    ("PATCH", COHORTS + "/{pcid}", {"filters": {"properties": {"type": "AND", "values": []}}}, 400,
     "invalid_input", "filters__properties__values"),
    ("PATCH", COHORTS + "/{ocid}", {"name": "Mine"}, 404, "not_found", None),
    ("GET", COHORTS + "/{ocid}", None, 404, "not_found", None),
    ("GET", COHORTS + "/{ocid}/persons", None, 404, "not_found", None),
    ("GET", COHORTS + "/{ocid}/activity", None, 404, "not_found", None),
    ("GET", COHORTS + "/abc", None, 404, "not_found", None),
    ("GET", COHORTS + "/-1", None, 404, "not_found", None),
    ("GET", ONE + "/persons?limit=abc", None, 400, "invalid_input", "limit"),
    ("PATCH", ADD, {"person_ids": ["not-a-uuid"]}, 400, "invalid_input", "person_ids__0"),
    ("PATCH", ADD, {"person_ids": "0190e1c2-0000-7000-8000-000000000000"}, 400, "invalid_input", "person_ids"),
    ("PATCH", ADD, {"person_ids": ["0190e1c2-0000-7000-8000-000000000000"]}, 400, "invalid_input", "person_ids"),
    ("PATCH", COHORTS + "/{pcid}/add_persons_to_static_cohort", {"person_ids": []}, 400, "invalid_input",
     "person_ids"),
    ("PATCH", COHORTS + "/{ocid}/add_persons_to_static_cohort", {"person_ids": []}, 404, "not_found", None),
    ("PATCH", ADD, "[", 400, "parse_error", None),
]  # fmt: skip


@pytest.fixture
def seed(conn, world):
    return seed_catalog(conn, world)


@pytest.mark.parametrize("case, kind, status, code", AUTH_CASES, ids=[c[0] for c in AUTH_CASES])
@pytest.mark.parametrize("name, method, path, body, ok_status, weak_scope", ENDPOINTS, ids=[e[0] for e in ENDPOINTS])
def test_auth_table(client, world, seed, name, method, path, body, ok_status, weak_scope, case, kind, status, code):
    if name == "persons without cohort scope" and kind == "weak":
        # a key with person:read but not cohort:read; and one with cohort:read but not person:read
        for scope, missing in (("person:read", "cohort:read"), ("cohort:read", "person:read")):
            headers = {"Authorization": f"Bearer {world.make_key(scope)}"}
            response = send(client, method, fill(path, seed), body, headers)
            assert response.status_code == 403
            assert response.json()["detail"] == f"API key missing required scope '{missing}'"
        return
    check_auth_case(client, world, seed, method, path, body, ok_status, weak_scope, kind, status, code)


@pytest.mark.parametrize("method, path, body, status, code, attr", BAD_INPUT)
def test_bad_input_table(client, world, seed, method, path, body, status, code, attr):
    check_bad_input(client, world, seed, method, path, body, status, code, attr, listing=COHORTS)


def url(world, suffix: str = "") -> str:
    return f"/api/projects/{world.project_id}/cohorts/{suffix}"


def member_ids(client, world, cohort_id: int) -> list[str]:
    response = client.get(url(world, f"{cohort_id}/persons/"), headers=world.headers())
    assert response.status_code == 200, response.text
    return sorted(d for person in response.json()["results"] for d in person["distinct_ids"])


def test_static_cohort_from_distinct_ids_reports_unknown_ones(client, world, seed, conn):
    body = {"name": "Launch list", "is_static": True, "distinct_ids": ["bob", "nobody", "alice", "bob", "ghost"]}
    created = client.post(url(world), json=body, headers=world.headers())
    assert created.status_code == 201, created.text
    cohort = created.json()
    assert (cohort["count"], cohort["unknown_ids"], cohort["is_static"]) == (2, ["nobody", "ghost"], True)
    assert cohort["last_calculation"] == "2026-01-15T12:00:00.000000Z"
    assert member_ids(client, world, cohort["id"]) == ["alice", "bob"]
    retrieved = client.get(url(world, str(cohort["id"])), headers=world.headers()).json()
    assert (retrieved["count"], retrieved["unknown_ids"]) == (2, None)
    assert stored(conn, "SELECT count(*) FROM cohort_people WHERE cohort_id = ?", cohort["id"]) == [2]


def test_distinct_ids_of_another_project_are_unknown(client, world, seed):
    body = {"name": "Cross", "is_static": True, "distinct_ids": ["zed"]}
    cohort = client.post(url(world), json=body, headers=world.headers()).json()
    assert (cohort["count"], cohort["unknown_ids"]) == (0, ["zed"])


def test_a_merged_person_counts_once(client, world, conn):
    add_events(conn, world.project_id, [("signup", "anon-1", "2026-01-10T10:00:00Z")],
               same_person=[("anon-1", "user-1")])  # fmt: skip
    body = {"name": "Merged", "is_static": True, "distinct_ids": ["anon-1", "user-1"]}
    cohort = client.post(url(world), json=body, headers=world.headers()).json()
    assert (cohort["count"], cohort["unknown_ids"]) == (1, [])


@pytest.mark.parametrize(
    "text, expected_members, expected_unknown",
    [
        ("alice\nbob\n", ["alice", "bob"], []),  # one column, no header: distinct ids
        ("\ufeffalice\r\n\r\nnobody\r\n", ["alice"], ["nobody"]),  # BOM, CRLF, blank rows
        ("distinct_id\nbob\n", ["bob"], []),  # a header naming the column is not an id
        ("Email\nalice@example.com\nBOB@corp.io\n", ["alice"], ["BOB@corp.io"]),  # emails match exactly
        ("name,email,plan\nAlice,alice@example.com,pro\nBob,bob@corp.io,\nShort\n", ["alice", "bob"], []),
        ("email,distinct_id\nnobody@x.io,bob\n", ["bob"], []),  # distinct_id preferred over email
    ],
)
def test_static_cohort_from_csv(client, world, seed, text, expected_members, expected_unknown):
    response = client.post(
        url(world),
        data={"name": "Uploaded", "is_static": "true"},
        files={"csv": ("people.csv", text.encode(), "text/csv")},
        headers=world.headers(),
    )
    assert response.status_code == 201, response.text
    cohort = response.json()
    assert cohort["unknown_ids"] == expected_unknown
    assert member_ids(client, world, cohort["id"]) == expected_members


def test_csv_with_person_uuids(client, world, seed):
    text = f"person_id,note\n{seed.person_uuid},first\nnot-a-uuid,second\n"
    response = client.post(url(world), data={"name": "By uuid", "is_static": "true"},
                           files={"csv": ("p.csv", text.encode(), "text/csv")}, headers=world.headers())  # fmt: skip
    assert response.json()["unknown_ids"] == ["not-a-uuid"]
    assert member_ids(client, world, response.json()["id"]) == ["alice"]


@pytest.mark.parametrize(
    "content, detail",
    [
        (b"", "The CSV file is empty."),
        (b"\n\n", "The CSV file is empty."),
        (b"\xff\xfe\x00a", "The CSV file must be UTF-8 text."),
        (b"name,plan\nAlice,pro\n",
         "The CSV file needs a person_id, distinct_id or email column; its columns are name, plan."),
        (b"email\n\n", "The CSV file lists no ids."),
    ],
)  # fmt: skip
def test_bad_csv_is_refused_and_nothing_is_stored(client, world, seed, conn, content, detail):
    before = stored(conn, "SELECT count(*) FROM cohorts")
    response = client.post(url(world), data={"name": "Broken", "is_static": "true"},
                           files={"csv": ("x.csv", content, "text/csv")}, headers=world.headers())  # fmt: skip
    assert response.status_code == 400
    assert (response.json()["attr"], response.json()["detail"]) == ("csv", detail)
    assert stored(conn, "SELECT count(*) FROM cohorts") == before


def test_other_uploads_and_both_kinds_of_ids_are_refused(client, world, seed):
    other_file = client.post(url(world), data={"name": "x", "is_static": "true"},
                             files={"list": ("x.csv", b"alice", "text/csv")}, headers=world.headers())  # fmt: skip
    assert (other_file.status_code, other_file.json()["attr"]) == (400, "list")
    both = client.post(url(world), data={"name": "x", "is_static": "true", "distinct_ids": "bob"},
                       files={"csv": ("x.csv", b"alice", "text/csv")}, headers=world.headers())  # fmt: skip
    assert (both.status_code, both.json()["attr"]) == (400, "csv")


def test_patch_adds_members_to_a_static_cohort(client, world, seed):
    one = url(world, str(seed.static_cohort_id))
    added = client.patch(one, files={"csv": ("more.csv", b"bob\nalice\nmissing\n", "text/csv")},
                         headers=world.headers())  # fmt: skip
    assert added.status_code == 200, added.text
    assert (added.json()["count"], added.json()["unknown_ids"]) == (2, ["missing"])
    assert member_ids(client, world, seed.static_cohort_id) == ["alice", "bob"]
    activity = client.get(one + "/activity", headers=world.headers()).json()["results"]
    assert [c["field"] for c in activity[0]["detail"]["changes"]] == ["people"]


def test_property_cohort_counts_persons_by_current_properties(client, world, conn):
    add_events(
        conn,
        world.project_id,
        [("$pageview", d, "2026-01-10T10:00:00Z") for d in ("ann", "ben", "cat", "dan", "eve")],
        persons={"ann": {"plan": "pro"}, "ben": {"plan": "team", "seats": 12}, "cat": {"plan": "free", "seats": 50},
                 "dan": {"seats": 3}, "eve": {"plan": "Pro"}},
    )  # fmt: skip
    created = client.post(url(world), json={"name": "Paying", "filters": RULES}, headers=world.headers())
    assert created.status_code == 201, created.text
    # plan exactly "pro" or "team": ann, ben ("Pro" differs in case)
    assert (created.json()["count"], created.json()["is_static"], created.json()["unknown_ids"]) == (2, False, None)
    assert member_ids(client, world, created.json()["id"]) == ["ann", "ben"]
    big = {"properties": {"type": "AND", "values": [
        {"type": "OR", "values": [{"key": "plan", "value": "free", "type": "person"},
                                  {"key": "plan", "operator": "is_not_set", "type": "person"}]},
        {"key": "seats", "operator": "gte", "value": 3, "type": "person"}]}}  # fmt: skip
    # (plan free or no plan) and seats >= 3: cat (free, 50), dan (no plan, 3)
    cohort = client.post(url(world), json={"name": "Big unpaid", "filters": big}, headers=world.headers()).json()
    assert cohort["count"] == 2
    assert member_ids(client, world, cohort["id"]) == ["cat", "dan"]
    # rules change: only seats > 10 now, which are ben and cat
    changed = {"properties": {"type": "AND", "values": [{"key": "seats", "operator": "gt", "value": 10}]}}
    patched = client.patch(url(world, str(cohort["id"])), json={"filters": changed}, headers=world.headers())
    assert patched.json()["count"] == 2
    assert member_ids(client, world, cohort["id"]) == ["ben", "cat"]


def test_soft_delete_hides_the_cohort_and_delete_is_refused(client, world, seed):
    one = url(world, str(seed.static_cohort_id))
    refused = client.delete(one, headers=world.headers())
    assert (refused.status_code, refused.json()["code"]) == (405, "method_not_allowed")
    assert client.patch(one, json={"deleted": True}, headers=world.headers()).json()["deleted"] is True
    names = [c["name"] for c in client.get(url(world), headers=world.headers()).json()["results"]]
    assert names == ["Pro"]
    assert client.get(one, headers=world.headers()).json()["deleted"] is True
    activity = client.get(one + "/activity", headers=world.headers()).json()["results"]
    assert activity[0]["activity"] == "deleted"


def test_list_is_newest_first_and_searchable(client, world, seed):
    listed = client.get(url(world), headers=world.headers()).json()
    assert [(c["name"], c["count"]) for c in listed["results"]] == [("Pro", 1), ("Beta", 1)]
    assert [
        c["name"] for c in client.get(url(world), params={"search": "bet"}, headers=world.headers()).json()["results"]
    ] == ["Beta"]


def test_patch_with_no_ids_changes_nothing(client, world, seed):
    one = url(world, str(seed.static_cohort_id))
    patched = client.patch(one, json={"distinct_ids": ["", ""]}, headers=world.headers()).json()
    assert (patched["count"], patched["unknown_ids"]) == (1, None)
    assert client.get(one + "/activity", headers=world.headers()).json()["total_count"] == 0


def test_an_empty_filters_field_in_a_form_leaves_the_rules_as_they_are(client, world):
    created = client.post(url(world), json={"name": "Paying", "filters": RULES}, headers=world.headers()).json()
    # a form sends each of its fields, the ones left blank too
    patched = client.patch(
        url(world, str(created["id"])),
        data={"name": "Paying users", "description": ""},
        files={"filters": (None, "")},  # a multipart field without a file name: text
        headers=world.headers(),
    )
    assert patched.status_code == 200, patched.text
    assert (patched.json()["name"], patched.json()["filters"]) == ("Paying users", RULES)


def test_openapi_documents_the_csv_upload(client):
    spec = client.get("/api/schema").json()
    body = spec["paths"]["/api/projects/{project_id}/cohorts"]["post"]["requestBody"]["content"]
    assert body["multipart/form-data"]["schema"]["properties"]["csv"]["format"] == "binary"
    assert "distinct_ids" in body["application/json"]["schema"]["properties"]


def test_memberships_follow_a_merge_done_with_plain_sql(client, world, seed, conn):
    from local_backend.store.db import transaction

    alice, bob = seed.persons["alice"], seed.persons["bob"]
    both = client.post(url(world), json={"name": "Both", "is_static": True, "distinct_ids": ["alice", "bob"]},
                       headers=world.headers()).json()  # fmt: skip
    # alice merges into bob the way ingestion merges: ids and events move, then her row is deleted
    with transaction(conn):
        conn.execute("UPDATE person_distinct_ids SET person_id = ? WHERE person_id = ?", (bob, alice))
        conn.execute("UPDATE events SET person_id = ? WHERE person_id = ?", (bob, alice))
        conn.execute("DELETE FROM persons WHERE id = ?", (alice,))
    beta = client.get(url(world, str(seed.static_cohort_id)), headers=world.headers()).json()
    assert beta["count"] == 1  # alice's place in Beta is now bob's
    assert member_ids(client, world, seed.static_cohort_id) == ["alice", "bob"]  # one person, both ids
    assert client.get(url(world, str(both["id"])), headers=world.headers()).json()["count"] == 1
    assert stored(conn, "SELECT count(*) FROM cohort_people WHERE person_id = ?", alice) == [0]


def test_deleting_a_person_takes_them_out_of_cohorts(client, world, seed, conn):
    from local_backend.store.db import transaction

    with transaction(conn):
        conn.execute("DELETE FROM person_distinct_ids WHERE person_id = ?", (seed.persons["alice"],))
        conn.execute("DELETE FROM persons WHERE id = ?", (seed.persons["alice"],))
    assert client.get(url(world, str(seed.static_cohort_id)), headers=world.headers()).json()["count"] == 0


def test_move_cohort_members_hands_memberships_over(conn, world, seed):
    from local_backend.store.cohorts import move_cohort_members

    move_cohort_members(conn, from_person_ids=[seed.persons["alice"]], to_person_id=seed.persons["bob"])
    assert stored(conn, "SELECT person_id FROM cohort_people WHERE cohort_id = ?", seed.static_cohort_id) == [
        seed.persons["bob"]
    ]


def test_add_persons_by_uuid_adds_exactly_them(client, world, seed, conn):
    # the seeded static cohort holds alice; adding bob (by his uuid) and alice again leaves the two of them
    bob = conn.execute(
        "SELECT p.uuid FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id"
        " WHERE d.distinct_id = 'bob' AND p.project_id = ?",
        (world.project_id,),
    ).fetchone()[0]
    add = url(world, f"{seed.static_cohort_id}/add_persons_to_static_cohort/")
    response = client.patch(add, json={"person_ids": [bob.upper(), seed.person_uuid]}, headers=world.headers())
    assert response.status_code == 200, response.text
    assert (response.json()["id"], response.json()["count"]) == (seed.static_cohort_id, 2)
    assert member_ids(client, world, seed.static_cohort_id) == ["alice", "bob"]


def test_add_persons_with_one_unknown_uuid_adds_no_one(client, world, seed, conn):
    bob = conn.execute(
        "SELECT uuid FROM persons WHERE project_id = ? AND uuid != ?", (world.project_id, seed.person_uuid)
    )
    ghost = "0190e1c2-0000-7000-8000-00000000dead"
    add = url(world, f"{seed.static_cohort_id}/add_persons_to_static_cohort/")
    response = client.patch(add, json={"person_ids": [bob.fetchone()[0], ghost]}, headers=world.headers())
    assert response.status_code == 400
    assert ghost in response.json()["detail"]
    assert member_ids(client, world, seed.static_cohort_id) == ["alice"]
