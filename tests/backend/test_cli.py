"""The command-line contract other tools rely on: exact outputs, and a server that comes up."""

from __future__ import annotations

import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from local_backend.__main__ import main


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "local_backend", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_create_project_prints_one_json_object(tmp_path, capsys):
    assert main(["create-project", "--db", str(tmp_path / "a.db"), "--name", "Shop", "--timezone", "Europe/Paris"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert set(printed) == {"id", "name", "api_token"}
    assert printed["name"] == "Shop"
    assert re.fullmatch(r"phc_[A-Za-z0-9]{43}", printed["api_token"])


def test_create_project_rejects_unknown_timezone(tmp_path, capsys):
    assert main(["create-project", "--db", str(tmp_path / "a.db"), "--name", "Shop", "--timezone", "Nowhere"]) == 2
    assert "not a valid choice" in capsys.readouterr().err


def test_create_key_prints_only_the_key(tmp_path, capsys):
    db = str(tmp_path / "a.db")
    main(["create-project", "--db", db, "--name", "Shop"])
    capsys.readouterr()
    assert main(["create-key", "--db", db, "--email", "a@example.com", "--scopes", "insight:read,plugin:write"]) == 0
    out = capsys.readouterr().out
    assert re.fullmatch(r"phx_[A-Za-z0-9]{43}\n", out)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--scopes", "insight:destroy"], "Invalid scope: insight:destroy"),
        (["--scopes", ""], "at least one scope"),
        (["--scopes", "*", "--projects", "7"], "Project 7 does not exist"),
    ],
)
def test_create_key_bad_input(tmp_path, capsys, args, message):
    code = main(["create-key", "--db", str(tmp_path / "a.db"), "--email", "a@example.com", *args])
    assert code == 2
    assert message in capsys.readouterr().err


def _demo_key(printed: str) -> str:
    return re.search(r"Personal API key \(all scopes\): (phx_\w+)", printed).group(1)


def _key_works(db: str, raw: str) -> bool:
    from local_backend.store.accounts import find_personal_api_key
    from local_backend.store.engine.choice import open_database

    conn = open_database(db)
    try:
        key = find_personal_api_key(conn, raw)
    finally:
        conn.close()
    return key is not None and key["scopes"] == ["*"]


def test_demo_is_idempotent_and_keeps_its_key_from_start_to_start(tmp_path, capsys):
    db = str(tmp_path / "demo.db")
    assert main(["demo", "--db", db, "--events", "800", "--seed", "3"]) == 0
    first = capsys.readouterr().out
    assert "(seeded)" in first
    assert re.search(r"Events: +\d+ stored", first)
    assert main(["demo", "--db", db]) == 0
    second = capsys.readouterr().out
    assert "(already seeded)" in second
    # a key exported in another shell or saved in a notebook keeps working after `make run` restarts
    assert _demo_key(second) == _demo_key(first)
    assert _key_works(db, _demo_key(first))


def test_demo_issues_a_new_key_when_its_stored_key_was_deleted(tmp_path, capsys):
    db = str(tmp_path / "demo.db")
    assert main(["demo", "--db", db, "--events", "0"]) == 0
    first = _demo_key(capsys.readouterr().out)
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("DELETE FROM personal_api_keys")
    conn.close()
    assert main(["demo", "--db", db]) == 0
    second = _demo_key(capsys.readouterr().out)
    assert second != first
    assert _key_works(db, second) and not _key_works(db, first)
    assert main(["demo", "--db", db]) == 0
    assert _demo_key(capsys.readouterr().out) == second


@pytest.mark.parametrize("args", [["--events", "-1"], ["--events", "lots"], ["--seed", "x"]])
def test_demo_rejects_bad_sizes_and_seeds(tmp_path, capsys, args):
    with pytest.raises(SystemExit) as raised:
        main(["demo", "--db", str(tmp_path / "demo.db"), *args])
    assert raised.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.live
def test_serve_answers_health_and_uses_the_now_clock(tmp_path: Path):
    db = str(tmp_path / "live.db")
    project = json.loads(run_cli("create-project", "--db", db, "--name", "Live").stdout)
    key = run_cli("create-key", "--db", db, "--email", "a@example.com", "--scopes", "*").stdout.strip()
    port = _free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "local_backend",
            "serve",
            "--db",
            db,
            "--port",
            str(port),
            "--now",
            "2030-05-01T08:00:00Z",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if requests.get(f"{base}/_health", timeout=1).status_code == 200:
                    break
            except requests.ConnectionError:
                time.sleep(0.1)
        else:
            pytest.fail("server did not become ready")
        headers = {"Authorization": f"Bearer {key}"}
        response = requests.patch(f"{base}/api/projects/{project['id']}/", json={"name": "Renamed"}, headers=headers)
        assert response.status_code == 200
        assert response.json()["updated_at"].startswith("2030-05-01T08:0")
    finally:
        server.terminate()
        server.wait(timeout=10)
        assert server.stdout is not None
        server.stdout.close()
