"""Paths restricted by a funnel (``funnel_paths``): whose paths, and which stretch of each, as PostHog keeps them.

The funnel (``funnel_filter``, a funnel's legacy filter) is calculated first; ``funnel_step`` names its people as
a funnel's people list does (k: reached step k; -k: reached step k - 1 but not k). Each of them keeps the events
of the stretch below, timed by their funnel outcome (their earliest attempt that got furthest):

===========================  ============================  ======================================================
``funnel_paths``             ``funnel_step`` k              events kept
===========================  ============================  ======================================================
``funnel_path_after_step``   k                              from step k's event on
``funnel_path_after_step``   -k                             from step k - 1's event on (where they stopped)
``funnel_path_before_step``  k                              up to step k's event
``funnel_path_before_step``  -k                             up to step k - 1's event plus the conversion window
``funnel_path_between_steps`` k (2 or more)                 from step k - 1's event to step k's
``funnel_path_between_steps`` -k (3 or more)                from step k - 2's event to step k - 1's
===========================  ============================  ======================================================

Both ends are inclusive. Sessions are then cut by the funnel's conversion window (default 14 days) instead of
30 minutes, so a path may span the whole funnel. The paths filter keeps its own date range, event types and
other fields.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np

from ...errors import ValidationError
from ...store.event_rows import to_micros
from ..filter_parsing import parse_filter
from ..funnels.filter import FunnelFilter
from ..funnels.inputs import window_end
from ..funnels.people import check_funnel_step, step_actors
from ..funnels.scan import FunnelRun, run_funnel
from .filter import AFTER_STEP, BEFORE_STEP, BETWEEN_STEPS, PathFilter

__all__ = ["FunnelStretch", "funnel_stretches"]

# the moment PostHog measures a conversion window from when it cuts sessions by it
_WINDOW_ORIGIN = to_micros(datetime(2018, 1, 1, tzinfo=UTC))
_EARLIEST, _LATEST = -(2**63), 2**63 - 1


@dataclass(frozen=True)
class FunnelStretch:
    """Each kept person's inclusive ``(first, last)`` µs of events, and the session gap (ms) to cut paths by."""

    spans: dict[int, tuple[int, int]]
    session_gap_ms: int


def _step_times(run: FunnelRun) -> tuple[np.ndarray, np.ndarray]:
    """Each group (sorted) and its step times in µs (a row per group, a column per step; steps beyond the
    furthest reached hold no meaning) in its earliest attempt that got furthest, as the funnel's outcome chose it."""
    attempts = run.attempts
    if not len(attempts):
        return np.zeros(0, dtype=np.int64), np.zeros((0, len(run.steps)), dtype=np.int64)
    change = np.ones(len(attempts), dtype=bool)
    change[1:] = attempts.group[1:] != attempts.group[:-1]
    firsts = np.flatnonzero(change)
    index = np.cumsum(change) - 1
    best = np.maximum.reduceat(attempts.steps, firsts)
    kept = np.flatnonzero(attempts.steps == best[index])  # attempts run by group then start: first kept wins
    first_kept = np.ones(len(kept), dtype=bool)
    first_kept[1:] = index[kept][1:] != index[kept][:-1]
    chosen = kept[first_kept]
    gaps = np.nan_to_num(attempts.times[chosen, 1:]) * 1_000_000
    since = np.rint(np.cumsum(gaps, axis=1)).astype(np.int64)
    start = attempts.start[chosen].astype(np.int64)
    return attempts.group[chosen], np.column_stack([start, start[:, None] + since])


def _span(kind: str, step: int, times: np.ndarray, window: Any) -> tuple[int, int]:
    reached = step if step > 0 else -step - 1  # the step whose event times the stretch (1-based)
    at = int(times[reached - 1])
    if kind == AFTER_STEP:
        return at, _LATEST
    if kind == BEFORE_STEP:
        return _EARLIEST, int(window(np.array([at], dtype=np.int64))[0]) if step < 0 else at
    return int(times[reached - 2]), at


def funnel_stretches(
    conn: sqlite3.Connection, project: dict[str, Any], filter: PathFilter, now: datetime
) -> FunnelStretch | None:
    """The persons and stretches of a funnel-restricted paths filter (module docstring); None without a funnel."""
    if filter.funnel_paths is None or filter.funnel_filter is None:
        return None
    funnel = parse_filter(FunnelFilter, {**filter.funnel_filter, "funnel_viz_type": "steps"})
    if funnel.breakdown is not None:
        raise ValidationError(
            "A funnel restricting paths is not broken down: leave out its breakdown.",
            attr="funnel_filter__breakdown",
            code="unsupported",
        )
    if funnel.aggregation_group_type_index is not None:
        raise ValidationError(
            "Paths are paths of persons: the funnel restricting them counts persons, not groups.",
            attr="funnel_filter__aggregation_group_type_index",
            code="unsupported",
        )
    run = run_funnel(conn, project, funnel, now)
    step = check_funnel_step(filter.step_of_funnel or 0, len(run.steps))
    if filter.funnel_paths == BETWEEN_STEPS and (step == 1 or step == -2):
        raise ValidationError(
            "Paths between steps need a step before funnel_step: 2 or more, or -3 or less.", attr="funnel_step"
        )
    window = window_end(*funnel.window)
    chosen = set(step_actors(run, step))
    group_person = run.labelled.group_person
    groups, times = _step_times(run)
    spans = {
        int(group_person[group]): _span(filter.funnel_paths, step, row, window)
        for group, row in zip(groups.tolist(), times, strict=True)
        if int(group_person[group]) in chosen
    }
    gap = (int(window(np.array([_WINDOW_ORIGIN], dtype=np.int64))[0]) - _WINDOW_ORIGIN) // 1000
    return FunnelStretch(spans=spans, session_gap_ms=gap)
