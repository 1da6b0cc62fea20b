"""Materialized properties: the command, the API, the automatic choice and the batched backfill.

Calculations reading the columns give the JSON's answers: ``test_materialized_answers.py``.
"""

from __future__ import annotations

import json
from datetime import date

import pytest

from local_backend.__main__ import main
from local_backend.store.materialized import backfill, column_name, list_materialized, materialize
from local_backend.store.property_usage import auto_materialize, most_used
from tests.factories import add_events

T = "2026-01-10T10:00:00Z"
VALUES = {"s": "pro", "n": 5, "f": 1.5, "bt": True, "bf": False, "st": "true", "nul": None, "e": ""}


def url(world, suffix: str = "") -> str:
    return f"/api/projects/{world.project_id}/materialized_properties/{suffix}"


@pytest.fixture
def events(conn, world):
    specs = [("$pageview", name, T, {"plan": value}) for name, value in VALUES.items()]
    add_events(conn, world.project_id, [*specs, ("$pageview", "missing", T, {})])
    return world.project_id


def column_values(conn, column: str) -> dict[str, object]:
    rows = conn.execute(f"SELECT distinct_id, {column} FROM events")
    return dict(rows.fetchall())


EXPECTED = {
    "s": "pro",
    "n": 5,
    "f": 1.5,
    "bt": "true",
    "bf": "false",
    "st": "true",
    "nul": None,
    "e": "",
    "missing": None,
}


def test_the_column_holds_what_a_hot_column_holds(conn, events, world):
    column = materialize(conn, world.project_id, "plan", now=T)
    assert backfill(conn, column, batch=3) == 9
    assert column_values(conn, column) == EXPECTED
    # and the types are the JSON's own: no affinity turns 5 into '5'
    assert conn.execute(f"SELECT typeof({column}) FROM events WHERE distinct_id = 'n'").fetchone()[0] == "integer"


def test_new_and_changed_events_fill_the_column(conn, events, world):
    column = materialize(conn, world.project_id, "plan", now=T)
    backfill(conn, column)
    add_events(
        conn,
        world.project_id,
        [("$pageview", "late", T, {"plan": False}), ("$pageview", "late-none", T, {"x": 1})],
    )
    conn.execute("UPDATE events SET properties = '{\"plan\": \"team\"}' WHERE distinct_id = 's'")
    values = column_values(conn, column)
    assert values["late"] == "false"
    assert values["late-none"] is None
    assert values["s"] == "team"


def test_cli_materializes_lists_and_drops(db_path, conn, events, world, capsys):
    base = ["materialize", "--db", str(db_path), "--project", str(world.project_id), "--quiet"]
    assert main([*base, "--property", "plan"]) == 0
    made = json.loads(capsys.readouterr().out)
    assert made == {"property": "plan", "type": "event", "column": column_name("event", "plan"), "backfilled_rows": 9}
    assert main([*base, "--property", "plan", "--person"]) == 0
    capsys.readouterr()
    assert main([*base, "--list"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(row["type"], row["property"], row["state"], row["source"]) for row in listed] == [
        ("event", "plan", "ready", "manual"),
        ("person", "plan", "ready", "manual"),
    ]
    assert main([*base, "--property", "plan", "--drop"]) == 0
    capsys.readouterr()
    columns = {row[1] for row in conn.execute("PRAGMA table_xinfo(events)")}
    assert column_name("event", "plan") not in columns
    assert [row["type"] for row in list_materialized(conn, world.project_id)] == ["person"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--project", "999", "--property", "plan"], "Project 999 does not exist."),
        (["--project", "1", "--property", 'pl"an'], "cannot hold quotes"),
        (["--project", "1", "--property", "x" * 201], "at most 200 characters"),
        (["--project", "1", "--property", "nothing", "--drop"], "is not materialized"),
    ],
)
def test_cli_refuses_bad_input_with_exit_2(db_path, world, capsys, args, message):
    assert main(["materialize", "--db", str(db_path), "--quiet", *args]) == 2
    assert message in capsys.readouterr().err


def test_capture_during_the_backfill_is_answered_and_filled(client, conn, events, world):
    column = materialize(conn, world.project_id, "plan", now=T)
    answered = []

    def progress(done: int, total: int) -> None:
        if not answered:  # between the first and second batch: no lock is held
            reply = client.post(
                "/capture/",
                json={"api_key": world.project_token, "event": "buy", "distinct_id": "mid", "properties": {"plan": 7}},
            )
            answered.append((reply.status_code, done, total))

    backfill(conn, column, batch=2, progress=progress)
    assert answered == [(200, 2, 9)]
    values = column_values(conn, column)
    assert values["mid"] == 7
    assert {k: v for k, v in values.items() if k != "mid"} == EXPECTED


def test_api_materializes_lists_and_drops(client, events, world):
    made = client.post(url(world), json={"property": "plan"}, headers=world.headers())
    assert made.status_code == 201, made.text
    assert made.json()["column"] == column_name("event", "plan")
    assert made.json()["state"] == "backfilling"  # the backfill runs after the response
    listed = client.get(url(world), headers=world.headers()).json()
    assert [(row["property"], row["state"], row["backfill_remaining"]) for row in listed["results"]] == [
        ("plan", "ready", 0)
    ]
    assert listed["auto_limit"] == 10
    gone = client.delete(url(world), params={"property": "plan"}, headers=world.headers())
    assert gone.status_code == 204
    assert client.get(url(world), headers=world.headers()).json()["results"] == []
    again = client.delete(url(world), params={"property": "plan"}, headers=world.headers())
    assert again.status_code == 404


