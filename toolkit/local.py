"""Run the local backend from a notebook: ``client = toolkit.local.start()``.

The server is ``python -m local_backend serve`` in a child process of its own process group, on a free
loopback port. It stops with ``client.stop()``, at the end of a ``with`` block, when the interpreter exits
(``atexit``), and, on Linux, when the kernel process dies without running ``atexit`` (the child asks the
kernel to send it SIGTERM when its parent dies), so a restarted kernel leaves no server behind.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any

import requests

from .client import Client
from .errors import LocalBackendError

__all__ = ["DEFAULT_DB", "LocalClient", "START_TIMEOUT", "start"]

DEFAULT_DB = "analytics.db"
START_TIMEOUT = 60.0
LOCAL_EMAIL = "notebook@localhost"


def _free_port(host: str) -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


# Runs first in the server's process: ask Linux to SIGTERM it when the kernel that started it dies (even
# by SIGKILL, when no exit handler runs), then become the server. Doing this in the child, instead of in a
# preexec_fn, keeps fork safe in a multi-threaded kernel.
_LAUNCHER = """
import ctypes, os, signal, sys
parent = int(sys.argv[1])
if sys.platform.startswith("linux"):
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
if os.getppid() != parent:  # the parent died before the request took effect
    sys.exit(0)
os.execv(sys.executable, [sys.executable, *sys.argv[2:]])
"""


def _cli(*args: str) -> str:
    completed = subprocess.run(
        [sys.executable, "-m", "local_backend", *args], capture_output=True, text=True, timeout=300, check=False
    )
    if completed.returncode != 0:
        raise LocalBackendError(f"local_backend {args[0]} failed: {completed.stderr.strip() or completed.stdout}")
    return completed.stdout


class LocalClient(Client):
    """A `Client` connected to a local backend it started; `stop` ends the server.

    Attributes
    ----------
    db : pathlib.Path
        The SQLite file the server uses.
    process : subprocess.Popen
        The server process.
    """

    def __init__(self, *, process: subprocess.Popen[bytes], db: Path, log: Path, **settings: Any) -> None:
        super().__init__(**settings)
        self.process = process
        self.db = db
        self.log = log
        atexit.register(self.stop)

    def stop(self) -> None:
        """Stop the server (SIGTERM to its process group, SIGKILL after 10 s); safe to call twice.

        Examples
        --------
        >>> client.stop()  # doctest: +SKIP
        """
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        atexit.unregister(self.stop)
        self.session.close()

    @property
    def running(self) -> bool:
        """Whether the server process is alive."""
        return self.process.poll() is None

    def __enter__(self) -> LocalClient:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"LocalClient(base_url={self.base_url!r}, project_id={self.project_id!r}, db={str(self.db)!r}, {state})"


def _wait_healthy(process: subprocess.Popen[bytes], base_url: str, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise LocalBackendError(f"the local backend exited with {process.returncode}:\n{log.read_text()[-2000:]}")
        try:
            if requests.get(f"{base_url}/_health", timeout=1).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.1)
    raise LocalBackendError(f"the local backend did not answer /_health within {timeout:.0f} s")


def _stop(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


def start(
    db: str | os.PathLike[str] = DEFAULT_DB,
    *,
    demo: bool = True,
    now: str | None = None,
    host: str = "127.0.0.1",
    port: int | None = None,
    timeout: float = START_TIMEOUT,
    events: int | None = None,
    seed: int | None = None,
    engine: str | None = None,
) -> LocalClient:
    """Start the local backend on ``db`` and return a client connected to it.

    Parameters
    ----------
    db : str or path
        The SQLite file (created and migrated if missing).
    demo : bool
        Seed the demo project and data (once per database) and connect to the demo project with a fresh
        all-scopes key. Without it, a key is created for ``notebook@localhost`` and the client uses the
        first project (one named "Notebook" is created in an empty database).
    now : str, optional
        Start the server clock at this ISO 8601 instant (``--now``), for reproducible relative dates.
    host : str
        Interface to listen on (loopback by default).
    port : int, optional
        Port; a free one by default.
    timeout : float
        Seconds to wait for the server to answer ``/_health``.
    events, seed : int, optional
        With ``demo``: how many demo events to generate and the generator's seed (``demo --events --seed``),
        used only when the database is seeded; the backend's defaults when not given. A small ``events`` keeps
        a notebook quick, and the same ``events``, ``seed`` and ``now`` give the same data every time.
    engine : str, optional
        Where the events live: ``"sqlite"`` (the default), ``"chdb"`` or ``"chdb:PATH"`` (embedded ClickHouse,
        needs ``pip install 'insightlab[clickhouse]'``) or ``"clickhouse://USER:PASSWORD@HOST:PORT/DATABASE"``.
        Recorded in the database the first time; a database that already holds events keeps its engine.

    Returns
    -------
    LocalClient
        A `Client` with ``stop()``; also a context manager.

    Raises
    ------
    LocalBackendError
        When the server does not come up (its output is in the message).

    Examples
    --------
    >>> with start("demo.db", now="2026-01-15T12:00:00Z", events=20_000, seed=7) as client:  # doctest: +SKIP
    ...     client.insights()
    >>> big = start("large.db", engine="chdb")  # doctest: +SKIP
    """
    path = Path(db).expanduser().resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    key: str | None = None
    project_id: str | None = None
    engine_options = ["--engine", engine] if engine is not None else []
    if demo:
        options = ["--now", now] if now else []
        options += engine_options
        if events is not None:
            options += ["--events", str(events)]
        if seed is not None:
            options += ["--seed", str(seed)]
        output = _cli("demo", "--db", str(path), *options)
        key_match = re.search(r"phx_\w+", output)
        project_match = re.search(r"Project id:\s*(\d+)", output)
        if not key_match or not project_match:
            raise LocalBackendError(f"could not read the demo key and project from:\n{output}")
        key, project_id = key_match.group(0), project_match.group(1)
    else:
        key = _cli(
            "create-key", "--db", str(path), "--email", LOCAL_EMAIL, "--scopes", "*", "--label", "toolkit"
        ).strip()
    port = port or _free_port(host)
    log = Path(tempfile.mkstemp(prefix="insightlab-backend-", suffix=".log")[1])
    command = [sys.executable, "-c", _LAUNCHER, str(os.getpid())]
    command += ["-m", "local_backend", "serve", "--db", str(path), "--host", host, "--port", str(port)]
    if now:
        command += ["--now", now]
    if not demo:  # demo has recorded it already
        command += engine_options
    with log.open("wb") as output_file:
        process = subprocess.Popen(
            command,
            stdout=output_file,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    base_url = f"http://{host}:{port}"
    try:
        _wait_healthy(process, base_url, log, timeout)
        if project_id is None:
            project_id = _first_project(base_url, key, path)
    except BaseException:
        _stop(process)
        raise
    return LocalClient(process=process, db=path, log=log, base_url=base_url, api_key=key, project_id=project_id)


def _first_project(base_url: str, key: str, db: Path) -> str:
    answer = requests.get(f"{base_url}/api/projects/", headers={"Authorization": f"Bearer {key}"}, timeout=10)
    answer.raise_for_status()
    results = answer.json().get("results") or []
    if results:
        return str(results[0]["id"])
    return str(json.loads(_cli("create-project", "--db", str(db), "--name", "Notebook"))["id"])
