"""The two descriptions of the environment stay in step, and the documented commands exist."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
# conda-forge names that differ from the PyPI ones
CONDA_NAMES = {"matplotlib": "matplotlib-base"}
# test-only tools installed through the `-e .[test]` pip entry
PIP_ONLY = {"nbval", "pytest", "pytest-xdist", "httpx2", "ruff", "pyyaml", "posthog", "requests-mock", "responses"}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].strip().lower()


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_environment_yml_lists_every_dependency():
    project = _pyproject()["project"]
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert "conda-forge" in env["channels"]
    conda = {str(dep).split("=")[0].lower() for dep in env["dependencies"] if isinstance(dep, str)}
    pip_entries = [dep["pip"] for dep in env["dependencies"] if isinstance(dep, dict)]
    assert "pip" in conda
    assert any(entry.startswith("-e .") for entries in pip_entries for entry in entries)
    wanted = [_name(dep) for dep in project["dependencies"]]
    for extra in ("widgets", "parquet", "test"):
        wanted += [_name(dep) for dep in project["optional-dependencies"][extra] if not dep.startswith("insightlab")]
    missing = [name for name in wanted if name not in PIP_ONLY and CONDA_NAMES.get(name, name) not in conda]
    assert missing == [], f"add to environment.yml: {missing}"


def test_console_script_points_at_the_cli():
    scripts = _pyproject()["project"]["scripts"]
    assert scripts["insightlab"] == "local_backend.__main__:main"


def test_readme_documents_both_commands_and_every_cli_command():
    readme = (ROOT / "README.md").read_text()
    assert "make run" in readme and "make test" in readme
    from local_backend.__main__ import COMMANDS

    for command in COMMANDS:
        assert f"`{command}" in readme, f"README's CLI table lacks {command}"


def test_ci_runs_make_test():
    assert "make test" in (ROOT / ".ci" / "run").read_text()
