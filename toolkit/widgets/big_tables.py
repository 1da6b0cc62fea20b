"""Result tables that sort and search in the browser, for results too long to read as a plain table.

`interactive_table` gives the HTML of an `itables <https://mwouts.github.io/itables/>`_ table (DataTables:
click a header to sort, type to search, pages of rows) for a readable table of more than `INTERACTIVE_ROWS`
rows, when the optional ``itables`` package is installed (``pip install 'insightlab[tables]'``); otherwise
None, and the builder shows its plain scrolling table as before. The library's code travels inside the HTML
(its offline mode, no internet needed): the notebook front end runs it once and keeps it for later tables.
Cells are escaped as text, and MathJax is kept away from them (``$pageview`` is not a formula).

Examples
--------
>>> interactive_table(pd.DataFrame({"a": [1, 2]})) is None  # short: the plain table is fine
True
"""

from __future__ import annotations

from importlib.util import find_spec

import pandas as pd

from ..labels import NO_MATHJAX_CLASSES

__all__ = ["INTERACTIVE_ROWS", "PAGE_LENGTH", "interactive_table", "itables_installed"]

INTERACTIVE_ROWS = 100
"""A readable table with more rows than this sorts and searches in the browser (when itables is installed)."""
PAGE_LENGTH = 25
"""Rows a page of the interactive table shows at first (the reader can pick more)."""


def itables_installed() -> bool:
    """Whether the optional ``itables`` package can be imported."""
    return find_spec("itables") is not None


def interactive_table(table: pd.DataFrame, *, min_rows: int = INTERACTIVE_ROWS) -> str | None:
    """``table`` (a readable table) as a sortable, searchable HTML table, or None when it has at most
    ``min_rows`` rows or itables is not installed (or its API is not the one this was written for)."""
    if len(table) <= min_rows or not itables_installed():
        return None
    try:
        from itables import options as itables_options
        from itables import to_html_datatable
        from itables.javascript import generate_init_offline_itables_html

        library = generate_init_offline_itables_html(itables_options.dt_bundle)
        markup = to_html_datatable(
            table,
            connected=False,
            maxBytes=0,  # every row: the default would drop rows of a long result to keep the page light
            showIndex=False,
            pageLength=PAGE_LENGTH,
            lengthMenu=[10, PAGE_LENGTH, 100, 500],
            classes="display nowrap compact",
        )
    except (ImportError, AttributeError, TypeError, ValueError):  # another itables: the plain table will do
        return None
    return f'<div class="insightlab-interactive-table {NO_MATHJAX_CLASSES}">{library}{markup}</div>'
