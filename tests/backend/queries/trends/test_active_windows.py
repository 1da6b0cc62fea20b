"""Distinct actors over sliding windows of days (:func:`local_backend.queries.trends.windows.active_counts`),
on hand-written activity with hand-counted windows; no database."""

from __future__ import annotations

import numpy as np
import pytest

from local_backend.queries.trends.windows import active_counts

# (day, actor) pairs over 6 days:   day 0: a b   day 1: a   day 3: c   day 4: a c   day 5: (nobody)
ACTIVITY = [(0, 1), (0, 2), (1, 1), (3, 3), (4, 1), (4, 3)]


@pytest.mark.parametrize(
    ("window", "expected"),
    [
        (1, [2, 1, 0, 1, 2, 0]),  # each day's own actors
        # 3-day windows: {a,b}, {a,b}, {a,b}, {a,c}, {a,c}, {a,c}
        (3, [2, 2, 2, 2, 2, 2]),
        # 4-day windows: {a,b}, {a,b}, {a,b}, {a,b,c}, {a,c}, {a,c}
        (4, [2, 2, 2, 3, 2, 2]),
        (7, [2, 2, 2, 3, 3, 3]),  # everyone seen so far
    ],
)
def test_each_window_counts_its_distinct_actors(window, expected):
    days, actors = (np.array(column) for column in zip(*ACTIVITY, strict=True))
    assert active_counts(days, actors, 6, window).tolist() == expected


def test_repeated_pairs_and_any_order_count_once():
    days, actors = (np.array(column) for column in zip(*reversed(ACTIVITY + ACTIVITY), strict=True))
    assert active_counts(days, actors, 6, 3).tolist() == [2, 2, 2, 2, 2, 2]


def test_no_activity_is_zero_everywhere():
    empty = np.zeros(0, dtype=np.int64)
    assert active_counts(empty, empty, 4, 7).tolist() == [0, 0, 0, 0]
