"""A JupyterLab server and a Chromium page for the browser tests, with nothing borrowed from the user's setup.

Reading order: `lab_environment` (the temporary Jupyter dirs and the settings every run uses), `JupyterLab`
(start, URLs, kernels, stop), then the page helpers (`open_notebook`, `run_all_cells`, `output_problems`).
The server serves a copy of the notebooks, so running them in the browser never touches the stored outputs.
"""

from __future__ import annotations

import json
import os
import shutil
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
    "Problem",
    "chromium_path",
    "copy_notebooks",
    "lab_environment",
    "open_notebook",
    "output_problems",
    "run_all_cells",
    "run_in_kernel",
    "save_notebook",
    "screenshot_notebook",
    "unexecuted_cells",
    "wait_for_idle_kernel",
]

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
RUN_TIMEOUT_MS = 240_000
MAX_SCREENSHOT_HEIGHT = 30_000


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
    def running(cls, root: Path, home: Path, repository: Path) -> Iterator[JupyterLab]:
        lab = cls(root=root, home=home, repository=repository)
        lab.start()
        try:
            yield lab
        finally:
            lab.stop()

    def start(self) -> None:
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
        with (self.home / "jupyter.log").open("wb") as log:
            self.process = subprocess.Popen(command, cwd=self.root, env=environment, stdout=log, stderr=log)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with {self.process.returncode}; see {self.home}/jupyter.log")
            try:
                self.api("status")
                return
            except requests.RequestException:
                time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"jupyter lab did not answer within {START_TIMEOUT:.0f} s; see {self.home}/jupyter.log")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        try:  # shut kernels down through the server first, so their local backends stop too
            for kernel in self.api("kernels"):
                requests.delete(f"{self.base_url}/api/kernels/{kernel['id']}", params={"token": self.token}, timeout=20)
        except requests.RequestException:
            pass
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


def run_in_kernel(lab: JupyterLab, notebook: str, code: str, *, timeout: float = 120) -> str:
    """Run ``code`` in the kernel of the open ``notebook`` (its variables in scope) and return what it printed.

    A second client on the same kernel, through Jupyter's kernel protocol: the page does not show it.
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
    finally:
        client.stop_channels()
    if reply["content"]["status"] != "ok":
        raise RuntimeError("\n".join(reply["content"].get("traceback", [])) or reply["content"]["status"])
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


# page helpers (``page`` is a playwright.sync_api.Page) ---------------------------------------------------------


def open_notebook(page: Any, lab: JupyterLab, name: str) -> None:
    """Open ``name`` in the lab and wait until its kernel has started and the page shows it idle."""
    page.goto(lab.notebook_url(name))
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=60_000)
    deadline = time.monotonic() + 60
    while not any(item["path"] == name and item["kernel"]["execution_state"] == "idle" for item in lab.api("sessions")):
        if time.monotonic() > deadline:
            raise TimeoutError(f"no idle kernel for {name} after 60 s")
        time.sleep(0.25)
    page.wait_for_selector(".jp-StatusBar-Widget:has-text('| Idle')", timeout=60_000)
    wait_for_idle_kernel(page, timeout_ms=60_000)
    # the file browser would take a fifth of the width from the notebook in the screenshots
    if page.locator("#jp-left-stack").is_visible():
        page.keyboard.press("Control+b")  # View > Appearance > Show Left Sidebar
        page.locator("#jp-left-stack").wait_for(state="hidden")


def wait_for_idle_kernel(page: Any, *, timeout_ms: int = RUN_TIMEOUT_MS) -> None:
    """Wait until the notebook's kernel reports idle and no cell is queued or running (``[*]``)."""
    page.wait_for_function(
        """() => {
            const indicator = document.querySelector('.jp-NotebookPanel .jp-Notebook-ExecutionIndicator');
            if (!indicator || indicator.getAttribute('data-status') !== 'idle') return false;
            const prompts = [...document.querySelectorAll('.jp-NotebookPanel .jp-CodeCell .jp-InputPrompt')];
            return !prompts.some(prompt => prompt.textContent.includes('*'));
        }""",
        timeout=timeout_ms,
    )


def run_all_cells(page: Any, *, timeout_ms: int = RUN_TIMEOUT_MS) -> None:
    """Run > Run All Cells, then wait until the kernel is idle with no cell queued or running.

    The lab stops at a cell that raises and unqueues the rest: those keep an empty prompt, and
    `output_problems` reports the error.
    """
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")
    page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
    page.wait_for_function(
        """() => {
            const prompt = document.querySelector('.jp-NotebookPanel .jp-CodeCell .jp-InputPrompt');
            return prompt && /\\[(\\d+|\\*)\\]/.test(prompt.textContent);
        }""",
        timeout=60_000,
    )
    wait_for_idle_kernel(page, timeout_ms=timeout_ms)


