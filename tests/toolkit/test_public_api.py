"""The public surface: a sorted ``__all__`` that matches what is exported, typed, documented with examples
that run."""

from __future__ import annotations

import doctest
import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import requests

import toolkit
from toolkit import Client

MODULES = [
    "toolkit",
    "toolkit.actors_query",
    "toolkit.calculations",
    "toolkit.capture",
    "toolkit.client",
    "toolkit.cohorts",
    "toolkit.config",
    "toolkit.data",
    "toolkit.engagement",
    "toolkit.entities",
    "toolkit.errors",
    "toolkit.frames",
    "toolkit.frames._columns",
    "toolkit.frames._responses",
    "toolkit.frames.funnels",
    "toolkit.frames.lifecycle",
    "toolkit.frames.paths",
    "toolkit.frames.readable_tables",
    "toolkit.frames.readable_values",
    "toolkit.frames.resources",
    "toolkit.frames.results",
    "toolkit.frames.retention",
    "toolkit.frames.sql",
    "toolkit.frames.stickiness",
    "toolkit.frames.trends",
    "toolkit.funnel_request",
    "toolkit.insight_requests",
    "toolkit.insights",
    "toolkit.io",
    "toolkit.labels",
    "toolkit.lifecycle_request",
    "toolkit.local",
    "toolkit.magic",
    "toolkit.people",
    "toolkit.plots",
    "toolkit.plots.bars",
    "toolkit.plots.funnels",
    "toolkit.plots.hover",
    "toolkit.plots.layout",
    "toolkit.plots.lifecycle",
    "toolkit.plots.paths",
    "toolkit.plots.periods",
    "toolkit.plots.retention",
    "toolkit.plots.stickiness",
    "toolkit.plots.style",
    "toolkit.plots.trend_series",
    "toolkit.plots.trends",
    "toolkit.plugins",
    "toolkit.projects",
    "toolkit.sql",
    "toolkit.stickiness_request",
    "toolkit.transport",
    "toolkit.unseen_names",
    "toolkit.widgets",
    "toolkit.widgets.base",
    "toolkit.widgets.catalog",
    "toolkit.widgets.controls",
    "toolkit.widgets.funnel",
    "toolkit.widgets.path_funnel",
    "toolkit.widgets.people",
    "toolkit.widgets.people_points",
    "toolkit.widgets.results",
    "toolkit.widgets.reuse",
    "toolkit.widgets.runs",
    "toolkit.widgets.starts",
    "toolkit.widgets.trend",
]


def test_all_is_sorted_and_complete():
    assert toolkit.__all__ == sorted(toolkit.__all__)
    public = {name for name in dir(toolkit) if not name.startswith("_")} - {"annotations"}
    modules = {name for name in public if inspect.ismodule(getattr(toolkit, name))} - {
        "frames",
        "local",
        "plots",
        "widgets",
    }
    assert set(toolkit.__all__) | modules == public | {"__version__"}


@pytest.mark.parametrize("name", MODULES)
def test_every_module_lists_what_exists(name):
    module = importlib.import_module(name)
    for exported in getattr(module, "__all__", []):
        assert hasattr(module, exported), f"{name}.__all__ names missing {exported}"


def test_import_toolkit_needs_neither_matplotlib_nor_ipywidgets():
    code = "import sys, toolkit; print(sorted({'matplotlib', 'ipywidgets'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
    assert toolkit.plot_trend is toolkit.plots.plot_trend
    assert toolkit.TrendBuilder is toolkit.widgets.TrendBuilder


def test_py_typed_ships():
    assert (Path(toolkit.__file__).parent / "py.typed").exists()


def _public_methods():
    for name, member in inspect.getmembers(Client, inspect.isfunction):
        if not name.startswith("_"):
            yield name, member


@pytest.mark.parametrize("name, method", list(_public_methods()))
def test_client_methods_have_examples_and_hints(name, method):
    doc = inspect.getdoc(method) or ""
    assert "Examples" in doc and ">>>" in doc, f"Client.{name} has no example"
    hints = inspect.get_annotations(method)
    assert "return" in hints, f"Client.{name} has no return annotation"


@pytest.mark.parametrize("name", [n for n in toolkit.__all__ if inspect.isfunction(getattr(toolkit, n, None))])
def test_exported_functions_have_examples(name):
    assert ">>>" in (inspect.getdoc(getattr(toolkit, name)) or "")


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    globs = {"pd": pd, "requests": requests, **vars(toolkit), **vars(module)}
    for test in finder.find(module, name, globs=globs):
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} docstring example(s) failed in {name}"


@pytest.mark.parametrize("name", [name for name, _ in _public_methods()])
def test_every_client_method_is_documented(name):
    docs = (Path(__file__).resolve().parents[2] / "docs" / "toolkit.md").read_text()
    assert re.search(rf"[`.]{name}[(`]", docs), f"docs/toolkit.md does not mention Client.{name}"


def test_the_calculation_frames_keep_their_public_names_after_the_split():
    from toolkit import frames
    from toolkit.frames import results as result_frames

    names = ["trend_frame", "wide_trend_frame", "complete_trend_frame", "funnel_frame", "funnel_trends_frame"]
    names += ["time_to_convert_frame", "retention_frame", "paths_frame", "response_results", "TREND_COLUMNS"]
    assert set(result_frames.__all__) >= set(names)
    for name in set(frames.__all__) & set(result_frames.__all__):
        assert getattr(frames, name) is getattr(result_frames, name), name
    assert {"trend_frame", "funnel_frame", "retention_frame", "paths_frame"} <= set(frames.__all__)
