"""Builders under ipympl (``%matplotlib widget``): the plot is the interactive canvas, with values on hover;
under any other backend it stays a PNG."""

from __future__ import annotations

import matplotlib
import pytest
from matplotlib.backend_bases import MouseEvent

from toolkit.widgets import TrendBuilder
from toolkit.widgets.results import ipympl_active

from .fake_project import TREND

ipympl = pytest.importorskip("ipympl.backend_nbagg")
matplotlib.use("Agg")  # importing ipympl makes it pyplot's backend: the other tests draw with Agg


def answer():
    item = {"action": {"id": "signup", "name": "signup", "order": 0}, "label": "signup"}
    return (200, {"timezone": "UTC", "result": [{**item, "days": ["2026-01-01", "2026-01-02"], "data": [3, 7]}]})


@pytest.fixture
def shown(monkeypatch):
    calls = []
    monkeypatch.setattr("toolkit.widgets.results.in_kernel", lambda: True)
    monkeypatch.setattr("IPython.display.display", lambda item: calls.append(item))
    return calls


@pytest.mark.parametrize(
    "backend, expected",
    [
        ("module://ipympl.backend_nbagg", True),
        ("widget", True),
        ("ipympl", True),
        ("module://matplotlib_inline.backend_inline", False),
        ("agg", False),
        (None, False),  # no backend chosen yet
    ],
)
def test_ipympl_is_recognised_by_its_backend_names(monkeypatch, backend, expected):
    monkeypatch.setattr(matplotlib, "get_backend", lambda auto_select=True: backend)
    assert ipympl_active() is expected


def test_under_ipympl_the_plot_is_the_interactive_canvas_and_hover_shows_values(client, fake, shown, monkeypatch):
    monkeypatch.setattr("toolkit.widgets.results.ipympl_active", lambda: True)
    fake.routes[("POST", TREND)] = answer()
    builder = TrendBuilder(client, events=["signup"])
    builder.run()
    canvas, table = shown
    assert isinstance(canvas, ipympl.Canvas) and canvas.figure is builder.figure
    assert canvas.toolbar is not None  # pan and zoom
    assert "<td>7</td>" in table.data
    ax = builder.figure.axes[0]
    canvas.draw()
    x, y = ax.transData.transform([ax.get_lines()[0].get_xydata()[1]])[0]
    canvas.callbacks.process("motion_notify_event", MouseEvent("motion_notify_event", canvas, x, y))
    labels = [text for text in ax.texts if text.get_visible() and "2026-01-02" in text.get_text()]
    assert [text.get_text() for text in labels] == ["signup\n2026-01-02: 7"]
    builder.run()  # the next result closes the previous canvas instead of leaving its widget behind
    assert canvas.comm is None and isinstance(shown[2], ipympl.Canvas)


def test_without_ipympl_the_plot_stays_a_png(client, fake, shown, monkeypatch):
    monkeypatch.setattr("toolkit.widgets.results.ipympl_active", lambda: False)
    fake.routes[("POST", TREND)] = answer()
    TrendBuilder(client, events=["signup"]).run()
    assert type(shown[0]).__name__ == "Image" and shown[0].data.startswith(b"\x89PNG")
