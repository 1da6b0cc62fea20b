"""Ticks asked for again over the same view limits come from memory, and are the ones matplotlib gives."""

from __future__ import annotations

from datetime import datetime
from unittest import mock

import matplotlib.dates as mdates
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from toolkit.plots.style import DATE_TICK_FORMATS, DATE_TICK_ZERO_FORMATS, date_formatter, integer_ticks
from toolkit.plots.ticks import RememberedDateFormatter, RememberedDateLocator, RememberedMaxNLocator


def _date_axes() -> Figure:
    ax = Figure().add_subplot()
    ax.plot([datetime(2026, 1, day) for day in range(1, 32)], range(31))
    ax.set_xlim(datetime(2026, 1, 1), datetime(2026, 1, 31))
    return ax


def test_date_ticks_are_worked_out_once_per_view_limits_and_again_after_a_pan():
    ax = _date_axes()
    locator = RememberedDateLocator(minticks=2, maxticks=7)
    ax.xaxis.set_major_locator(locator)
    with mock.patch.object(mdates.AutoDateLocator, "get_locator", wraps=locator.get_locator) as rules:
        first = ax.get_xticks()
        for _ in range(5):
            assert (ax.get_xticks() == first).all()
        assert rules.call_count == 1
        # 30 days in at most 7 ticks: a week apart, which AutoDateLocator puts on the 1st, 8th, 15th and 22nd
        assert [mdates.num2date(tick).day for tick in first] == [1, 8, 15, 22]
        ax.set_xlim(datetime(2026, 1, 1), datetime(2026, 1, 7))  # a zoom under ipympl
        assert [mdates.num2date(tick).day for tick in ax.get_xticks()] == [1, 2, 3, 4, 5, 6, 7]
        assert rules.call_count == 2


def test_remembered_ticks_and_labels_are_matplotlibs_own():
    ours, theirs = _date_axes(), _date_axes()
    locator = RememberedDateLocator(minticks=2, maxticks=10)
    ours.xaxis.set_major_locator(locator)
    ours.xaxis.set_major_formatter(date_formatter(locator))
    plain = mdates.AutoDateLocator(minticks=2, maxticks=10)
    theirs.xaxis.set_major_locator(plain)
    theirs.xaxis.set_major_formatter(
        mdates.ConciseDateFormatter(
            plain, formats=DATE_TICK_FORMATS, zero_formats=DATE_TICK_ZERO_FORMATS, show_offset=False
        )
    )
    assert isinstance(ours.xaxis.get_major_formatter(), RememberedDateFormatter)
    assert (ours.get_xticks() == theirs.get_xticks()).all()
    labels = [label.get_text() for label in ours.get_xticklabels()]
    assert labels == [label.get_text() for label in theirs.get_xticklabels()]
    assert labels[:3] == ["Jan 01", "Jan 05", "Jan 09"]  # 30 days in at most 10 ticks: every 4th day
    assert [label.get_text() for label in ours.get_xticklabels()] == labels  # from memory, the same


def test_whole_number_ticks_follow_the_limits():
    ax = Figure().add_subplot()
    ax.plot([0, 1], [0, 10])
    integer_ticks(ax)
    locator = ax.yaxis.get_major_locator()
    assert isinstance(locator, RememberedMaxNLocator)
    ax.set_ylim(0, 10)
    assert ax.get_yticks().tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    ax.set_ylim(0, 100)
    assert ax.get_yticks().tolist() == [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
    plain = MaxNLocator(integer=True)
    plain.set_axis(ax.yaxis)
    assert locator().tolist() == plain().tolist()
