"""A figure laid out for saving is drawn once by ``savefig``, with the margins its labels need."""

from __future__ import annotations

import io
from unittest import mock

import pytest
from matplotlib.figure import Figure

from toolkit.plots.layout import LAYOUT_PAD, FixedLayout, measuring_canvas, settle_layout


def _figure() -> Figure:
    figure = measuring_canvas(Figure(figsize=(6, 3), layout=FixedLayout()))
    ax = figure.add_subplot()
    ax.plot([0, 1, 2], [10_000, 250_000, 40_000])
    ax.set_ylabel("a long label for the people counted")
    return figure


def _draws_while_saving(figure: Figure) -> int:
    draws = []
    figure.canvas.mpl_connect("draw_event", lambda event: draws.append(event))
    figure.savefig(io.BytesIO(), format="png", dpi=72)
    return len(draws)


def test_a_settled_figure_is_drawn_once_when_saved_and_keeps_its_margins():
    figure = settle_layout(_figure())
    margins = (figure.subplotpars.left, figure.subplotpars.bottom)
    assert figure.get_layout_engine() is None
    assert _draws_while_saving(figure) == 1
    assert (figure.subplotpars.left, figure.subplotpars.bottom) == margins
    # the y label's width moved the plot right of matplotlib's default margin
    assert margins[0] > 0.125


def test_a_figure_left_with_its_engine_is_drawn_twice_when_saved():
    assert _draws_while_saving(_figure()) == 2


def _two_plots(layout: object) -> Figure:
    figure = measuring_canvas(Figure(figsize=(6, 4), layout=layout))
    top, bottom = figure.subplots(2, 1)
    top.plot([0, 1, 2], [10_000, 250_000, 40_000])
    top.set_title("a title over the first plot")
    bottom.plot([0, 1], [0.5, 0.25])
    bottom.set_ylabel("a long label for the share")
    return figure


def test_the_margins_are_tight_layouts_own_from_one_measurement_of_each_plot():
    from matplotlib.axes import Axes
    from matplotlib.layout_engine import TightLayoutEngine

    figure = _two_plots(FixedLayout())
    with mock.patch.object(Axes, "get_tightbbox", autospec=True, side_effect=Axes.get_tightbbox) as measured:
        settle_layout(figure)
    assert measured.call_count == 2  # one per plot: the default rect would measure both twice
    theirs = _two_plots(TightLayoutEngine(pad=LAYOUT_PAD))
    theirs.get_layout_engine().execute(theirs)
    for name in ("left", "right", "bottom", "top", "hspace"):
        assert getattr(figure.subplotpars, name) == pytest.approx(getattr(theirs.subplotpars, name), abs=1e-9)