@pytest.mark.parametrize(
    "body",
    [{"property": 'a"b'}, {"property": "a'b"}, {"property": "a\u0000b"}, {"property": "x" * 201}, {"property": ""}],
)
def test_api_refuses_bad_property_names_naming_the_field(client, world, body):
    response = client.post(url(world), json=body, headers=world.headers())
    assert response.status_code == 400, response.text
    assert response.json()["attr"] == "property"
    assert set(response.json()) == {"type", "code", "detail", "attr"}


def test_api_refuses_a_bad_type_and_an_unknown_project(client, world):
    response = client.post(url(world), json={"property": "plan", "type": "group"}, headers=world.headers())
    assert (response.status_code, response.json()["attr"]) == (400, "type")
    unknown = "/api/projects/999/materialized_properties/"
    response = client.post(unknown, json={"property": "p"}, headers=world.headers())
    assert response.status_code == 404
    response = client.delete(url(world), params={"property": "a\u0000b"}, headers=world.headers())
    assert (response.status_code, response.json()["attr"]) == (400, "property")


def test_reading_needs_insight_read_and_changes_insight_write(client, world):
    reader = world.make_key("insight:read")
    assert client.get(url(world), headers=world.headers(reader)).status_code == 200
    for method, kwargs in (("post", {"json": {"property": "plan"}}), ("delete", {"params": {"property": "plan"}})):
        response = getattr(client, method)(url(world), headers=world.headers(reader), **kwargs)
        assert response.status_code == 403
        assert "insight:write" in response.json()["detail"]
    response = client.post(url(world, "auto/"), headers=world.headers(reader))
    assert response.status_code == 403
    other = world.make_key("plugin:read")
    assert client.get(url(world), headers=world.headers(other)).status_code == 403


def trend_filtered_by(client, world, *keys: str) -> None:
    properties = [{"key": key, "value": "x", "operator": "exact", "type": "event"} for key in keys]
    body = {"events": [{"id": "$pageview"}], "properties": properties, "date_from": "-7d"}
    response = client.post(f"/api/projects/{world.project_id}/insights/trend/", json=body, headers=world.headers())
    assert response.status_code == 200, response.text


def test_the_automatic_choice_keeps_the_most_used_up_to_its_limit(client, conn, events, world):
    for _ in range(3):
        trend_filtered_by(client, world, "plan", "team")
    trend_filtered_by(client, world, "plan", "seat")
    client.post(
        f"/api/projects/{world.project_id}/insights/trend/",
        json={"events": [{"id": "$pageview"}], "breakdown": "region", "date_from": "-7d"},
        headers=world.headers(),
    )
    today = date.today()
    assert most_used(conn, world.project_id, today, 10) == [
        ("event", "plan", 4),
        ("event", "team", 3),
        ("event", "region", 1),
        ("event", "seat", 1),
    ]
    choice = auto_materialize(conn, world.project_id, limit=2, today=today, now=T)
    assert choice.added == [("event", "plan"), ("event", "team")]
    materialize(conn, world.project_id, "seat", now=T)  # by hand: never withdrawn, not counted in the limit
    choice = auto_materialize(conn, world.project_id, limit=1, today=today, now=T)
    assert (choice.dropped, choice.kept) == ([("event", "team")], [("event", "plan")])
    rows = list_materialized(conn, world.project_id)
    assert [(row["property"], row["source"], row["uses_30_days"]) for row in rows] == [
        ("plan", "auto", 4),
        ("seat", "manual", 1),
    ]
    columns = {row[1] for row in conn.execute("PRAGMA table_xinfo(events)")}
    assert column_name("event", "team") not in columns


def test_the_automatic_choice_through_the_api_uses_the_setting(client, events, world):
    trend_filtered_by(client, world, "plan")
    response = client.post(url(world, "auto/"), json={"limit": 0}, headers=world.headers())
    assert response.status_code == 200, response.text
    assert response.json()["added"] == []
    response = client.post(url(world, "auto/"), headers=world.headers())
    assert [(use["type"], use["property"]) for use in response.json()["added"]] == [("event", "plan")]
    listed = client.get(url(world), headers=world.headers()).json()
    assert [(row["property"], row["source"], row["state"]) for row in listed["results"]] == [("plan", "auto", "ready")]
    assert listed["most_used"] == [{"property": "plan", "type": "event", "uses": 1}]


@pytest.mark.parametrize(
    "limit, status",
    [(1.0, 200), (0, 200), (1.5, 400), ("1", 400), (True, 400), (101, 400)],
)
def test_the_automatic_choice_takes_a_whole_number_as_json_schema_reads_one(client, world, limit, status):
    # JSON Schema's integer holds 1.0 but not 1.5, "1" or true: the body is read as its schema says
    response = client.post(url(world, "auto/"), json={"limit": limit}, headers=world.headers())
    assert response.status_code == status, response.text
    if status == 400:
        assert response.json()["attr"] == "limit"
