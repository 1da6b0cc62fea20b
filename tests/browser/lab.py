"""The JupyterLab server of the browser tests, with nothing borrowed from the user's setup.

Reading order: `lab_environment` (the temporary Jupyter dirs and the settings every run uses), `JupyterLab`
(start, URLs, kernels, stop), `run_in_kernel`, `copy_notebooks`; what happens in the page is in `pages`.
The server serves a copy of the notebooks, so running them in the browser never touches the stored outputs.

The server always stops: `JupyterLab.running` stops it on the way out, even when a test failed, and, on
Linux, the server gets SIGTERM when the test process dies without cleaning up (killed by a CI timeout).
It shuts its kernels down as it stops, and each kernel's local backend stops with its kernel
(`toolkit.local`). Every wait has a deadline and fails saying what it waited for and where the log is.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "JupyterLab",
    "LAB_CONFIG",
    "LAB_SETTINGS",
    "chromium_path",
    "copy_notebooks",
    "lab_environment",
    "run_in_kernel",
]

# the browser window every test opens: wide enough for the builders' controls on one row
VIEWPORT = {"width": 1400, "height": 1000}
CHROMIUM = "/usr/bin/chromium"
"""Debian's Chromium; set INSIGHTLAB_CHROMIUM to use another Chromium or Chrome binary."""

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

LAB_SETTINGS: dict[str, dict[str, Any]] = {
    # every cell stays in the page, so a full-page screenshot shows the whole notebook
    "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none", "scrollPastEnd": False},
    # no "receive Jupyter news?" toast over the first cells, no calls out to the internet
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
}
"""Settings overrides the test server starts with (JupyterLab's ``default_setting_overrides``)."""

LAB_CONFIG: dict[str, dict[str, Any]] = {
    "LabApp": {"news_url": None, "check_for_updates_class": "jupyterlab.handlers.announcements.NeverCheckForUpdate"}
}
"""Server options that keep the lab off the internet."""

START_TIMEOUT = 90.0
STOP_TIMEOUT = 20.0
START_ATTEMPTS = 3
"""A free port can be taken between choosing it and the server binding it: try again on another."""


def chromium_path() -> str:
    """The Chromium binary to drive: ``INSIGHTLAB_CHROMIUM`` or Debian's ``/usr/bin/chromium``."""
    return os.environ.get("INSIGHTLAB_CHROMIUM") or CHROMIUM


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def lab_environment(home: Path, repository: Path) -> dict[str, str]:
    """Environment for a Jupyter server whose config, data, runtime and settings dirs are all under ``home``.

    The settings overrides are written to ``home/config/labconfig``; kernels import the toolkit of
    ``repository`` first (the checkout under test, even when the venv was installed from another one).
    """
    dirs = {
        "JUPYTER_CONFIG_DIR": home / "config",
        "JUPYTER_DATA_DIR": home / "data",
        "JUPYTER_RUNTIME_DIR": home / "runtime",
        "JUPYTERLAB_SETTINGS_DIR": home / "settings",
        "JUPYTERLAB_WORKSPACES_DIR": home / "workspaces",
        "IPYTHONDIR": home / "ipython",
        "MPLCONFIGDIR": home / "matplotlib",
    }
    for path in dirs.values():
        path.mkdir(parents=True, exist_ok=True)
    (dirs["JUPYTER_CONFIG_DIR"] / "labconfig").mkdir(exist_ok=True)
    (dirs["JUPYTER_CONFIG_DIR"] / "labconfig" / "default_setting_overrides.json").write_text(json.dumps(LAB_SETTINGS))
    (dirs["JUPYTER_CONFIG_DIR"] / "jupyter_lab_config.json").write_text(json.dumps(LAB_CONFIG))
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("JUPYTER", "MPLBACKEND"))}
    python_path = [str(repository), *filter(None, environment.get("PYTHONPATH", "").split(os.pathsep))]
    return {
        **environment,
        **{key: str(path) for key, path in dirs.items()},
        "JUPYTER_PLATFORM_DIRS": "1",
        "PYTHONPATH": os.pathsep.join(python_path),
        "PYTHONUNBUFFERED": "1",
    }


