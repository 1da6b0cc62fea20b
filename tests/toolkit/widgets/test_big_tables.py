"""Long results as tables that sort and search in the browser (itables), short ones and the no-itables case
as the plain scrolling table."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from toolkit.labels import NO_MATHJAX_CLASSES
from toolkit.widgets import big_tables
from toolkit.widgets.big_tables import INTERACTIVE_ROWS, interactive_table
from toolkit.widgets.results import ResultArea

pytest.importorskip("itables")


def _rows(markup: str) -> list[list]:
    """The rows itables hands DataTables (its ``data_json`` argument)."""
    found = re.search(r'"data_json": "((?:[^"\\]|\\.)*)"', markup)
    assert found, "no data in the interactive table"
    return json.loads(json.loads(f'"{found.group(1)}"'))


def _long(rows: int) -> pd.DataFrame:
    return pd.DataFrame({"event": ["$pageview", "<b>signup</b>"] * (rows // 2), "count": range(rows)})


def test_a_table_at_the_limit_stays_plain():
    assert interactive_table(_long(INTERACTIVE_ROWS)) is None


def test_a_longer_table_is_interactive_with_every_row_escaped():
    markup = interactive_table(_long(INTERACTIVE_ROWS + 2))
    assert markup is not None and "new ITable(" in markup
    rows = _rows(markup)
    # every row travels (no sampling), in order, and markup in a cell is text
    assert len(rows) == INTERACTIVE_ROWS + 2
    assert rows[:2] == [["$pageview", 0], ["&lt;b&gt;signup&lt;/b&gt;", 1]]
    assert NO_MATHJAX_CLASSES in markup  # "$pageview ... $browser" must not read as a formula


def test_without_itables_the_long_table_is_plain(monkeypatch):
    monkeypatch.setattr(big_tables, "itables_installed", lambda: False)
    assert interactive_table(_long(INTERACTIVE_ROWS * 2)) is None


@pytest.fixture
def shown(monkeypatch):
    calls = []
    monkeypatch.setattr("toolkit.widgets.results.in_kernel", lambda: True)
    monkeypatch.setattr("IPython.display.display", lambda item: calls.append(item))
    return calls


@pytest.mark.parametrize("installed, interactive", [(True, True), (False, False)])
def test_the_result_area_shows_a_long_result_interactive_only_with_itables(monkeypatch, shown, installed, interactive):
    monkeypatch.setattr(big_tables, "itables_installed", lambda: installed)
    ResultArea("trend").show(_long(INTERACTIVE_ROWS * 2), None)
    (table,) = [item for item in shown if hasattr(item, "data")]
    assert ("new ITable(" in table.data) is interactive
    assert ('class="insightlab-table"' in table.data) is not interactive


def test_the_result_area_keeps_a_short_result_plain(shown):
    ResultArea("trend").show(_long(10), None)
    (table,) = [item for item in shown if hasattr(item, "data")]
    assert 'class="insightlab-table"' in table.data and "ITable" not in table.data
