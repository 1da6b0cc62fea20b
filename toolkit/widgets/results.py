"""`ResultArea`: where a builder shows its last result, and how it says the result no longer matches.

The area holds the plot (a PNG), the readable table (`toolkit.readable_table`), download links for the
tidy frame as CSV and the plot as PNG, and a note. In a kernel each result replaces the previous one
with ``clear_output(wait=True)`` issued inside the output context: the clear then travels with the new
output, so runs sent back to back (Run All) leave one result, even while the browser lags behind the
kernel. Changing any control after a run greys the result out (`ResultArea.mark_stale`) until the next run.

Under ipympl (``%matplotlib widget``) the plot is the figure's interactive canvas instead of a PNG: its
toolbar pans and zooms, and `toolkit.plots.hover` labels the point under the mouse with its date and value.
Under any other backend (inline, Agg) the PNG is shown as before.

The table sits in a box of its own that scrolls both ways (`scrolling_table`): inside an Output widget
JupyterLab neither widens the cell nor shows a scroll bar, so a wide funnel table was cut at the right edge
and a long one could not be read to its end. Every row is shown (up to `TABLE_ROWS`), a tall table scrolls.
A result of more than `toolkit.widgets.big_tables.INTERACTIVE_ROWS` rows is an interactive table instead
(sorted and searched in the browser) when the optional itables package is installed.
"""

from __future__ import annotations

import base64
import io
import warnings
from typing import Any

import ipywidgets as widgets
import pandas as pd
from matplotlib.figure import Figure

from ..frames.readable_tables import readable_table, table_html
from ..labels import NO_MATHJAX_CLASSES
from .big_tables import interactive_table

__all__ = [
    "PNG_COMPRESS_LEVEL",
    "SCREEN_DPI",
    "STALE_CLASS",
    "STALE_NOTE",
    "TABLE_HEIGHT",
    "TABLE_ROWS",
    "ResultArea",
    "data_link",
    "in_kernel",
    "interactive_canvas",
    "ipympl_active",
    "scrolling_table",
    "watch_values",
]

SCREEN_DPI = 100
PNG_COMPRESS_LEVEL = 1
"""zlib's fastest level: a chart's flat colours compress about as well as at the default 6 (71 kB against
70 kB for a trend with five lines) in half the time."""
TABLE_HEIGHT = "420px"
"""A table taller than this scrolls inside its box (the plot above stays in view)."""
TABLE_ROWS = 5000
"""Rows shown at most (hourly buckets over half a year); the CSV download holds them all."""
STALE_CLASS = "insightlab-stale"
STALE_NOTE = "The controls changed since this result was computed: Run to update it."
# the grey look of a stale result; a <style> element applies to the whole page, so one per builder is enough
_STYLE = f"<style>.{STALE_CLASS} {{opacity: 0.4; filter: grayscale(100%);}}</style>"


