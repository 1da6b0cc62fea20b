"""Retention counted in numpy (:mod:`local_backend.queries.retention.pairs`), on hand-written rows.

Four periods; rows in person and time order, bit 1 the target event, bit 2 the returning one::

    person 1  period 0 target (Chrome), period 0 target (Safari), period 1 back, period 3 target+back (Safari)
    person 2  period 1 target+back (Safari), period 2 back, period 2 back
    person 3  period 2 target (no browser: the null bucket)
"""

from __future__ import annotations

import numpy as np

from local_backend.queries.breakdowns import NULL, OTHER
from local_backend.queries.retention.engine import FIRST_TIME, RECURRING
from local_backend.queries.retention.pairs import pairs_triangle, retention_pairs, split_pairs_by_value
from local_backend.store.engine.interface import FlaggedRows

ROWS = FlaggedRows(
    actors=np.array([1, 1, 1, 1, 2, 2, 2, 3]),
    timestamps=np.arange(8),
    flags=np.array([1, 1, 2, 3, 3, 2, 2, 1]),
    values=["Chrome", "Safari", None, "Safari", "Safari", None, "", ""],
)
PERIODS = np.array([0, 0, 1, 3, 1, 2, 2, 2])


def test_recurring_cohorts_and_who_came_back():
    pairs = retention_pairs(ROWS, PERIODS, retention_type=RECURRING)
    counts, members = pairs_triangle(pairs, None, periods=4)
    # cohort 0: person 1, back in 1 and 3; cohort 1: person 2, back in 2; cohort 2: person 3; cohort 3: person 1
    assert counts == [[1, 1, 0, 1], [1, 1, 0], [1, 0], [1]]
    assert members == [[[1], [1], [], [1]], [[2], [2], []], [[3], []], [[1]]]


def test_first_time_keeps_only_the_first_target_period_ever():
    pairs = retention_pairs(ROWS, PERIODS, retention_type=FIRST_TIME, first={1: 0, 2: 0, 3: 2})
    # person 2's first target event ever was before their first in the scan: no cohort
    assert pairs_triangle(pairs, None, periods=4)[0] == [[1, 1, 0, 1], [0, 0, 0], [1, 0], [0]]


def test_each_cohort_is_filed_under_its_first_target_events_value():
    pairs = retention_pairs(ROWS, PERIODS, retention_type=RECURRING)
    assert pairs.cohort_values == ["Chrome", "Safari", "Safari", NULL]
    buckets = split_pairs_by_value(pairs, periods=4, limit=2)
    # Safari holds two cohort pairs; Chrome and the null bucket one each, ties by value ("$$..." < "Chrome")
    assert [bucket.value for bucket in buckets] == ["Safari", NULL, OTHER]
    safari, _, other = buckets
    assert safari.counts == [[0, 0, 0, 0], [1, 1, 0], [0, 0], [1]]
    assert other.counts == [[1, 1, 0, 1], [0, 0, 0], [0, 0], [0]]
