"""End to end against a real local backend started with toolkit.local (marked ``live``).

Only endpoints the backend serves are exercised here; the calculation, insight and plugin functions are
covered offline against recorded responses until their endpoints exist.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from toolkit import (
    AuthenticationError,
    Client,
    LocalBackendError,
    NotFoundError,
    PermissionDeniedError,
    ValidationError,
    local,
)

pytestmark = pytest.mark.live

NOW = "2026-01-15T12:00:00Z"


def _cli(*args: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "local_backend", *args], capture_output=True, text=True, check=True, timeout=120
    ).stdout


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0); read its state
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def _wait_gone(pid: int, seconds: float = 15) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.1)
    return False


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    db = tmp_path_factory.mktemp("live") / "demo.db"
    with local.start(db, now=NOW, events=10_000, seed=7) as client:  # the notebooks' demo size
        yield client


def test_demo_project_as_a_frame(demo):
    frame = demo.projects()
    assert frame["name"].tolist() == ["Demo project"]
    assert frame["is_demo"].tolist() == [True]
    assert str(frame["id"].dtype) == "Int64" and str(frame["api_token"].dtype) == "string"
    assert frame.loc[0, "id"] == int(demo.project_id)
    assert frame.loc[0, "api_token"] == demo.project_token()


def test_current_project_resolves_to_the_demo_project(demo):
    current = Client(base_url=demo.base_url, api_key=demo.settings.api_key)
    assert current.project_id == "@current"
    assert current.project()["id"] == int(demo.project_id)


def test_server_clock_follows_now(demo):
    updated = demo.request("PATCH", demo.project_path(), json={"name": "Demo project"})
    assert updated["updated_at"].startswith("2026-01-15T12:0")


def test_pagination_follows_real_next_links(demo):
    for name in ("Second", "Third"):
        _cli("create-project", "--db", str(demo.db), "--name", name)
    assert [item["name"] for item in demo.paginate("/api/projects/", page_size=1)] == [
        "Demo project",
        "Second",
        "Third",
    ]
    assert demo.projects(limit=2)["name"].tolist() == ["Demo project", "Second"]


def test_bad_key_is_an_authentication_error(demo):
    client = Client(base_url=demo.base_url, api_key="phx_not_a_real_key", project_id=demo.project_id)
    with pytest.raises(AuthenticationError) as caught:
        client.projects()
    assert caught.value.status == 401 and caught.value.code == "authentication_failed"


def test_missing_scope_is_permission_denied(demo):
    key = _cli("create-key", "--db", str(demo.db), "--email", "reader@example.com", "--scopes", "insight:read").strip()
    client = Client(base_url=demo.base_url, api_key=key, project_id=demo.project_id)
    with pytest.raises(PermissionDeniedError, match="project:read"):
        client.project()


def test_unknown_project_is_not_found(demo):
    client = Client(base_url=demo.base_url, api_key=demo.settings.api_key, project_id=999)
    with pytest.raises(NotFoundError, match="Project not found"):
        client.project()


def test_without_demo_a_notebook_project_and_key_are_made(tmp_path):
    client = local.start(tmp_path / "plain.db", demo=False)
    try:
        assert client.project()["name"] == "Notebook"
        assert client.projects()["is_demo"].tolist() == [False]
    finally:
        client.stop()


def test_stop_ends_the_server_and_is_idempotent(tmp_path):
    client = local.start(tmp_path / "stop.db", demo=False)
    pid = client.process.pid
    assert client.running
    client.stop()
    client.stop()
    assert not client.running and _wait_gone(pid)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is a Linux feature")
def test_server_dies_with_a_killed_kernel(tmp_path):
    script = (
        "import sys, time\n"
        "from toolkit import local\n"
        f"client = local.start({str(tmp_path / 'k.db')!r}, demo=False)\n"
        "print(client.process.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    kernel = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert kernel.stdout is not None
        server_pid = int(kernel.stdout.readline())
        assert _alive(server_pid)
        kernel.send_signal(signal.SIGKILL)  # no atexit, as when a kernel is killed on restart
        kernel.wait(timeout=10)
        assert _wait_gone(server_pid), "the backend outlived its kernel"
    finally:
        if kernel.poll() is None:
            kernel.kill()
            kernel.wait()
        kernel.stdout.close()


def test_a_server_that_cannot_start_is_reported_with_its_output(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(LocalBackendError, match="exited") as caught:
            local.start(tmp_path / "busy.db", demo=False, port=port, timeout=30)
    assert "address already in use" in str(caught.value).lower()


def test_cli_json_contract_is_what_start_relies_on(tmp_path):
    printed = json.loads(_cli("create-project", "--db", str(tmp_path / "c.db"), "--name", "X"))
    assert set(printed) == {"id", "name", "api_token"}


def test_plugin_catalog_and_demo_configs(demo):
    plugins = demo.plugins()
    assert plugins["name"].tolist()[:2] == ["Property Filter", "Taxonomy"]
    assert "reprocess_events" in plugins.loc[0, "public_jobs"]
    configs = demo.plugin_configs()
    assert len(configs) >= 1
    assert configs["order"].is_monotonic_increasing
    assert {str(dtype) for dtype in configs.dtypes[["id", "plugin", "order"]]} == {"Int64"}
    assert str(configs["created_at"].dtype) == "datetime64[ns, UTC]"


def test_plugin_config_lifecycle(demo):
    created = demo.create_plugin_config(4, order=20, enabled=True, config={"extra_patterns": "crawler"}, name="Bots")
    config_id = int(created.loc[0, "id"])
    assert created.loc[0, "config"]["extra_patterns"] == "crawler"
    assert created.attrs["raw"]["plugin_info"]["name"] == "Bot Filter"

    assert demo.update_plugin_config(config_id, name="Crawlers").loc[0, "name"] == "Crawlers"
    rearranged = demo.rearrange_plugin_configs({config_id: 1})
    assert rearranged.set_index("id").loc[config_id, "order"] == 1

    run = demo.run_plugin_job(config_id, "reprocess_events", {"date_from": "2026-01-01", "date_to": "2026-01-14"})
    assert run["type"] == "reprocess_events"

    activity = demo.plugin_config_activity(config_id)
    assert activity["activity"].tolist()[0] == "job_triggered"
    assert {"created", "order_changed"} <= set(activity["activity"])
    assert (activity["created_at"].diff().dropna() <= pd.Timedelta(0)).all()  # newest first

    demo.delete_plugin_config(config_id)
    assert config_id not in demo.plugin_configs()["id"].tolist()
    assert bool(demo.plugin_config(config_id).loc[0, "deleted"])
    assert not bool(demo.update_plugin_config(config_id, deleted=False).loc[0, "deleted"])


def test_plugin_errors_come_back_typed(demo):
    with pytest.raises(ValidationError) as caught:
        demo.create_plugin_config(99, order=1)
    assert (caught.value.status, caught.value.attr) == (400, "plugin")
    config_id = int(demo.plugin_configs().loc[0, "id"])
    with pytest.raises(ValidationError) as caught:
        demo.run_plugin_job(config_id, "no_such_job")
    assert caught.value.attr == "job__type"
    with pytest.raises(NotFoundError):
        demo.plugin_config(987654)


def test_saved_insight_lifecycle_through_the_toolkit(demo):
    names = list(demo.insights()["name"])
    assert names[:3] == ["Pageviews per day", "Daily active users", "Signup to purchase"]
    created = demo.create_insight(name="Toolkit lifecycle", filters={"insight": "FUNNELS"}, tags=["e2e"])
    insight_id = int(created["id"].iloc[0])
    assert created["tags"].iloc[0] == ["e2e"]
    assert demo.insights(search="lifecycle")["name"].tolist() == ["Toolkit lifecycle"]
    demo.update_insight(insight_id, name="Toolkit lifecycle, renamed")
    activity = demo.insight_activity(insight_id)
    assert activity["activity"].tolist() == ["updated", "created"]
    sharing = demo.sharing(insight_id)
    assert len(sharing["access_token"].iloc[0]) == 30
    demo.delete_insight(insight_id)  # the soft delete
    assert "Toolkit lifecycle, renamed" not in demo.insights()["name"].tolist()
    with pytest.raises(NotFoundError):
        demo.insight(insight_id)
