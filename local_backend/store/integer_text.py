"""Integer columns read as ``group_concat`` texts: one string per statement instead of a Python row per value.

Reading a million integers as rows costs a Python tuple each; as one comma-separated text from SQLite's
``group_concat``, parsed by numpy, it costs a fraction of that (see :mod:`.engine.sqlite.event_store`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["integers", "distinct_ids"]


def integers(text: str) -> np.ndarray | None:
    """The integers of a ``group_concat`` text, or None when one is not an integer (a person id stored as text
    or a real in a table written by hand), which SQL must then handle."""
    try:
        numbers = np.fromstring(text, dtype=np.int64, sep=",")
    except ValueError:
        return None
    return numbers if numbers.size == text.count(",") + 1 else None


def distinct_ids(text: str | None) -> np.ndarray | None:
    """The distinct ids of a ``group_concat`` of person ids (empty for NULL: no rows), or None (see
    :func:`integers`)."""
    if not text:
        return np.zeros(0, dtype=np.int64)
    ids = integers(text)
    if ids is None:
        return None
    ids.sort()  # and drop repeats: several times faster than np.unique's hash table here
    return ids[np.concatenate(([True], ids[1:] != ids[:-1]))]
