"""A figure laid out for saving is drawn once by ``savefig``, with the margins its labels need."""

from __future__ import annotations

import io

from matplotlib.figure import Figure

from toolkit.plots.layout import FixedLayout, measuring_canvas, settle_layout


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
