"""Fixtures of the browser tests: one JupyterLab serving a copy of the notebooks, one Chromium, a page per test.

These tests run only with ``make test-browser`` (``make test`` ignores this folder): they need the ``browser``
extra (jupyterlab, playwright) and a Chromium binary, and take a few minutes. Screenshots are written to
``INSIGHTLAB_SCREENSHOTS`` (default: a new temporary folder), which the run prints at its start and end.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .lab import CHROMIUM_ARGS, VIEWPORT, JupyterLab, chromium_path, copy_notebooks

ROOT = Path(__file__).resolve().parents[2]
_SCREENSHOTS = pytest.StashKey[Path]()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.path).parents:
            item.add_marker(pytest.mark.browser)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if _SCREENSHOTS in config.stash:
        terminalreporter.write_line(f"browser screenshots: {config.stash[_SCREENSHOTS]}")


@pytest.fixture(scope="session")
def screenshots(pytestconfig: pytest.Config) -> Path:
    """Where the screenshots go: ``INSIGHTLAB_SCREENSHOTS``, else a new temporary folder (printed at the end)."""
    folder = os.environ.get("INSIGHTLAB_SCREENSHOTS")
    path = Path(folder) if folder else Path(tempfile.mkdtemp(prefix="insightlab-screenshots-"))
    path.mkdir(parents=True, exist_ok=True)
    pytestconfig.stash[_SCREENSHOTS] = path.resolve()
    return path.resolve()


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterLab]:
    """A JupyterLab serving a copy of notebooks/ (without stored outputs) from temporary Jupyter dirs."""
    base = tmp_path_factory.mktemp("lab")
    root = copy_notebooks(ROOT / "notebooks", base / "notebooks")
    with JupyterLab.running(root, base / "home", ROOT) as server:
        yield server


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    executable = chromium_path()
    if not (Path(executable).is_file() or shutil.which(executable)):
        pytest.fail(
            f"no Chromium at {executable}: install it (Debian: apt-get install chromium) or set INSIGHTLAB_CHROMIUM"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=VIEWPORT)
    yield context.new_page()
    context.close()
