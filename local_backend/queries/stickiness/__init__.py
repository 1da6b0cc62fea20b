"""Stickiness: for each series, how many actors did it in exactly 1, 2, ... N intervals of the range.

The entry point is :func:`compute_stickiness` (typed filter in, series out); :func:`stickiness_payload` does the
same for a saved insight's filter dict. Modules: :mod:`.filter` (the typed filter), :mod:`.compute` (the reading
order, the store's reads), :mod:`.engine` (the histogram, pure), :mod:`.series` (shaping).
"""

from __future__ import annotations

from .compute import ActorIntervals, StickinessResult, compute_stickiness, stickiness_actors, stickiness_payload
from .filter import StickinessFilter
from .people import StickinessPoint, stickiness_people

__all__ = [
    "ActorIntervals",
    "StickinessFilter",
    "StickinessPoint",
    "StickinessResult",
    "compute_stickiness",
    "stickiness_actors",
    "stickiness_payload",
    "stickiness_people",
]
