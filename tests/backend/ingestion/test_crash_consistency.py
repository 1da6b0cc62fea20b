"""A server or a load killed (SIGKILL) at each point of a write: the stores agree after, and a resend completes.

Each case starts real processes (see :mod:`.crash_harness`): a server stores 4 events, is killed while storing
a batch of 202 that creates 100 persons with ``$set``, identifies a group and merges two stored persons, and is
started again; then the same batch is sent again and one new user after it. On chdb the write spans ClickHouse
and SQLite; on SQLite it is one transaction. ``test_kill_50_times_in_a_row`` (marked ``slow``, left out of
``make test``) repeats the chdb cases 50 times.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from local_backend.crash_points import CRASH_POINTS

from .crash_harness import (
    AFTER,
    BEFORE,
    SPANNING,
    USERS,
    Server,
    check_consistent,
    cli,
    crash_env,
    create_project,
    read_facts,
)

pytestmark = pytest.mark.live
pytest.importorskip("chdb")

SQLITE_POINTS = ("sqlite-written", "sqlite-committed")  # the SQLite engine reaches no ClickHouse point
SENT = BEFORE + SPANNING + AFTER
# make test kills at these points (15-30 s a case); the others run with the slow tests
QUICK = {"clickhouse-persons", "clickhouse-inserted", "sqlite-written", "sqlite-committed"}


def points(names: tuple[str, ...], quick: set[str]) -> list:
    return [pytest.param(name, marks=() if name in quick else pytest.mark.slow) for name in names]


def kill_capture(db: Path, engine: str, point: str) -> None:
    token = create_project(db, engine)
    server = Server(db, f"{point}@2")  # the 2nd write: the first stores BEFORE
    try:
        assert server.send(token, BEFORE) == {"status": 1, "accepted": 4, "duplicates": 0, "rejected": 0,
                                              "dropped": 0, "rejections": []}  # fmt: skip
        assert server.send(token, SPANNING) is None
        assert server.killed()
    finally:
        server.stop()
    committed = point == "sqlite-committed"
    between = read_facts(db, settle=True)  # as the next process to open the database finds it
    check_consistent(between, SENT)
    assert len(between["events"]) == len(BEFORE) + (len(SPANNING) if committed else 0)
    assert len(between["persons"]) == (3 + USERS if committed else 4)

    server = Server(db)
    try:
        again = server.send(token, SPANNING)
        assert again is not None
        assert (again["accepted"], again["duplicates"]) == ((0, len(SPANNING)) if committed else (len(SPANNING), 0))
        assert server.send(token, AFTER)["accepted"] == 1  # type: ignore[index]
    finally:
        server.stop()
    after = read_facts(db)
    check_consistent(after, SENT)
    assert len(after["events"]) == len(SENT)
    assert len(after["persons"]) == 3 + USERS + 1
    newest = after["distinct_ids"]["z"]
    # ids 1..4, then 5..104 for the batch's users: person 4 was merged away, and its id is not handed out again
    assert newest == 4 + USERS + 1
    assert newest not in after["override_ids"]


@pytest.mark.parametrize("point", points(CRASH_POINTS, QUICK - {"sqlite-written"}))
def test_capture_killed_on_chdb(tmp_path, point):
    kill_capture(tmp_path / "kill.db", "chdb", point)


@pytest.mark.parametrize("point", points(SQLITE_POINTS, {"sqlite-written"}))
def test_capture_killed_on_sqlite(tmp_path, point):
    kill_capture(tmp_path / "kill.db", "sqlite", point)


def kill_load(db: Path, folder: Path, point: str) -> None:
    """``load-events`` of BEFORE + SPANNING into chdb (one batch), killed at ``point``, then run again."""
    create_project(db, "chdb")
    export = folder / "export.jsonl"
    export.write_text("".join(json.dumps(event) + "\n" for event in BEFORE + SPANNING))
    load = ["load-events", "--db", str(db), "--project", "1", str(export), "--quiet"]
    killed = cli(*load, env=crash_env(point))
    assert killed.returncode == -9, killed.stderr[-2000:]
    committed = point == "sqlite-committed"
    between = read_facts(db, settle=True)
    check_consistent({**between, "staging": []}, SENT)  # a killed load's staging table goes at the next load
    assert len(between["events"]) == (len(BEFORE) + len(SPANNING) if committed else 0)
    rerun = cli(*load, env=crash_env(None))
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    loaded = 0 if committed else len(BEFORE) + len(SPANNING)
    assert f"Loaded {loaded} events" in rerun.stdout, rerun.stdout
    after = read_facts(db)
    check_consistent(after, SENT)
    assert len(after["events"]) == len(BEFORE) + len(SPANNING)
    assert len(after["persons"]) == 3 + USERS


@pytest.mark.parametrize("point", points(CRASH_POINTS, {"clickhouse-inserted", "sqlite-committed"}))
def test_load_killed_on_chdb(tmp_path, point):
    kill_load(tmp_path / "kill.db", tmp_path, point)


@pytest.mark.slow
def test_kill_50_times_in_a_row(tmp_path):
    """The chdb cases, capture and load taking turns over every point, 50 runs (``pytest -m slow``)."""
    runs = int(os.environ.get("INSIGHTLAB_KILL_RUNS", "50"))
    for run in range(runs):
        point = CRASH_POINTS[run % len(CRASH_POINTS)]
        folder = tmp_path / f"run{run}"
        folder.mkdir()
        if run % 2:
            kill_load(folder / "kill.db", folder, point)
        else:
            kill_capture(folder / "kill.db", "chdb", point)
