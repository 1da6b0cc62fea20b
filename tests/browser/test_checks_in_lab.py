"""The checks of the notebook runs find what they look for: a notebook made of one problem per cell."""

from __future__ import annotations

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from .lab import VIEWPORT
from .pages import (
    PageTimeout,
    open_notebook,
    output_problems,
    run_all_cells,
    save_notebook,
    screenshot_notebook,
    screenshot_on_failure,
    unexecuted_cells,
    wait_for,
)

pytestmark = pytest.mark.browser

MISSING_WIDGET = {"model_id": "0" * 32, "version_major": 2, "version_minor": 0}
CELLS = [
    'import sys\nprint("careful", file=sys.stderr)',
    'from IPython.display import HTML, display\ndisplay(HTML("<table><tr><td>($a or $b)</td></tr></table>"))',
    'import pandas as pd\npd.DataFrame({"description": ["($a or $b)"]})',
    # what a notebook showing such frames does (docs/decisions.md): pandas then marks its tables for MathJax to skip
    'pd.set_option("display.html.use_mathjax", False)\npd.DataFrame({"description": ["($a or $b)"]})',
    f'display({{"application/vnd.jupyter.widget-view+json": {MISSING_WIDGET!r}, "text/plain": "w"}}, raw=True)',
    'raise ValueError("boom")',
    "1 + 1",
]


# a view of a model the kernel never made stays "Loading widget..." (JupyterLab shows "Error displaying widget"
# only when a view fails to build): it counts as not rendered
def test_errors_stderr_missing_widgets_and_math_are_all_found(browser, lab, screenshots):
    notebook = new_notebook(cells=[new_code_cell(source) for source in CELLS])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, lab.root / "problems.ipynb")
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        with screenshot_on_failure(page, screenshots / "problems_failed.png"):
            open_notebook(page, lab, "problems.ipynb")
            run_all_cells(page)
            problems = output_problems(page, save_notebook(page, lab, "problems.ipynb"))
            unexecuted = unexecuted_cells(page)
            screenshot_notebook(page, screenshots / "problems.png")
    finally:
        context.close()
    assert {(problem.kind, problem.cell) for problem in problems} == {
        ("stderr output", 1),
        ("output typeset as math", 2),
        ("output typeset as math", 3),
        ("widget not rendered", 5),
        ("error output", 6),
    }
    assert unexecuted == [7]


def test_a_wait_that_times_out_says_what_it_waited_for_and_leaves_a_screenshot_named_in_the_error(page, tmp_path):
    page.set_content("<p>the page as it was when the wait failed</p>")
    picture = tmp_path / "failed.png"
    with pytest.raises(PageTimeout) as failure, screenshot_on_failure(page, picture):
        wait_for(page, "() => false", what="a condition that never holds", timeout_ms=1000)
    assert str(failure.value) == "a condition that never holds: not within 1 s"
    assert failure.value.__notes__ == [f"screenshot of the page when this failed: {picture}"]
    assert picture.read_bytes().startswith(b"\x89PNG")
