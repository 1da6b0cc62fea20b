"""A server on a chdb database (toolkit.local.start(engine="chdb")): what capture acknowledged survives kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
import requests

from toolkit import local

pytestmark = pytest.mark.live

COUNT = (
    "import sys; from local_backend.store.engine.choice import open_database;"
    " from local_backend.store.engine.clickhouse.engine import client_for;"
    "c = client_for(open_database(sys.argv[1]));"
    " print(c.query_rows(f'SELECT count() FROM `{c.database}`.events')[0][0])"
)


def test_acknowledged_events_survive_kill_9(tmp_path):
    db = tmp_path / "server.db"
    client = local.start(db, demo=False, now="2026-01-15T12:00:00Z", engine="chdb")
    try:
        token = client.project_token()
        for batch in range(5):
            events = [{"event": "$pageview", "distinct_id": f"u{batch}-{i}"} for i in range(200)]
            answer = requests.post(f"{client.base_url}/batch/", json={"api_key": token, "batch": events}, timeout=60)
            assert answer.status_code == 200, answer.text
    finally:
        os.killpg(client.process.pid, signal.SIGKILL)  # no shutdown: what was acknowledged must already be stored
        client.process.wait(timeout=10)
    assert (tmp_path / "server.db.chdb").is_dir()
    counted = subprocess.run([sys.executable, "-c", COUNT, str(db)], capture_output=True, text=True, timeout=120,
                             check=False)  # fmt: skip
    assert counted.stdout.strip() == "1000", counted.stderr
