"""Distinct actors over sliding windows of days, in numpy: the weekly/monthly active users of a daily series.

Pure arithmetic, no SQL: :func:`active_counts` takes who was active on which day (as integer codes) and
answers, for every day, how many distinct actors were active in the ``window`` days ending with it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["active_counts"]


def active_counts(days: np.ndarray, actors: np.ndarray, spans: int, window: int) -> np.ndarray:
    """For each day ``d`` in ``range(spans)``, the distinct ``actors`` active on a day of ``[d - window + 1, d]``.

    ``days[k]`` is a day (0 to ``spans - 1``) on which ``actors[k]`` was active; pairs may repeat. Each active
    day of an actor counts for the windows ending from that day up to the actor's next active day or
    ``window`` days later, whichever comes first, so every window counts each actor once:

    >>> active_counts(np.array([0, 2, 1]), np.array([7, 7, 8]), spans=5, window=2).tolist()
    [1, 2, 2, 1, 0]
    """
    days = np.asarray(days, dtype=np.int64)
    actors = np.asarray(actors, dtype=np.int64)
    if days.size == 0:
        return np.zeros(spans, dtype=np.int64)
    order = np.lexsort((days, actors))
    days, actors = days[order], actors[order]
    never = spans + window
    following = np.full(days.size, never, dtype=np.int64)
    same_actor = actors[1:] == actors[:-1]
    following[:-1] = np.where(same_actor, days[1:], never)
    ends = np.minimum(days + window, following)
    changes = np.bincount(days, minlength=never + 1) - np.bincount(ends, minlength=never + 1)
    return np.cumsum(changes)[:spans]
