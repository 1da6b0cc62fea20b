"""Funnels: how many reached each step in order within the window, how long it took, and who dropped off.

Entry points: :func:`compute_funnel` (the result), :func:`compute_funnel_people` (who is behind a step's
people URL), :func:`compute_correlation` and :func:`compute_correlation_people` (what goes with converting),
:func:`funnel_payload` (a saved insight's filter dict). People URLs are made by the caller's
:data:`PeopleLink` from the query parameters computed here.

Reading order: :mod:`.filter` (the typed filter), :mod:`.scan` (checks, one ordered scan of the step events,
via :mod:`.inputs`), :mod:`.breakdown` (each row's breakdown bucket), :mod:`.engine` (every attempt, pure
numpy), :mod:`.outcomes` (each person's furthest step and times), :mod:`.results` (the API's shapes),
:mod:`.people` (the persons behind each number), :mod:`.correlation`.
"""

from __future__ import annotations

from .correlation import compute_correlation, compute_correlation_people
from .filter import FunnelFilter
from .people import (
    FunnelActors,
    check_funnel_step,
    compute_funnel_people,
    decode_step_breakdown,
    refuse_trends_people,
)
from .results import PeopleLink, compute_funnel, funnel_payload

__all__ = [
    "FunnelActors",
    "FunnelFilter",
    "PeopleLink",
    "check_funnel_step",
    "refuse_trends_people",
    "compute_correlation",
    "compute_correlation_people",
    "compute_funnel",
    "compute_funnel_people",
    "decode_step_breakdown",
    "funnel_payload",
]
