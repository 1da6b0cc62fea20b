"""How the toolkit's figures are laid out and where a legend inside the plot goes, without extra draws.

Constrained layout and ``loc="best"`` each work by drawing: a builder's trend with a breakdown was drawn
five times before ``savefig`` drew it again, about a second of a Run. Here instead:

- `FixedLayout` sets the margins once, at the figure's first draw, from the sizes of its labels, title and
  legend (one tight bounding box per Axes, as ``tight_layout`` measures them), then keeps them: an ipympl
  figure panned or zoomed later does not jump.
- `quiet_corner` picks the corner of the plot a legend covers least of the data, from the data's
  positions in the Axes (numbers, no drawing).
- `settle_layout` applies that layout now and drops the engine, for a figure about to be saved as PNG:
  ``savefig`` draws a figure that has a layout engine twice (once without pixels, to lay it out), once
  without one.
- `measuring_canvas` gives a Figure made outside pyplot a canvas that can measure text, so sizes are read
  from the renderer instead of a throw-away draw.
"""

from __future__ import annotations

import numpy as np
from matplotlib import rc_context
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.layout_engine import TightLayoutEngine
from matplotlib.legend import Legend

__all__ = ["CORNERS", "LAYOUT_PAD", "FixedLayout", "measuring_canvas", "quiet_corner", "settle_layout"]

LAYOUT_PAD = 0.6
"""Space around the figure's content, in font sizes (``tight_layout``'s ``pad``)."""
CORNERS = ("upper right", "upper left", "lower right", "lower left")
"""The places a legend inside the plot may take, the first preferred when several are as empty."""
_SAMPLES = 400
"""Points per line at which the data is looked for under a legend (a segment can cross it between vertices)."""


class FixedLayout(TightLayoutEngine):
    """Margins computed once, at the first draw, from the labels' sizes; later draws keep them."""

    def __init__(self, *, pad: float = LAYOUT_PAD) -> None:
        # no rect: with the default (0, 0, 1, 1) tight layout measures every label a second time, to fit the
        # whole figure into a rect that is the figure itself, and gets the margins of the first pass again
        super().__init__(pad=pad, rect=None)
        self.done = False

    def execute(self, fig: Figure) -> None:
        if self.done:
            return
        super().execute(fig)
        self.done = True


def settle_layout(figure: Figure) -> Figure:
    """Lay ``figure`` out now, as `FixedLayout` would at its first draw, and keep those margins without an
    engine, so saving or showing it draws it once. A figure with another engine (or none) is left as it is.
    """
    engine = figure.get_layout_engine()
    if isinstance(engine, FixedLayout):
        engine.execute(figure)
        # None, not "none": "none" leaves a placeholder engine, and ``savefig`` draws a figure with any engine
        # twice; None means no engine unless the rc parameters ask for one, so they are held off here
        with rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}):
            figure.set_layout_engine(None)
    return figure


def measuring_canvas(figure: Figure) -> Figure:
    """``figure`` with an Agg canvas when it has none that can measure text (a bare ``Figure()``'s base canvas
    would make a new renderer for every text it measures)."""
    if not hasattr(figure.canvas, "get_renderer"):
        FigureCanvasAgg(figure)
    return figure


def _data_points(ax: Axes) -> np.ndarray:
    """Where the plotted lines and bars are, as Axes fractions (0..1 inside the plot), one row per point."""
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    width, height = (x1 - x0) or 1.0, (y1 - y0) or 1.0
    chunks: list[np.ndarray] = []
    for line in ax.get_lines():
        xy = np.asarray(line.get_xydata(), dtype="float64")
        xy = xy[np.isfinite(xy).all(axis=1)]
        if len(xy) == 0:
            continue
        if len(xy) > 1:  # the line between its vertices too
            along = np.linspace(0.0, len(xy) - 1, _SAMPLES)
            xy = np.column_stack(
                [np.interp(along, np.arange(len(xy)), xy[:, 0]), np.interp(along, np.arange(len(xy)), xy[:, 1])]
            )
        chunks.append(xy)
    for patch in ax.patches:
        box = patch.get_bbox()
        if box.width or box.height:
            xs = np.linspace(box.x0, box.x1, 5)
            chunks.append(np.column_stack([xs, np.full(5, box.y1)]))
    if not chunks:
        return np.empty((0, 2))
    points = np.concatenate(chunks)
    return np.column_stack([(points[:, 0] - x0) / width, (points[:, 1] - y0) / height])


def quiet_corner(ax: Axes, legend: Legend) -> str:
    """The corner (one of `CORNERS`) where ``legend`` covers the fewest plotted points; the legend is put there.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = measuring_canvas(Figure()).add_subplot()
    >>> _ = ax.plot([0, 1, 2], [0, 1, 10], label="rising"), ax.plot([0, 1, 2], [1, 2, 9], label="too")
    >>> quiet_corner(ax, ax.legend())
    'upper left'
    """
    size = legend.get_window_extent()
    box = ax.bbox
    pad = legend.borderaxespad * legend.prop.get_size_in_points() * ax.get_figure(root=True).dpi / 72
    share_w = min(1.0, (size.width + pad) / max(box.width, 1.0))
    share_h = min(1.0, (size.height + pad) / max(box.height, 1.0))
    points = _data_points(ax)
    best, fewest = CORNERS[0], None
    for corner in CORNERS:
        left = corner.endswith("left")
        upper = corner.startswith("upper")
        in_x = points[:, 0] <= share_w if left else points[:, 0] >= 1.0 - share_w
        in_y = points[:, 1] >= 1.0 - share_h if upper else points[:, 1] <= share_h
        covered = int(np.count_nonzero(in_x & in_y))
        if fewest is None or covered < fewest:
            best, fewest = corner, covered
    legend.set_loc(best)
    return best