@dataclass
class JupyterLab:
    """``jupyter lab`` on a free loopback port, serving ``root`` with a token; use `JupyterLab.running`."""

    root: Path
    home: Path
    repository: Path
    port: int = field(default_factory=_free_port)
    token: str = field(default_factory=lambda: os.urandom(16).hex())
    process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def notebook_url(self, name: str) -> str:
        return f"{self.base_url}/lab/tree/{name}?token={self.token}&reset"

    def api(self, path: str) -> Any:
        response = requests.get(f"{self.base_url}/api/{path}", params={"token": self.token}, timeout=10)
        response.raise_for_status()
        return response.json()

    def kernel_connection_file(self, notebook: str) -> Path:
        """The connection file of the kernel the lab started for ``notebook`` (for jupyter_client)."""
        sessions = [item for item in self.api("sessions") if item["path"] == notebook]
        if not sessions:
            raise LookupError(f"no kernel session for {notebook}")
        return self.home / "runtime" / f"kernel-{sessions[0]['kernel']['id']}.json"

    @classmethod
    @contextmanager
    def running(cls, root: Path, home: Path, repository: Path, **options: Any) -> Iterator[JupyterLab]:
        """A started lab, stopped when the block ends, however it ends (``options``: ``port``, ``token``)."""
        lab = cls(root=root, home=home, repository=repository, **options)
        lab.start()
        try:
            yield lab
        finally:
            lab.stop()

    @property
    def log(self) -> Path:
        """The server's output (and its kernels'), the first place to look when a start or a run fails."""
        return self.home / "jupyter.log"

    def start(self) -> None:
        """Start the server and wait until it answers; on a port taken meanwhile, try again on another.

        Raises
        ------
        RuntimeError
            When the server exits or does not answer within `START_TIMEOUT` (the message names the log).
        """
        for attempt in range(1, START_ATTEMPTS + 1):
            self._launch()
            try:
                self._wait_until_answering()
                return
            except _PortTaken:
                if attempt == START_ATTEMPTS:
                    raise RuntimeError(
                        f"jupyter lab found no free port in {START_ATTEMPTS} tries; see {self.log}"
                    ) from None
                self.port = _free_port()

    def _launch(self) -> None:
        command = [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            command.append("--allow-root")
        environment = lab_environment(self.home, self.repository)
        with self.log.open("ab") as log:
            # a session of its own: a Ctrl+C in the terminal reaches pytest, which stops the server cleanly,
            # instead of the server, which would ask "Shutdown this Jupyter server (y/[n])?" and keep running
            self.process = subprocess.Popen(
                command,
                cwd=self.root,
                env=environment,
                stdout=log,
                stderr=log,
                start_new_session=True,
                preexec_fn=_terminate_with_parent,
            )

    def _wait_until_answering(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                if "is already in use" in self.log.read_text(errors="replace"):
                    raise _PortTaken
                raise RuntimeError(f"jupyter lab exited with {self.process.returncode}; see {self.log}")
            try:
                self.api("status")
                return
            except requests.RequestException:
                time.sleep(0.25)  # polling a server that is starting: there is nothing to wait on instead
        self.stop()
        raise RuntimeError(f"jupyter lab did not answer within {START_TIMEOUT:.0f} s; see {self.log}")

    def stop(self) -> None:
        """Shut the kernels down (their local backends stop with them), then the server; kill what hangs."""
        if self.process is None or self.process.poll() is not None:
            return
        try:
            for kernel in self.api("kernels"):
                requests.delete(
                    f"{self.base_url}/api/kernels/{kernel['id']}", params={"token": self.token}, timeout=STOP_TIMEOUT
                )
        except requests.RequestException:
            pass  # the server stops its remaining kernels itself on SIGTERM
        self.process.terminate()
        try:
            self.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=STOP_TIMEOUT)


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


class _PortTaken(Exception):
    """The port chosen for the server was taken before it could bind it."""


def _terminate_with_parent() -> None:
    """In the server's process, before it runs: on Linux, ask for SIGTERM when the test process dies."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def run_in_kernel(lab: JupyterLab, notebook: str, code: str, *, timeout: float = 120) -> str:
    """Run ``code`` in the kernel of the open ``notebook`` (its variables in scope) and return what it printed.

    A second client on the same kernel, through Jupyter's kernel protocol: the page does not show it.

    Raises
    ------
    RuntimeError
        With the traceback (colours removed) when ``code`` raised, or when the kernel did not answer in time.
    """
    from jupyter_client import BlockingKernelClient

    client = BlockingKernelClient(connection_file=str(lab.kernel_connection_file(notebook)))
    client.load_connection_file()
    client.start_channels()
    printed: list[str] = []

    def keep(message: dict[str, Any]) -> None:
        if message["msg_type"] == "stream" and message["content"]["name"] == "stdout":
            printed.append(message["content"]["text"])

    try:
        client.wait_for_ready(timeout=timeout)
        reply = client.execute_interactive(code, output_hook=keep, store_history=False, timeout=timeout)
    except (RuntimeError, TimeoutError) as error:
        raise RuntimeError(f"the kernel of {notebook} did not answer within {timeout:.0f} s ({error})") from error
    finally:
        client.stop_channels()
    if reply["content"]["status"] != "ok":
        traceback = "\n".join(reply["content"].get("traceback", [])) or reply["content"]["status"]
        raise RuntimeError(f"code run in the kernel of {notebook} failed:\n{_ANSI.sub('', traceback)}")
    return "".join(printed)


def copy_notebooks(source: Path, target: Path) -> Path:
    """Copy the notebooks folder (with its data) to ``target`` without the stored outputs: the browser runs
    change the copies only, and every output the tests look at was made in the browser."""
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "*.db"))
    for path in target.glob("*.ipynb"):
        notebook = json.loads(path.read_text())
        for cell in notebook["cells"]:
            if cell["cell_type"] == "code":
                cell["outputs"], cell["execution_count"] = [], None
        path.write_text(json.dumps(notebook, indent=1))
    return target
