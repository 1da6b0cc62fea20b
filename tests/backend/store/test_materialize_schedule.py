"""The server materializes each project's most-used properties on a schedule, and backfills them."""

from __future__ import annotations

import threading
import time

import pytest
from fastapi.testclient import TestClient

from local_backend.__main__ import build_parser, build_settings
from local_backend.app import create_app
from local_backend.config import Settings
from local_backend.store.materialize_schedule import apply_everywhere
from local_backend.store.materialized import list_materialized
from local_backend.store.property_usage import record_use
from tests.factories import add_events

T = "2026-01-10T10:00:00Z"


def claims(conn, project_id: int) -> list[tuple[str, str, str]]:
    return [(row["property"], row["source"], row["state"]) for row in list_materialized(conn, project_id)]


def uses(conn, clock, project_id: int, key: str, times: int) -> None:
    for _ in range(times):
        record_use(conn, project_id, "event", key, clock.now().date())
    conn.commit()


def test_each_project_gets_its_own_most_used_properties_filled_for_existing_events(conn, world, db_path, clock):
    add_events(conn, world.project_id, [("$pageview", "a", T, {"plan": "pro"}), ("$pageview", "b", T, {})])
    uses(conn, clock, world.project_id, "plan", 3)
    uses(conn, clock, world.project_id, "seat", 1)
    uses(conn, clock, world.other_project_id, "tier", 2)

    apply_everywhere(db_path, limit=1, clock=clock)

    assert claims(conn, world.project_id) == [("plan", "auto", "ready")]
    assert claims(conn, world.other_project_id) == [("tier", "auto", "ready")]
    column = list_materialized(conn, world.project_id)[0]["column"]
    assert dict(conn.execute(f"SELECT distinct_id, {column} FROM events")) == {"a": "pro", "b": None}


def test_a_running_server_applies_the_choice_every_interval(db_path, conn, world, clock):
    uses(conn, clock, world.project_id, "plan", 2)
    app = create_app(Settings(db_path=db_path, clock=clock, materialize_auto_interval=0.05))
    with TestClient(app):
        deadline = time.monotonic() + 10
        while not claims(conn, world.project_id) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert claims(conn, world.project_id) == [("plan", "auto", "ready")]
    assert not [thread for thread in threading.enumerate() if thread.name == "auto-materialize"]


def test_an_interval_of_zero_starts_no_schedule(db_path, clock):
    with TestClient(create_app(Settings(db_path=db_path, clock=clock, materialize_auto_interval=0))):
        assert not [thread for thread in threading.enumerate() if thread.name == "auto-materialize"]


def test_serve_takes_the_interval_in_hours():
    parser = build_parser()
    settings = build_settings(parser.parse_args(["serve", "--db", "x.db", "--auto-materialize-every", "0.5"]))
    assert settings.materialize_auto_interval == 1800
    assert build_settings(parser.parse_args(["serve", "--db", "x.db"])).materialize_auto_interval == 24 * 3600
    with pytest.raises(SystemExit):
        parser.parse_args(["serve", "--db", "x.db", "--auto-materialize-every", "-1"])
