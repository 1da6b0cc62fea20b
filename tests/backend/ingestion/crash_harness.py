"""Kill a server or a load at a named point of its write, and read back what the two stores hold.

Shared by the kill tests (``test_crash_consistency.py``): each step that touches a database runs in a process
of its own (chdb keeps one data folder per process), and :func:`facts` is run as
``python -m tests.backend.ingestion.crash_harness DB`` to print what the stores hold as JSON.

The write that is killed, :data:`SPANNING`, makes 100 new persons with ``$set``, groups them into companies,
identifies a group and merges two persons stored before it (:data:`BEFORE`), so every kind of effect a write
has is in it.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parents[3]
NOW = "2026-01-15T12:00:00Z"
_NAMESPACE = uuid.UUID("6f1c2f6e-2d4b-4c59-9a43-3c8f0e1d5a77")


def _event(key: str, name: str, distinct_id: str, minute: int, **properties: Any) -> dict[str, Any]:
    return {"uuid": str(uuid.uuid5(_NAMESPACE, key)), "event": name, "distinct_id": distinct_id,
            "timestamp": f"2026-01-15T10:{minute:02d}:00Z", "properties": properties}  # fmt: skip


# persons 1..4, stored and acknowledged before the killed write
BEFORE = [_event(f"before-{d}", "$pageview", d, 0) for d in ("a1", "u1", "a2", "u2")]
USERS = 100
SPANNING = (
    [_event(f"view-{i}", "$pageview", f"n{i}", 1, **{"$set": {"plan": f"p{i}"}, "$groups": {"company": f"c{i % 3}"}})
     for i in range(USERS)]
    + [_event(f"signup-{i}", "signup", f"n{i}", 2) for i in range(USERS)]
    + [_event("group", "$groupidentify", "n0", 3, **{"$group_type": "company", "$group_key": "c0",
                                                       "$group_set": {"size": 10}}),
       # u2's person (4, the largest id stored before) is merged into a2's (3) and deleted
       _event("identify", "$identify", "a2", 4, **{"$anon_distinct_id": "u2"})]
)  # fmt: skip
AFTER = [_event("after", "$pageview", "z", 5)]


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "local_backend", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=env, check=False)  # fmt: skip


def create_project(db: Path, engine: str) -> str:
    """A new database with one project on ``engine``; returns its project token."""
    made = cli("create-project", "--db", str(db), "--name", "Kill", "--engine", engine)
    assert made.returncode == 0, made.stderr
    return json.loads(made.stdout)["api_token"]


def crash_env(point: str | None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "INSIGHTLAB_CRASH_AT"}
    if point:
        env["INSIGHTLAB_CRASH_AT"] = point
    return env


class Server:
    """``serve`` in a process of its own, on a free port."""

    def __init__(self, db: Path, point: str | None = None) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        self.log = db.with_name(f"{db.name}.{port}.log")
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "local_backend", "serve", "--db", str(db), "--port", str(port), "--now", NOW],
                cwd=ROOT, env=crash_env(point), stdout=subprocess.DEVNULL, stderr=log,
            )  # fmt: skip
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"the server exited: {self.log.read_text()[-2000:]}")
            try:
                if requests.get(f"{self.url}/_health", timeout=2).status_code == 200:
                    return
            except requests.ConnectionError:
                time.sleep(0.1)
        self.stop()
        raise AssertionError("the server did not come up")

    def send(self, token: str, events: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The answer to a batch, or None when the server died before answering."""
        try:
            answer = requests.post(f"{self.url}/batch/", json={"api_key": token, "batch": events}, timeout=120)
        except requests.ConnectionError:
            return None
        assert answer.status_code == 200, answer.text
        return answer.json()

    def killed(self) -> bool:
        """Whether the process killed itself with SIGKILL (waits for it)."""
        return self.process.wait(timeout=60) == -signal.SIGKILL

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def read_facts(db: Path, *, settle: bool = False) -> dict[str, Any]:
    """:func:`facts` of ``db``, read in a process of its own."""
    args = [str(db), "--settle"] if settle else [str(db)]
    done = subprocess.run([sys.executable, "-m", "tests.backend.ingestion.crash_harness", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=180, env=crash_env(None), check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def facts(db: Path) -> dict[str, Any]:
    """What the database's stores hold: each event (uuid, name, distinct id, its person now), the persons with
    their properties and distinct ids, groups, event definitions' volumes, the person ids the ClickHouse tables
    name, the staging tables and the undo records left."""
    from local_backend.store.engine.choice import open_database
    from local_backend.store.engine.clickhouse.engine import client_for
    from local_backend.store.engine.spec import recorded_engine

    conn = open_database(db)
    persons = {int(i): json.loads(p) for i, p in conn.execute("SELECT id, properties FROM persons")}
    distinct_ids = dict(conn.execute("SELECT distinct_id, person_id FROM person_distinct_ids"))
    groups = {f"{t}:{k}": json.loads(p) for t, k, p in
              conn.execute("SELECT group_type_index, group_key, properties FROM groups")}  # fmt: skip
    volumes = dict(conn.execute("SELECT name, volume FROM event_definitions"))
    result: dict[str, Any] = {"persons": persons, "distinct_ids": distinct_ids, "groups": groups, "volumes": volumes,
                              "clickhouse_person_ids": [], "override_ids": [], "staging": []}  # fmt: skip
    if recorded_engine(conn).kind == "sqlite":
        result["events"] = [list(row) for row in conn.execute("SELECT uuid, event, distinct_id, person_id FROM events")]
    else:
        client = client_for(conn)
        db_name = f"`{client.database}`"
        overrides = dict(client.query_rows(
            f"SELECT old_person_id, argMax(person_id, version) FROM {db_name}.person_overrides GROUP BY old_person_id"
        ))  # fmt: skip
        result["events"] = [
            [str(u), str(e), str(d), int(overrides.get(int(p), int(p)))]
            for u, e, d, p in client.query_rows(f"SELECT uuid, event, distinct_id, person_id FROM {db_name}.events")
        ]
        result["clickhouse_person_ids"] = sorted({int(row[0]) for row in client.query_rows(
            f"SELECT id FROM {db_name}.persons")})  # fmt: skip
        result["override_ids"] = sorted(int(old) for old in overrides)
        result["staging"] = [str(row[0]) for row in client.query_rows(
            "SELECT name FROM system.tables WHERE database = {d:String} AND startsWith(name, '_load_')",
            {"d": client.database})]  # fmt: skip
    folder = Path(f"{db}-clickhouse-journal")
    result["journal"] = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    return result


def check_consistent(found: dict[str, Any], sent: list[dict[str, Any]]) -> None:
    """The invariants after any crash: events stored once; each stored event's person present, with the event's
    distinct id; the persons, groups and definitions of the stored events there; nothing left over."""
    uuids = [row[0] for row in found["events"]]
    assert len(uuids) == len(set(uuids)), "an event is stored twice"
    by_uuid = {event["uuid"]: event for event in sent}
    assert set(uuids) <= set(by_uuid)
    persons, distinct_ids = found["persons"], found["distinct_ids"]
    for event_uuid, _, distinct_id, person_id in found["events"]:
        assert str(person_id) in persons, f"event {event_uuid} of {distinct_id}: person {person_id} missing"
        assert distinct_ids.get(distinct_id) == person_id, f"{distinct_id} is not person {person_id}'s"
    for event in sent:
        if event["uuid"] in uuids and "$set" in event["properties"]:
            person = persons[str(distinct_ids[event["distinct_id"]])]
            assert person.get("plan") == event["properties"]["$set"]["plan"]
    stored_names: dict[str, int] = {}
    for _, name, _, _ in found["events"]:
        stored_names[name] = stored_names.get(name, 0) + 1
    assert {name: v for name, v in found["volumes"].items() if v} == stored_names
    assert {int(p) for p in persons} == {row[3] for row in found["events"]}, "a person without its events"
    identified = any(row[1] == "$groupidentify" for row in found["events"])
    assert found["groups"] == ({"0:c0": {"size": 10}} if identified else {})
    assert found["journal"] == [], "an undo record left behind"
    assert found["staging"] == [], "a staging table left behind"


def main() -> None:
    db = Path(sys.argv[1])
    if "--settle" in sys.argv[2:]:
        from local_backend.ingestion.writer import settle_interrupted_writes
        from local_backend.store.engine.choice import open_database

        conn = open_database(db)
        settle_interrupted_writes(conn)
        conn.close()
    print(json.dumps(facts(db)))


if __name__ == "__main__":
    main()
