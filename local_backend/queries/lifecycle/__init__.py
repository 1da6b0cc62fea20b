"""Lifecycle: per interval, the actors who were new, returning, resurrecting or (negative) dormant.

The entry point is :func:`compute_lifecycle` (typed filter in, four series out); :func:`lifecycle_payload` does
the same for a saved insight's filter dict. Modules: :mod:`.filter` (the typed filter), :mod:`.compute` (the
reading order, the store's reads), :mod:`.engine` (the statuses, pure numpy).
"""

from __future__ import annotations

from .compute import LifecycleActors, LifecycleResult, compute_lifecycle, lifecycle_actors, lifecycle_payload
from .filter import LifecycleFilter
from .people import lifecycle_people

__all__ = [
    "LifecycleActors",
    "LifecycleFilter",
    "LifecycleResult",
    "compute_lifecycle",
    "lifecycle_actors",
    "lifecycle_payload",
    "lifecycle_people",
]
