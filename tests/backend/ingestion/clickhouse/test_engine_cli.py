"""--engine on the command line: recorded, refused when it would hide events, and a one-line error without chdb.

Commands that open chdb run in a subprocess: chdb allows one data folder per process, and the test run has its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from local_backend.__main__ import main

EVENTS = [
    {"event": "signup", "distinct_id": "alice", "timestamp": "2026-01-10T10:00:00Z", "plan": "pro"},
    {"event": "$pageview", "distinct_id": "alice", "timestamp": "2026-01-10T10:01:00Z"},
    {"event": "$pageview", "distinct_id": "bob", "timestamp": "2026-01-10T10:02:00Z"},
]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "local_backend", *args], capture_output=True, text=True, timeout=300, check=False
    )


def events_file(folder: Path) -> Path:
    path = folder / "events.jsonl"
    path.write_text("".join(json.dumps(event) + "\n" for event in EVENTS))
    return path


def test_load_events_into_chdb_stores_each_event_once(tmp_path):
    db = tmp_path / "big.db"
    created = run_cli("create-project", "--db", str(db), "--name", "Big", "--engine", "chdb")
    assert created.returncode == 0, created.stderr
    assert (tmp_path / "big.db.chdb").is_dir()  # the default folder, beside the SQLite file
    project = str(json.loads(created.stdout)["id"])
    first = run_cli("load-events", "--db", str(db), "--project", project, str(events_file(tmp_path)), "--quiet")
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("Loaded 3 events (0 already stored, 0 rejected")
    again = run_cli("load-events", "--db", str(db), "--project", project, str(events_file(tmp_path)), "--quiet")
    assert again.stdout.startswith("Loaded 0 events (3 already stored, 0 rejected"), again.stderr
    counted = subprocess.run(
        [sys.executable, "-c", (
            "import sys; from local_backend.store.engine.choice import open_database;"
            "from local_backend.store.engine.clickhouse.engine import client_for;"
            "c = client_for(open_database(sys.argv[1]));"
            "print(c.query_rows(f'SELECT count(), uniqExact(person_id) FROM `{c.database}`.events'))"
        ), str(db)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert counted.stdout.strip() == "[(3, 2)]", counted.stderr
    import sqlite3

    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM person_distinct_ids").fetchone()[0] == 2


def test_a_database_with_sqlite_events_refuses_chdb_naming_both(tmp_path):
    db = tmp_path / "small.db"
    project = str(json.loads(run_cli("create-project", "--db", str(db), "--name", "Small").stdout)["id"])
    assert (
        run_cli("load-events", "--db", str(db), "--project", project, str(events_file(tmp_path)), "--quiet").returncode
        == 0
    )
    refused = run_cli("load-events", "--db", str(db), "--project", project, str(events_file(tmp_path)), "--quiet",
                      "--engine", f"chdb:{tmp_path / 'ch'}")  # fmt: skip
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1
    assert f"events are in sqlite, not chdb:{tmp_path / 'ch'}" in refused.stderr
    assert not (tmp_path / "ch").exists()


@pytest.mark.parametrize("command", ["create-project", "serve", "demo", "load-events"])
def test_a_bad_engine_is_a_usage_error_in_one_line(tmp_path, capsys, command):
    extra = {"create-project": ["--name", "x"], "load-events": ["--project", "1", "f.jsonl"]}.get(command, [])
    with pytest.raises(SystemExit) as exited:
        main([command, "--db", str(tmp_path / "a.db"), *extra, "--engine", "postgres://x"])
    assert exited.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "Engine 'postgres://x' is not an engine; use sqlite, chdb[:PATH] or clickhouse://" in error


def test_without_chdb_an_engine_needing_it_is_one_line_naming_the_extra(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "chdb", None)  # as if chdb were not installed
    monkeypatch.setitem(sys.modules, "chdb.session", None)
    db = tmp_path / "a.db"
    assert main(["create-project", "--db", str(db), "--name", "x", "--engine", f"chdb:{tmp_path / 'ch'}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'insightlab[clickhouse]'" in err
    # the SQLite default keeps working
    assert main(["create-project", "--db", str(tmp_path / "b.db"), "--name", "y"]) == 0


def test_toolkit_and_the_sqlite_default_import_without_chdb_or_pyarrow():
    script = (
        "import sys\n"
        "for name in ('chdb', 'chdb.session', 'pyarrow', 'clickhouse_connect'): sys.modules[name] = None\n"
        "import toolkit, local_backend.app, local_backend.__main__\n"
        "from local_backend.ingestion import ingest_events\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.stdout.strip() == "ok", done.stderr


def test_a_chdb_folder_held_by_another_process_is_a_one_line_error(tmp_path):
    db = tmp_path / "big.db"
    assert run_cli("create-project", "--db", str(db), "--name", "Big", "--engine", "chdb").returncode == 0
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"from chdb import session; s = session.Session({str(tmp_path / 'big.db.chdb')!r}); "
            "s.query('SELECT 1'); print('open', flush=True); import time; time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        loaded = run_cli("load-events", "--db", str(db), "--project", "1", str(events_file(tmp_path)), "--quiet")
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()
    assert loaded.returncode != 0
    assert "is open in another process" in loaded.stderr
    assert "Traceback" not in loaded.stderr
