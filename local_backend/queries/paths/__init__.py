"""Paths: which pages, screens or events follow which, per session, as weighted edges between numbered steps.

Entry points: :func:`compute_paths` (typed filter in, edges out, heaviest first) and :func:`paths_payload`
(a saved insight's filter dict). Reading order: :mod:`.filter` (the typed filter), :mod:`.compute` (the
range and one ordered pass over its events, person by person), :mod:`.engine` (sessions cut and edges
counted, no SQL), :mod:`.people` (who went through a node or an edge: :func:`path_people`).
"""

from __future__ import annotations

from .compute import compute_paths, paths_payload
from .engine import PathEdge
from .filter import PathFilter
from .people import path_people

__all__ = ["PathEdge", "PathFilter", "compute_paths", "path_people", "paths_payload"]
