"""Stickiness arithmetic, pure: actors' numbers of active intervals into PostHog's zero-filled histogram.

No SQL here: the event store answers, for each actor, in how many intervals of the range it counted
(:meth:`~local_backend.store.engine.interface.EventStore.active_intervals`); these functions bucket those numbers
and pick the actors of one bucket.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = ["stickiness_counts", "interval_labels", "actors_in_bucket"]


def stickiness_counts(intervals: Sequence[int] | np.ndarray, total: int, *, cumulative: bool) -> list[int]:
    """``data[k - 1]``: the actors active in exactly ``k`` of the ``total`` intervals (``k`` or more when
    ``cumulative``), for ``k`` from 1 to ``total``.

    >>> stickiness_counts([1, 3, 3, 2], 4, cumulative=False)
    [1, 1, 2, 0]
    >>> stickiness_counts([1, 3, 3, 2], 4, cumulative=True)
    [4, 3, 2, 0]
    """
    if total <= 0:
        return []
    found = np.clip(np.asarray(intervals, dtype=np.int64), 0, total)
    counts = np.bincount(found, minlength=total + 1)[1:]
    if cumulative:
        counts = np.cumsum(counts[::-1])[::-1]
    return [int(count) for count in counts]


def interval_labels(total: int, interval: str, *, cumulative: bool) -> list[str]:
    """``1 day``, ``2 days``, ... (``1 day or more``, ... when cumulative).

    >>> interval_labels(2, "week", cumulative=True)
    ['1 week or more', '2 weeks or more']
    """
    suffix = " or more" if cumulative else ""
    return [f"{k} {interval}{'' if k == 1 else 's'}{suffix}" for k in range(1, total + 1)]


def actors_in_bucket(pairs: Iterable[tuple[Any, int]], bucket: int, *, cumulative: bool) -> list[Any]:
    """The actors of ``(actor, intervals)`` pairs counted in ``bucket`` (exactly that many intervals, or at least
    that many when ``cumulative``), in the order given.

    >>> actors_in_bucket([("a", 1), ("b", 3), ("c", 2)], 2, cumulative=True)
    ['b', 'c']
    """
    if cumulative:
        return [actor for actor, intervals in pairs if intervals >= bucket]
    return [actor for actor, intervals in pairs if intervals == bucket]
