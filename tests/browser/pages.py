"""What the browser tests do in a JupyterLab page (``page`` is a `playwright.sync_api.Page`).

Reading order: `open_notebook`, `run_all_cells` (both wait until the kernel is idle with no cell queued),
`save_notebook` and `output_problems` (what went wrong in the outputs), `screenshot_notebook` (the whole
notebook in one PNG) and `screenshot_on_failure` (a picture of the page when a step fails).

Every wait is for a condition in the page, never a fixed pause, and has a deadline: on timeout it raises
`PageTimeout` saying what it waited for.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .lab import JupyterLab

__all__ = [
    "PageTimeout",
    "Problem",
    "open_notebook",
    "output_problems",
    "run_all_cells",
    "save_notebook",
    "screenshot_notebook",
    "screenshot_on_failure",
    "unexecuted_cells",
    "wait_for",
    "wait_for_idle_kernel",
]

OPEN_TIMEOUT_MS = 90_000
RUN_TIMEOUT_MS = 240_000
"""A whole notebook, Run All to idle; one takes about 20 s here."""
MAX_SCREENSHOT_HEIGHT = 30_000


class PageTimeout(AssertionError):
    """The page did not reach a state in time; the message says which."""


def wait_for(page: Any, script: str, *, what: str, timeout_ms: int, arg: Any = None) -> None:
    """Wait until the JavaScript function ``script`` (called with ``arg``) returns something truthy.

    Raises
    ------
    PageTimeout
        "``what``: not within N s", after ``timeout_ms``.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(script, arg=arg, timeout=timeout_ms)
    except PlaywrightTimeout:
        raise PageTimeout(f"{what}: not within {timeout_ms / 1000:.0f} s") from None


_IDLE_SCRIPT = """() => {
    const indicator = document.querySelector('.jp-NotebookPanel .jp-Notebook-ExecutionIndicator');
    if (!indicator || indicator.getAttribute('data-status') !== 'idle') return false;
    const prompts = [...document.querySelectorAll('.jp-NotebookPanel .jp-CodeCell .jp-InputPrompt')];
    return !prompts.some(prompt => prompt.textContent.includes('*'));
}"""


def open_notebook(page: Any, lab: JupyterLab, name: str) -> None:
    """Open ``name`` in the lab and wait until its kernel has started and the page shows it idle."""
    page.goto(lab.notebook_url(name))
    wait_for(
        page,
        """() => document.querySelector('.jp-NotebookPanel .jp-Notebook .jp-Cell')
            && [...document.querySelectorAll('.jp-StatusBar-Widget')]
                .some(item => item.textContent.includes('| Idle'))""",
        what=f"{name} open with its kernel started and idle (server log: {lab.log})",
        timeout_ms=OPEN_TIMEOUT_MS,
    )
    wait_for_idle_kernel(page, timeout_ms=OPEN_TIMEOUT_MS)
    # the file browser would take a fifth of the width from the notebook in the screenshots
    if page.locator("#jp-left-stack").is_visible():
        page.keyboard.press("Control+b")  # View > Appearance > Show Left Sidebar
        page.locator("#jp-left-stack").wait_for(state="hidden")


def wait_for_idle_kernel(page: Any, *, timeout_ms: int = RUN_TIMEOUT_MS) -> None:
    """Wait until the notebook's kernel reports idle and no cell is queued or running (``[*]``)."""
    wait_for(page, _IDLE_SCRIPT, what="the kernel idle with no cell queued or running", timeout_ms=timeout_ms)


def run_all_cells(page: Any, *, timeout_ms: int = RUN_TIMEOUT_MS) -> None:
    """Run > Run All Cells, then wait until the kernel is idle with no cell queued or running.

    The lab stops at a cell that raises and unqueues the rest: those keep an empty prompt, and
    `output_problems` reports the error.
    """
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")
    page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
    wait_for(
        page,
        """() => {
            const prompt = document.querySelector('.jp-NotebookPanel .jp-CodeCell .jp-InputPrompt');
            return prompt && /\\[(\\d+|\\*)\\]/.test(prompt.textContent);
        }""",
        what="the first code cell queued or run after Run > Run All Cells",
        timeout_ms=60_000,
    )
    wait_for(
        page,
        _IDLE_SCRIPT,
        what="every cell run (the kernel idle with no cell queued or running) after Run All Cells",
        timeout_ms=timeout_ms,
    )


def unexecuted_cells(page: Any) -> list[int]:
    """1-based positions (among all cells) of the code cells without an execution count."""
    return page.evaluate(
        """() => [...document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-Cell')]
            .map((cell, index) => [cell, index + 1])
            .filter(([cell]) => cell.classList.contains('jp-CodeCell'))
            .filter(([cell]) => !/\\[\\d+\\]/.test(cell.querySelector('.jp-InputPrompt').textContent))
            .map(([, number]) => number)"""
    )


_SCROLLER = "document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer')"


def screenshot_notebook(page: Any, path: Path) -> Path:
    """A PNG of the whole open notebook: the window grows to the notebook's height for the picture."""
    viewport = page.viewport_size
    before = page.evaluate(
        f"""() => {{
            const scroller = {_SCROLLER};
            return {{inner: window.innerHeight, client: scroller ? scroller.clientHeight : 0,
                     hidden: scroller ? scroller.scrollHeight - scroller.clientHeight : 0}};
        }}"""
    )
    height = min(before["inner"] + before["hidden"] + 40, MAX_SCREENSHOT_HEIGHT)
    page.set_viewport_size({"width": viewport["width"], "height": height})
    try:
        # the lab lays its panels out again after a resize: wait until the notebook has grown with the window
        wait_for(
            page,
            f"""([height, grown]) => {{
                const scroller = {_SCROLLER};
                return window.innerHeight === height && (!scroller || scroller.clientHeight >= grown);
            }}""",
            arg=[height, before["client"] + height - before["inner"]],
            what=f"the notebook laid out in a window {height} px high",
            timeout_ms=30_000,
        )
        page.evaluate(f"() => {{ const scroller = {_SCROLLER}; if (scroller) scroller.scrollTo(0, 0); }}")
        wait_for(
            page,
            f"() => {{ const scroller = {_SCROLLER}; return !scroller || scroller.scrollTop === 0; }}",
            what="the notebook scrolled to its top",
            timeout_ms=10_000,
        )
        page.screenshot(path=str(path), full_page=True)
    finally:
        page.set_viewport_size(viewport)
    return path


@contextmanager
def screenshot_on_failure(page: Any, path: Path) -> Iterator[None]:
    """On an exception inside the block, save a full-page PNG of ``page`` to ``path`` and name it in the error."""
    try:
        yield
    except Exception as error:
        try:
            page.screenshot(path=str(path), full_page=True)
            error.add_note(f"screenshot of the page when this failed: {path}")
        except Exception as unavailable:  # the page itself may be what failed
            error.add_note(f"no screenshot of the page ({type(unavailable).__name__}: {unavailable})")
        raise


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


@contextmanager
def notebook_copy_run(browser: Any, lab: JupyterLab, source: str, copy: str, failed_shot: Path) -> Iterator[Any]:
    """A page on ``copy``, a copy of notebook ``source`` with a kernel of its own, run top to bottom as a reader
    leaves it (a picture at ``failed_shot`` when that fails); its browser context closed after."""
    from .lab import VIEWPORT

    (lab.root / copy).write_bytes((lab.root / source).read_bytes())
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        with screenshot_on_failure(page, failed_shot):
            open_notebook(page, lab, copy)
            run_all_cells(page)
        yield page
    finally:
        context.close()


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
