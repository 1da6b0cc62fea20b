"""docs/run_notebooks.py: which figures become screenshots, and what a clean stored run looks like."""

from __future__ import annotations

import base64
import importlib.util
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("run_notebooks", ROOT / "docs" / "run_notebooks.py")
assert _spec and _spec.loader
run_notebooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run_notebooks)

PNG = b"\x89PNG\r\n\x1a\nnot really a picture"


def _figure_output(picture: bytes = PNG) -> nbformat.NotebookNode:
    data = {"image/png": base64.b64encode(picture).decode(), "text/plain": "<Figure size 800x450 with 1 Axes>"}
    return new_output("display_data", data=data)


def _cell(outputs: list, tags: list[str] | None = None) -> nbformat.NotebookNode:
    cell = new_code_cell("plot()\nplt.show()", outputs=outputs, execution_count=1)
    if tags:
        cell.metadata["tags"] = tags
    return cell


def test_only_tagged_cells_give_screenshots_named_by_their_tag():
    notebook = new_notebook(
        cells=[
            _cell([_figure_output(b"untagged")]),
            _cell([_figure_output()], ["screenshot:trend_total", "other-tag"]),
            nbformat.v4.new_markdown_cell("text"),
        ]
    )
    assert run_notebooks.screenshots(notebook) == {"trend_total": PNG}


def test_a_cell_showing_two_figures_gives_its_last():
    notebook = new_notebook(cells=[_cell([_figure_output(b"first"), _figure_output(b"last")], ["screenshot:x"])])
    assert run_notebooks.screenshots(notebook) == {"x": b"last"}


def test_a_tagged_cell_without_a_figure_stops_with_its_tag():
    text = new_output("execute_result", data={"text/plain": "<Axes: >"}, execution_count=1)
    notebook = new_notebook(cells=[_cell([text], ["screenshot:missing"])])
    with pytest.raises(SystemExit, match="'missing' shows no figure"):
        run_notebooks.screenshots(notebook)


def test_no_tags_no_screenshots():
    assert run_notebooks.screenshots(new_notebook(cells=[_cell([_figure_output()])])) == {}


@pytest.mark.parametrize("name", ["missing.ipynb", "notes.txt"])
def test_a_path_that_is_not_a_notebook_file_is_a_usage_error_before_anything_runs(name, tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("not a notebook")
    with pytest.raises(SystemExit) as stopped:
        run_notebooks.main([str(tmp_path / name)])
    assert stopped.value.code == 2
    assert f"not a notebook file: {tmp_path / name}" in capsys.readouterr().err


def test_widget_state_is_stored_so_builders_show_without_running(tmp_path, monkeypatch):
    state = {"application/vnd.jupyter.widget-state+json": {"state": {"m1": {}}, "version_major": 2}}
    seen = {}

    class Client:
        def __init__(self, notebook, **options):
            seen.update(options)
            self.notebook = notebook

        def execute(self):
            self.notebook.metadata["widgets"] = state

    monkeypatch.setattr(run_notebooks, "NotebookClient", Client)
    path = tmp_path / "n.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("builder")]), path)
    run_notebooks.execute(path)
    assert seen["store_widget_state"] is True
    assert nbformat.read(path, as_version=4).metadata["widgets"] == state
