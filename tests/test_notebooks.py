"""The example notebooks exist, are run by `make test`, and hold outputs nbval can compare.

nbval itself (in `make test`) re-runs every notebook and compares its outputs; these tests catch what it
cannot: a notebook missing from the list, outputs stored out of order or from a failed run, a cell whose
output would differ on every run.
"""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess

import nbformat
import pytest

from .notebook_files import NOTEBOOK_DIR, NOTEBOOKS, ROOT

SCREENSHOT_TAG = "screenshot:"
# notebooks whose builders a reader uses after running them
BUILDER_NOTEBOOKS = ["04_builders.ipynb"]


def _read(name: str) -> nbformat.NotebookNode:
    return nbformat.read(NOTEBOOK_DIR / name, as_version=4)


def _code_cells(name: str) -> list[nbformat.NotebookNode]:
    return [cell for cell in _read(name).cells if cell.cell_type == "code"]


def test_every_listed_notebook_exists_and_nothing_else_is_there():
    assert sorted(path.name for path in NOTEBOOK_DIR.glob("*.ipynb")) == NOTEBOOKS


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_test_runs_every_notebook_through_nbval_with_the_sanitize_file():
    command = subprocess.run(["make", "-n", "test"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    pytest_line = next(line for line in command.splitlines() if "-m pytest" in line)
    assert "--nbval " in pytest_line
    assert "--nbval-sanitize-with notebooks/sanitize.cfg" in pytest_line
    for name in NOTEBOOKS:
        assert f"notebooks/{name}" in pytest_line.split()


def test_sanitize_file_parses_and_every_pattern_compiles():
    config = configparser.ConfigParser()
    config.read(NOTEBOOK_DIR / "sanitize.cfg")
    assert config.sections()
    for section in config.sections():
        re.compile(config[section]["regex"])
        assert "replace" in config[section]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_outputs_are_stored_from_one_clean_run_top_to_bottom(name):
    notebook = _read(name)
    assert notebook.metadata["kernelspec"]["name"] == "python3"
    cells = _code_cells(name)
    assert [cell.execution_count for cell in cells] == list(range(1, len(cells) + 1))
    errors = [output for cell in cells for output in cell.outputs if output.output_type == "error"]
    assert errors == []
    streams = [output.text for cell in cells for output in cell.outputs if output.get("name") == "stderr"]
    assert streams == [], "warnings or progress bars in stored outputs"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_backend_runs_on_a_fixed_clock_and_seed_and_is_stopped(name):
    source = "\n".join(cell.source for cell in _code_cells(name))
    starts = re.findall(r"local\.start\(([^)]*)\)", source)
    assert starts, "the notebook starts its own backend"
    for arguments in starts:
        assert "now=" in arguments, "relative dates and the demo data need a fixed clock"
        if "demo=False" in arguments:  # the notebook makes its own events: from the demo generator, seeded
            assert re.search(r"demo_events\([^)]*seed=", source)
        else:
            assert "seed=" in arguments
    if name in BUILDER_NOTEBOOKS:
        # a reader plays with the builders after Run All: the server stays up until the kernel stops
        assert ".stop()" not in source
        assert any("client.stop()" in cell.source for cell in _read(name).cells if cell.cell_type == "markdown")
    else:
        assert ".stop()" in _code_cells(name)[-1].source


@pytest.mark.parametrize("name", BUILDER_NOTEBOOKS)
def test_builder_notebooks_keep_their_widget_state_to_show_without_running(name):
    state = _read(name).metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    assert state.get("state"), "run docs/run_notebooks.py: it stores the widget state"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_plotting_cells_show_the_figure_and_not_an_axes_repr(name):
    for cell in _code_cells(name):
        lines = [line for line in cell.source.splitlines() if line.strip() and not line.startswith("#")]
        if lines and re.match(r"(toolkit\.)?plot_\w+\(", lines[-1]):
            pytest.fail(f"end the cell with plt.show(): {lines[-1]}")
        for output in cell.outputs:
            assert not str(output.get("data", {}).get("text/plain", "")).startswith("<Axes"), cell.source


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_screenshot_cells_show_a_figure_whose_png_is_in_docs(name):
    for cell in _code_cells(name):
        for tag in cell.metadata.get("tags", []):
            if tag.startswith(SCREENSHOT_TAG):
                assert any("image/png" in output.get("data", {}) for output in cell.outputs), tag
                assert (ROOT / "docs" / "images" / f"{tag[len(SCREENSHOT_TAG) :]}.png").is_file(), tag


def test_readme_quickstart_shows_a_notebook_screenshot():
    readme = (ROOT / "README.md").read_text()
    shown = re.findall(r"!\[[^\]]*\]\((docs/images/[\w.]+\.png)\)", readme)
    tagged = {
        f"docs/images/{tag[len(SCREENSHOT_TAG) :]}.png"
        for name in NOTEBOOKS
        for cell in _code_cells(name)
        for tag in cell.metadata.get("tags", [])
        if tag.startswith(SCREENSHOT_TAG)
    }
    assert tagged & set(shown), "the README shows none of the notebooks' figures"


def _sanitize(text: str) -> str:
    config = configparser.ConfigParser()
    config.read(NOTEBOOK_DIR / "sanitize.cfg")
    for section in config.sections():
        text = re.sub(config[section]["regex"], config[section]["replace"], text)
    return text


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (
            "LocalClient(base_url='http://127.0.0.1:43567', project_id='1', "
            "db='/tmp/insightlab-nb-op3pjyen/demo.db', running)",
            "LocalClient(base_url='http://127.0.0.1:PORT', project_id='1', "
            "db='TMPDIR/insightlab-nb-XXXX/demo.db', running)",
        ),
        ("db='/var/folders/x1/T/insightlab-nb-a_b-c/q.db'", "db='TMPDIR/insightlab-nb-XXXX/q.db'"),
        ("Settings(api_key='phx_...xAPn')", "Settings(api_key='phx_KEY')"),
        ("Bearer phx_K9Okgn3djWIsK9cnOJArVlmuaDpuueEFA88Mvaiu4nO", "Bearer phx_KEY"),
        ("token phc_mfp4n6NSJciK92VcnMNCYdIyZdhknRSgbrJyIUYyIJs", "token phc_TOKEN"),
        ("2026-01-15 12:00:00.577523+00:00", "2026-01-15 12:MM:SS+00:00"),
        ("2026-01-15T12:03:09Z", "2026-01-15 12:MM:SSZ"),
        ("<matplotlib.lines.Line2D at 0x7f3a2c1d9e80>", "<matplotlib.lines.Line2D at 0xADDRESS>"),
        ("816ab888-9258-5e4e-9b21-f07bf33164dc", "UUID"),
        (
            "from 30000 rows in 1.5 s (20,447 rows/s).",
            "from 30000 rows in S s (N rows/s).",
        ),
        # what the notebooks show as results stays as it is
        ("2026-01-15 10:30:07.816+00:00", "2026-01-15 10:30:07.816+00:00"),
        ("2026-01-14 12:00:00+00:00", "2026-01-14 12:00:00+00:00"),
        ("Signup to purchase  FUNNELS   True", "Signup to purchase  FUNNELS   True"),
        ("0x1f", "0x1f"),
        ("Loaded 30000 events (0 already stored", "Loaded 30000 events (0 already stored"),
    ],
)
def test_sanitize_replaces_what_changes_between_runs_and_nothing_else(output, expected):
    assert _sanitize(output) == expected


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_notebook_keeps_dollars_in_its_tables_from_mathjax(name):
    # "$pageview ... $browser" in a frame's HTML is typeset as a formula unless pandas marks the table
    setup = next(cell.source for cell in _code_cells(name) if "import pandas as pd" in cell.source)
    assert 'pd.set_option("display.html.use_mathjax", False)' in setup
