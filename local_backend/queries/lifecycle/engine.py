"""Lifecycle statuses, pure numpy: each actor's active intervals into new, returning, resurrecting, dormant.

Intervals are indexes: 0 is the interval before the range (read so that the range's first interval knows who
was active just before), 1..N the range's. Per actor, over its distinct active intervals in order:

* **new**: its first active interval, when that is the interval it was created in;
* **returning**: the interval right before was active too;
* **resurrecting**: any other active interval (a first activity of an actor created earlier included);
* **dormant**: the interval right after each run of active intervals, once.

Each actor has at most one status per interval, so the counts are distinct actors.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["STATUSES", "StatusRows", "lifecycle_rows", "lifecycle_counts"]

STATUSES = ("new", "returning", "resurrecting", "dormant")
NEW, RETURNING, RESURRECTING, DORMANT = range(4)


@dataclass(frozen=True)
class StatusRows:
    """One row per (actor, interval) that has a status: ``periods``, ``actors`` (codes), ``statuses`` (indexes
    into :data:`STATUSES`), int64 arrays of one length."""

    periods: np.ndarray
    actors: np.ndarray
    statuses: np.ndarray


def lifecycle_rows(periods: np.ndarray, actors: np.ndarray, created: np.ndarray) -> StatusRows:
    """The statuses of each actor's intervals (module docstring).

    ``periods[k]`` is an interval in which actor code ``actors[k]`` was active (pairs distinct); ``created[c]`` is
    the interval actor ``c`` was created in (any number that is not an active interval when outside the window).

    >>> rows = lifecycle_rows(np.array([1, 2, 4]), np.array([0, 0, 0]), np.array([1]))
    >>> [(int(p), STATUSES[s]) for p, s in zip(rows.periods, rows.statuses)]
    [(1, 'new'), (2, 'returning'), (4, 'resurrecting'), (3, 'dormant'), (5, 'dormant')]
    """
    periods = np.asarray(periods, dtype=np.int64)
    actors = np.asarray(actors, dtype=np.int64)
    if periods.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return StatusRows(empty, empty.copy(), empty.copy())
    order = np.lexsort((periods, actors))
    periods, actors = periods[order], actors[order]
    starts = np.ones(periods.size, dtype=bool)
    starts[1:] = actors[1:] != actors[:-1]
    ends = np.ones(periods.size, dtype=bool)
    ends[:-1] = starts[1:]
    before = np.full(periods.size, np.iinfo(np.int64).min, dtype=np.int64)
    before[1:] = periods[:-1]
    after = np.full(periods.size, np.iinfo(np.int64).min, dtype=np.int64)
    after[:-1] = periods[1:]
    new = starts & (periods == np.asarray(created, dtype=np.int64)[actors])
    returning = ~starts & (before == periods - 1)
    statuses = np.where(new, NEW, np.where(returning, RETURNING, RESURRECTING)).astype(np.int64)
    streak_ends = ends | (after != periods + 1)
    return StatusRows(
        periods=np.concatenate([periods, periods[streak_ends] + 1]),
        actors=np.concatenate([actors, actors[streak_ends]]),
        statuses=np.concatenate([statuses, np.full(int(streak_ends.sum()), DORMANT, dtype=np.int64)]),
    )


def lifecycle_counts(rows: StatusRows, total: int) -> dict[str, list[int]]:
    """For each status, the actors in intervals 1..``total`` (dormant as negative counts).

    >>> rows = lifecycle_rows(np.array([0, 1, 1]), np.array([0, 0, 1]), np.array([-1, 1]))
    >>> lifecycle_counts(rows, 2)
    {'new': [1, 0], 'returning': [1, 0], 'resurrecting': [0, 0], 'dormant': [0, -2]}
    """
    counts: dict[str, list[int]] = {}
    for index, status in enumerate(STATUSES):
        chosen = rows.periods[(rows.statuses == index) & (rows.periods >= 1) & (rows.periods <= total)]
        found = np.bincount(chosen, minlength=total + 1)[1 : total + 1]
        sign = -1 if index == DORMANT else 1
        counts[status] = [sign * int(count) for count in found]
    return counts
