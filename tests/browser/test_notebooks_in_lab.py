"""Every example notebook, run top to bottom in JupyterLab in Chromium, renders without errors.

nbval compares stored and fresh outputs as text; only a browser shows what a reader sees: tracebacks,
stderr, widgets that fail to render ("Error displaying widget"), and text the lab typesets as LaTeX because
it holds two ``$`` (``$pageview ... $browser``). Each notebook runs once (a copy, so the stored outputs
stay as they are); the checks below read that run, and its full-page screenshot is saved.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ..notebook_files import NOTEBOOKS
from .lab import VIEWPORT, JupyterLab
from .pages import (
    Problem,
    open_notebook,
    output_problems,
    run_all_cells,
    save_notebook,
    screenshot_notebook,
    screenshot_on_failure,
    unexecuted_cells,
)

pytestmark = pytest.mark.browser


@dataclass(frozen=True)
class NotebookRun:
    name: str
    problems: list[Problem]
    unexecuted: list[int]
    screenshot: Path

    def of_kind(self, *kinds: str) -> list[str]:
        return [str(problem) for problem in self.problems if problem.kind in kinds]


@pytest.fixture(scope="session")
def run_notebook(browser: Any, lab: JupyterLab, screenshots: Path) -> Iterator[Callable[[str], NotebookRun]]:
    """Run a notebook in the lab once (later calls give the same run): problems found and a screenshot."""
    runs: dict[str, NotebookRun] = {}

    def run(name: str) -> NotebookRun:
        if name not in runs:
            context = browser.new_context(viewport=VIEWPORT)
            try:
                page = context.new_page()
                with screenshot_on_failure(page, screenshots / f"{Path(name).stem}_failed.png"):
                    open_notebook(page, lab, name)
                    run_all_cells(page)
                    unexecuted = unexecuted_cells(page)
                    problems = output_problems(page, save_notebook(page, lab, name))
                    picture = screenshot_notebook(page, screenshots / f"{Path(name).stem}.png")
            finally:
                context.close()
            runs[name] = NotebookRun(name, problems, unexecuted, picture)
        return runs[name]

    yield run


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_cell_runs_without_an_error(run_notebook, name):
    run = run_notebook(name)
    assert run.of_kind("error output") == [], f"see {run.screenshot}"
    assert run.unexecuted == [], f"cells not run (a cell above failed): see {run.screenshot}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_nothing_is_written_to_stderr(run_notebook, name):
    run = run_notebook(name)
    assert run.of_kind("stderr output") == [], f"warnings or progress bars: see {run.screenshot}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_widget_renders(run_notebook, name):
    run = run_notebook(name)
    assert run.of_kind("widget error", "widget not rendered") == [], f"see {run.screenshot}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_no_output_is_typeset_as_math(run_notebook, name):
    run = run_notebook(name)
    assert run.of_kind("output typeset as math", "math error") == [], f"see {run.screenshot}"
