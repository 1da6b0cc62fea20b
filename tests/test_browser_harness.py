"""The browser tests' plumbing, checked without a browser: who runs them, and what the lab they start sees."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from .browser.lab import LAB_SETTINGS, copy_notebooks, lab_environment

ROOT = Path(__file__).resolve().parents[1]
needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _pytest_line(target: str) -> list[str]:
    command = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return next(line for line in command.splitlines() if "-m pytest" in line).split()


@needs_make
def test_make_test_leaves_the_browser_tests_out():
    assert "--ignore=tests/browser" in _pytest_line("test")


@needs_make
def test_make_test_browser_runs_only_the_browser_tests():
    line = _pytest_line("test-browser")
    assert line[line.index("pytest") + 1 :] == ["tests/browser", "-m", "browser"]


def test_a_plain_pytest_run_deselects_the_browser_tests():
    import tomllib

    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"]
    marker = addopts.split("-m ", 1)[1].strip("'\"")
    assert marker.startswith("not browser")


def test_ci_installs_chromium_when_missing_then_runs_the_suite_and_the_browser_suite():
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    commands = [line for line in lines if line and not line.startswith("#")]
    install = next(line for line in commands if "apt-get install" in line)
    assert install.startswith("command -v chromium >/dev/null ||") and "apt-get install -y chromium" in install
    assert commands.index(install) < commands.index("make test") < commands.index("make test-browser")


def test_readme_says_how_to_open_the_notebooks_and_run_the_browser_tests():
    readme = (ROOT / "README.md").read_text()
    for command in ("make lab", "make test-browser", "apt-get install chromium"):
        assert command in readme, command


def test_the_lab_reads_only_temporary_jupyter_dirs_with_the_test_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", "/home/someone/.jupyter")
    monkeypatch.setenv("JUPYTERLAB_SETTINGS_DIR", "/home/someone/.jupyter/lab/user-settings")
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    environment = lab_environment(tmp_path / "home", ROOT)
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTERLAB_SETTINGS_DIR"):
        assert Path(environment[name]).is_relative_to(tmp_path / "home"), name
    assert environment["PYTHONPATH"].split(":") == [str(ROOT), "/elsewhere"]
    overrides = Path(environment["JUPYTER_CONFIG_DIR"]) / "labconfig" / "default_setting_overrides.json"
    assert json.loads(overrides.read_text()) == LAB_SETTINGS
    assert LAB_SETTINGS["@jupyterlab/notebook-extension:tracker"]["windowingMode"] == "none"


def test_the_lab_serves_copies_without_outputs_and_the_repository_keeps_its_own(tmp_path):
    source = ROOT / "notebooks"
    stored = {path.name: path.read_bytes() for path in source.glob("*.ipynb")}
    target = copy_notebooks(source, tmp_path / "notebooks")
    assert {path.name for path in target.glob("*.ipynb")} == set(stored)
    assert (target / "data" / "webinar_events.csv").is_file()
    for name in stored:
        copy = nbformat.read(target / name, as_version=4)
        original = nbformat.read(source / name, as_version=4)
        assert [cell.source for cell in copy.cells] == [cell.source for cell in original.cells]
        assert [cell.get("outputs") for cell in copy.cells if cell.cell_type == "code"] == [
            [] for cell in original.cells if cell.cell_type == "code"
        ]
    assert {path.name: path.read_bytes() for path in source.glob("*.ipynb")} == stored