def in_kernel() -> bool:
    """Whether code runs in a Jupyter kernel (with a front end to show outputs to)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - ipywidgets depends on IPython
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def ipympl_active() -> bool:
    """Whether matplotlib's backend is ipympl's (``%matplotlib widget`` or ``%matplotlib ipympl``)."""
    import matplotlib

    name = (matplotlib.get_backend(auto_select=False) or "").lower()
    return name in ("widget", "ipympl") or "ipympl" in name


def interactive_canvas(figure: Figure) -> widgets.DOMWidget:
    """``figure`` on an ipympl canvas (a widget with a pan and zoom toolbar) that labels values on hover.

    The figure stays out of pyplot (no ``plt.figure`` number), so it is shown only where the builder puts it.
    """
    from ipympl.backend_nbagg import Canvas, FigureManager

    from ..plots.hover import add_hover

    canvas = Canvas(figure)
    with warnings.catch_warnings():  # ipympl's toolbar passes traitlets an argument it does not know
        warnings.filterwarnings("ignore", r"Passing unrecognized arguments to super\(Toolbar\)", DeprecationWarning)
        FigureManager(canvas, 0)  # gives the canvas its toolbar and routes the browser's mouse events to it
    canvas.header_visible = False  # the title is on the plot already
    canvas.toolbar_position = "right"
    add_hover(figure)
    return canvas


def data_link(data: bytes, *, mime: str, filename: str, label: str) -> str:
    """An HTML link that downloads ``data`` as ``filename`` (a ``data:`` URI: no server involved).

    Examples
    --------
    >>> data_link(b"a,b", mime="text/csv", filename="trend.csv", label="CSV")
    '<a download="trend.csv" href="data:text/csv;base64,YSxi" target="_blank">CSV</a>'
    """
    encoded = base64.b64encode(data).decode("ascii")
    return f'<a download="{filename}" href="data:{mime};base64,{encoded}" target="_blank">{label}</a>'


def scrolling_table(markup: str) -> str:
    """``markup`` in a box that scrolls sideways when wider than the output and down past `TABLE_HEIGHT`
    (cells keep to one line: a wrapped ``1 h 10 min`` read as two values).

    Examples
    --------
    >>> print(scrolling_table("<table></table>"))
    <div class="insightlab-table" style="max-height: 420px; ...; white-space: nowrap"><table></table></div>
    """
    style = f"max-height: {TABLE_HEIGHT}; max-width: 100%; overflow: auto; white-space: nowrap"
    return f'<div class="insightlab-table" style="{style}">{markup}</div>'


def figure_png(figure: Figure) -> bytes:
    """The figure as PNG bytes at screen resolution."""
    picture = io.BytesIO()
    figure.savefig(picture, format="png", dpi=SCREEN_DPI, pil_kwargs={"compress_level": PNG_COMPRESS_LEVEL})
    return picture.getvalue()


def _display_data(data: dict[str, Any]) -> dict[str, Any]:
    return {"output_type": "display_data", "data": data, "metadata": {}}


def watch_values(widget: widgets.Widget, callback: Any, _seen: set[int] | None = None) -> None:
    """Call ``callback`` when the ``value`` of ``widget`` or of any widget inside it changes, including
    widgets added to its boxes later (rows of series, steps or filters)."""
    seen = _seen if _seen is not None else set()
    if id(widget) in seen:
        return
    seen.add(id(widget))
    if widget.has_trait("value") and not isinstance(widget, (widgets.HTML, widgets.Output)):
        widget.observe(callback, names="value")
    if widget.has_trait("children"):

        def children_changed(change: dict[str, Any]) -> None:
            for child in change["new"]:
                watch_values(child, callback, seen)
            callback(change)  # a row added or removed changes the request too

        widget.observe(children_changed, names="children")
        for child in widget.children:
            watch_values(child, callback, seen)


class ResultArea:
    """The output, downloads and stale marking of a builder's last result.

    Attributes
    ----------
    output : ipywidgets.Output
        Shows the plot and the readable table (in a kernel).
    downloads : ipywidgets.HTML
        Links to the tidy frame as CSV and the plot as PNG.
    stale : bool
        True when the controls changed after the result was computed.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        # the Output widget's own default (overflow: visible) hides what is wider than the cell
        self.output = widgets.Output(layout=widgets.Layout(overflow="auto", max_width="100%"))
        self.downloads = widgets.HTML()
        self.style = widgets.HTML(_STYLE)
        self.stale = False
        self.canvas: widgets.DOMWidget | None = None
        """The last plot's ipympl canvas (under ``%matplotlib widget``), closed when the next result comes."""
        self.box = widgets.VBox([self.style, self.output, self.downloads])

    def show(self, frame: pd.DataFrame, figure: Figure | None, *, captured: bool = True) -> None:
        """Replace what is shown by ``frame`` (as a readable table) and ``figure``; no longer stale.

        With ``captured`` (a run from a cell, or from a click the kernel is still handling) the result is
        displayed inside the output area; without it (a run that ended after the click's message was
        handled, see `toolkit.widgets.runs`) it is set as the output area's outputs: the page keeps only the
        outputs of messages it is still waiting for, so displayed ones would be lost.
        """
        picture = figure_png(figure) if figure is not None else None
        csv = frame.to_csv(index=False).encode()
        links = [data_link(csv, mime="text/csv", filename=f"{self.name}.csv", label="CSV")]
        if picture is not None:
            links.append(data_link(picture, mime="image/png", filename=f"{self.name}.png", label="PNG"))
        self.downloads.value = f'<span class="{NO_MATHJAX_CLASSES}">Download: {" · ".join(links)}</span>'
        self.set_stale(False)
        if not in_kernel():  # outside a kernel there is no front end to show it
            return
        if self.canvas is not None:
            self.canvas.close()  # its widget would stay in the kernel after the output is cleared
            self.canvas = None
        if figure is not None and ipympl_active():
            self.canvas = interactive_canvas(figure)
        readable = readable_table(frame)
        # a long result sorts and searches in the browser when itables is installed (big_tables)
        table = interactive_table(readable) or scrolling_table(table_html(readable, max_rows=TABLE_ROWS))
        if not captured:
            self.output.outputs = tuple(_display_data(item) for item in self._items(picture, table))
            return
        from IPython.display import HTML, Image, display

        with self.output:
            self.output.clear_output(wait=True)
            if self.canvas is not None:
                display(self.canvas)
            elif picture is not None:
                # a PNG made here, not the Figure: the inline backend's Figure formatter is only installed
                # once pyplot has been used, and the builder's figures stay out of pyplot
                display(Image(data=picture, format="png"))
            display(HTML(table))

    def _items(self, picture: bytes | None, table: str) -> list[dict[str, Any]]:
        """The mime bundles of the plot (canvas widget or PNG) and the table."""
        items: list[dict[str, Any]] = []
        if self.canvas is not None:
            view = {"model_id": self.canvas.model_id, "version_major": 2, "version_minor": 0}
            items.append({"application/vnd.jupyter.widget-view+json": view, "text/plain": repr(self.canvas)})
        elif picture is not None:
            items.append({"image/png": base64.b64encode(picture).decode("ascii"), "text/plain": "<plot>"})
        items.append({"text/html": table, "text/plain": "<table>"})
        return items

    def set_stale(self, stale: bool) -> None:
        """Grey the result out (or back) to say whether it still matches the controls."""
        self.stale = stale
        for widget in (self.output, self.downloads):
            if stale:
                widget.add_class(STALE_CLASS)
            else:
                widget.remove_class(STALE_CLASS)