def unexecuted_cells(page: Any) -> list[int]:
    """1-based positions (among all cells) of the code cells without an execution count."""
    return page.evaluate(
        """() => [...document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-Cell')]
            .map((cell, index) => [cell, index + 1])
            .filter(([cell]) => cell.classList.contains('jp-CodeCell'))
            .filter(([cell]) => !/\\[\\d+\\]/.test(cell.querySelector('.jp-InputPrompt').textContent))
            .map(([, number]) => number)"""
    )


def screenshot_notebook(page: Any, path: Path) -> Path:
    """A PNG of the whole open notebook: the window grows to the notebook's height for the picture."""
    viewport = page.viewport_size
    height = page.evaluate(
        """() => {
            const scroller = document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer');
            return scroller ? scroller.scrollHeight - scroller.clientHeight + window.innerHeight : window.innerHeight;
        }"""
    )
    page.set_viewport_size({"width": viewport["width"], "height": min(int(height) + 40, MAX_SCREENSHOT_HEIGHT)})
    try:
        page.wait_for_timeout(500)  # a resize re-lays out the lab; let it settle
        page.evaluate("() => document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer').scrollTo(0, 0)")
        page.wait_for_timeout(200)
        page.screenshot(path=str(path), full_page=True)
    finally:
        page.set_viewport_size(viewport)
    return path


@dataclass(frozen=True)
class Problem:
    """Something wrong in a cell's rendered output: ``kind`` and the cell's 1-based position."""

    kind: str
    cell: int
    text: str

    def __str__(self) -> str:
        return f"cell {self.cell}: {self.kind}: {self.text[:300]}"


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

# what only the page shows: widgets that did not render, and text typeset as math; ``widgets`` holds how many
# widget views each cell's outputs hold (from the saved notebook)
PROBLEMS_SCRIPT = """(widgets) => {
    const problems = [];
    const cells = [...document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-Cell')];
    cells.forEach((cell, index) => {
        const add = (kind, text) => problems.push({kind, cell: index + 1, text: (text || '').trim()});
        cell.querySelectorAll('mjx-merror, .MathJax_Error').forEach(e => add('math error', e.textContent));
        if (!cell.classList.contains('jp-CodeCell')) return;
        const outputs = [...cell.querySelectorAll('.jp-OutputArea-output')];
        outputs.forEach(output => {
            if ((output.textContent || '').includes('Error displaying widget')) add('widget error', output.textContent);
            output.querySelectorAll('mjx-container').forEach(math => add('output typeset as math', math.textContent));
        });
        const shown = outputs.filter(output => {
            const view = output.querySelector(':scope > .jupyter-widgets');
            const box = view && view.getBoundingClientRect();
            return box && box.width > 0 && box.height > 0;
        }).length;
        if (shown < (widgets[index] || 0)) add('widget not rendered', `${shown} of ${widgets[index]} widgets shown`);
    });
    return problems;
}"""


def save_notebook(page: Any, lab: JupyterLab, name: str) -> dict[str, Any]:
    """Save the open notebook (a copy: see `copy_notebooks`) and return it as the server stored it."""
    page.keyboard.press("Control+s")
    page.wait_for_selector(".lm-TabBar-tab.jp-mod-current:not(.jp-mod-dirty)", timeout=30_000)
    return lab.api(f"contents/{name}")["content"]


def output_problems(page: Any, notebook: dict[str, Any]) -> list[Problem]:
    """Every error, stderr output, widget failure or math typesetting in the open ``notebook``'s outputs.

    ``notebook`` is the same notebook as saved after the run (`save_notebook`): it says which outputs are
    errors, stderr or widget views; the page says whether those widgets rendered and what was typeset.
    """
    problems: list[Problem] = []
    widgets: list[int] = []
    for number, cell in enumerate(notebook["cells"], start=1):
        outputs = cell.get("outputs", [])
        widgets.append(sum(WIDGET_VIEW in output.get("data", {}) for output in outputs))
        for output in outputs:
            if output["output_type"] == "error":
                problems.append(Problem("error output", number, f"{output['ename']}: {output['evalue']}"))
            elif output["output_type"] == "stream" and output["name"] == "stderr":
                problems.append(Problem("stderr output", number, output["text"]))
    return problems + [Problem(**item) for item in page.evaluate(PROBLEMS_SCRIPT, widgets)]
