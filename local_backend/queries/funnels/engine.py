"""The per-person funnel state machine, vectorised over arrays of rows.

Input rows are sorted by ``group`` (a person, a group, or a person under one breakdown value) and then by
timestamp; ties on the same timestamp come in step order (the caller sorts by the lowest step a row matches).
Each row carries ``mask`` (bit ``i`` set when the event matches step ``i``) and ``excluded`` (bit ``j`` set
when it matches exclusion ``j``).

An *attempt* starts at every row that can start the funnel (a step-0 event; for unordered funnels an event of
any step, one pass per rotation of the step list) and reaches as many steps as the order type allows within
the conversion window, measured inclusively from the attempt's first event:

* ordered: step ``i`` is the earliest matching event at or after step ``i - 1``; strictly after it when step
  ``i`` repeats or widens step ``i - 1`` (``strictly_after[i]``), so one event never counts twice;
* strict: step ``i`` must be the very next row of the group (the caller passes every event, not only steps);
* unordered: each other step counts when a matching event follows the first one within the window; the
  conversion times are the gaps between the sorted step times. Only ``startable`` rows start attempts.

Attempts during which an exclusion event happened (after its ``from`` step and before its ``to`` step, or
before ``from`` + window when ``to`` was not reached) are dropped. :mod:`.outcomes` reduces attempts
to one outcome per group.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

__all__ = [
    "ORDERED",
    "STRICT",
    "UNORDERED",
    "ORDER_TYPES",
    "ExclusionSpan",
    "FunnelSpec",
    "FunnelRows",
    "Attempts",
    "compute_attempts",
    "tie_keys",
]

ORDERED, STRICT, UNORDERED = "ordered", "strict", "unordered"
ORDER_TYPES = (ORDERED, STRICT, UNORDERED)
MICROS = 1_000_000
CHUNK_ROWS = 500_000

WindowEnd = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class ExclusionSpan:
    """Exclusion ``bit`` (its index) applies between steps ``from_step`` and ``to_step``."""

    from_step: int
    to_step: int


@dataclass(frozen=True)
class FunnelSpec:
    """What the state machine needs to know about a funnel.

    ``window_end`` maps start timestamps (µs) to the last timestamp a later step may have (inclusive).
    """

    steps: int
    order: str
    window_end: WindowEnd
    strictly_after: tuple[bool, ...] = ()
    exclusions: tuple[ExclusionSpan, ...] = ()

    def strictly(self, step: int) -> bool:
        return step < len(self.strictly_after) and self.strictly_after[step]


@dataclass(frozen=True)
class FunnelRows:
    """Rows of step (and exclusion) events; ``startable`` (None: every row) marks the rows an unordered attempt
    may start at (step attribution of an unordered funnel: the rows carrying the group's breakdown value)."""

    group: np.ndarray
    ts: np.ndarray
    mask: np.ndarray
    excluded: np.ndarray
    startable: np.ndarray | None = None

    @classmethod
    def from_lists(
        cls, group: list[int], ts: list[int], mask: list[int], excluded: list[int] | None = None
    ) -> FunnelRows:
        as_array = np.asarray
        zeros = [0] * len(group)
        return cls(
            as_array(group, dtype=np.int64),
            as_array(ts, dtype=np.int64),
            as_array(mask, dtype=np.int64),
            as_array(excluded if excluded is not None else zeros, dtype=np.int64),
        )

    def __len__(self) -> int:
        return len(self.ts)


@dataclass(frozen=True)
class Attempts:
    """One entry per attempt, sorted by group then start: where it started, how far it got, how long each step took.

    ``times[:, i]`` is the seconds from step ``i - 1`` to step ``i`` (NaN where not reached; column 0 NaN);
    ``finish`` the timestamp of the last step reached.
    """

    group: np.ndarray
    start: np.ndarray
    steps: np.ndarray
    times: np.ndarray
    finish: np.ndarray

    def __len__(self) -> int:
        return len(self.group)

    def subset(self, keep: np.ndarray) -> Attempts:
        return Attempts(self.group[keep], self.start[keep], self.steps[keep], self.times[keep], self.finish[keep])


def tie_keys(mask: np.ndarray, steps: int) -> np.ndarray:
    """The lowest step each row matches (``steps`` for rows matching none): the order of same-time rows."""
    keys = np.full(len(mask), steps, dtype=np.int8)
    for step in range(steps - 1, -1, -1):
        keys[(mask >> step) & 1 == 1] = step
    return keys


class _Layout:
    """Position arithmetic shared by the passes: same-timestamp runs and the next row matching a bit."""

    def __init__(self, rows: FunnelRows) -> None:
        n = len(rows)
        self.n = n
        self.rows = rows
        # one sentinel row at index n, in no group, so that "no next row" needs no special case
        self.group = np.append(rows.group, -1)
        self.ts = np.append(rows.ts, np.iinfo(np.int64).max)
        self._next: dict[tuple[str, int], np.ndarray] = {}
        # runs of rows of one group on one timestamp; without any (the usual case) each row is its own run
        self._first_same: np.ndarray | None = None
        self._after_same: np.ndarray | None = None
        if n > 1:
            tied = (rows.group[1:] == rows.group[:-1]) & (rows.ts[1:] == rows.ts[:-1])
            if tied.any():
                change = np.ones(n, dtype=bool)
                change[1:] = ~tied
                # positions fit 32 bits (a funnel reads far fewer than 2^31 rows), halving the biggest arrays
                run_starts = np.flatnonzero(change).astype(np.int32)
                run_id = np.cumsum(change, dtype=np.int32) - 1
                run_ends = np.append(run_starts[1:], np.int32(n))
                self._first_same = np.append(run_starts[run_id], np.int32(n))
                self._after_same = np.append(run_ends[run_id], np.int32(n))

    def first_same(self, positions: np.ndarray) -> np.ndarray:
        """The first position of each position's run (the sentinel maps to itself)."""
        return positions if self._first_same is None else self._first_same[positions]

    def after_same(self, positions: np.ndarray) -> np.ndarray:
        """The position after each position's run (the sentinel maps to itself)."""
        if self._after_same is None:
            return np.minimum(positions + 1, np.int32(self.n)).astype(np.int32, copy=False)
        return self._after_same[positions]

    def next_with(self, column: str, bit: int) -> np.ndarray:
        """For each position (and the sentinel), the first position at or after it whose ``column`` has ``bit``."""
        key = (column, bit)
        if key not in self._next:
            values = getattr(self.rows, column)
            candidates = np.where((values >> bit) & 1 == 1, np.arange(self.n, dtype=np.int32), np.int32(self.n))
            following = np.minimum.accumulate(candidates[::-1])[::-1] if self.n else candidates
            self._next[key] = np.append(following, np.int32(self.n))
        return self._next[key]

    def found(self, positions: np.ndarray, group: np.ndarray) -> np.ndarray:
        return (positions < self.n) & (self.group[positions] == group)


@dataclass(frozen=True)
class _Chained:
    """The attempts of one slice of rows, written into views of the whole funnel's arrays (one entry per step-0
    row of the slice, in row order)."""

    starts: np.ndarray  # the step-0 rows, positions in the slice
    group: np.ndarray
    start: np.ndarray
    steps: np.ndarray
    times: np.ndarray
    finish: np.ndarray


def _chain(layout: _Layout, spec: FunnelSpec, out: _Chained) -> np.ndarray | None:
    """Ordered and strict attempts: fills ``out``'s steps reached, step times and last step time, and returns
    each step's row position when the funnel has exclusions.

    Each step looks only at the attempts still alive: most attempts stop at the first steps.
    """
    mask = np.append(layout.rows.mask, 0)
    starts = out.starts
    limit = spec.window_end(out.start)
    positions = None
    if spec.exclusions:
        positions = np.full((len(starts), spec.steps), layout.n, dtype=np.int32)
        positions[:, 0] = starts
    alive = np.arange(len(starts))
    previous = starts
    for step in range(1, spec.steps):
        if not len(alive):
            break
        if spec.order == STRICT:
            candidate = np.minimum(previous + 1, np.int32(layout.n))
            ok = (mask[candidate] >> step) & 1 == 1
        else:
            origin = layout.after_same(previous) if spec.strictly(step) else layout.first_same(previous)
            candidate = layout.next_with("mask", step)[origin]
            ok = np.ones(len(alive), dtype=bool)
        ok &= layout.found(candidate, out.group[alive]) & (layout.ts[candidate] <= limit[alive])
        alive, candidate, previous = alive[ok], candidate[ok], previous[ok]
        reached = layout.ts[candidate]
        out.steps[alive] = step + 1
        out.times[alive, step] = (reached - layout.ts[previous]) / MICROS
        out.finish[alive] = reached
        if positions is not None:
            positions[alive, step] = candidate
        previous = candidate
    return positions


def _chain_excluded(layout: _Layout, spec: FunnelSpec, steps: np.ndarray, positions: np.ndarray) -> np.ndarray:
    dropped = np.zeros(len(steps), dtype=bool)
    for bit, span in enumerate(spec.exclusions):
        reached = steps > span.from_step
        origin = np.where(reached, positions[:, span.from_step], layout.n).astype(np.int32)
        group = layout.group[origin]
        from_ts = layout.ts[origin]
        event = layout.next_with("excluded", bit)[layout.after_same(origin)]
        window_bound = spec.window_end(np.where(reached, from_ts, 0))
        to_ts = layout.ts[np.where(steps > span.to_step, positions[:, span.to_step], layout.n)]
        bound = np.where(steps > span.to_step, to_ts, window_bound + 1)
        dropped |= reached & layout.found(event, group) & (layout.ts[event] < bound)
    return dropped


def _unordered(layout: _Layout, spec: FunnelSpec) -> tuple[np.ndarray, ...]:
    rows = layout.rows
    all_starts, all_steps, all_times, all_dropped, all_last = [], [], [], [], []
    for first in range(spec.steps):
        can_start = (rows.mask >> first) & 1 == 1
        if rows.startable is not None:
            can_start &= rows.startable
        starts = np.flatnonzero(can_start).astype(np.int32)
        group = rows.group[starts]
        start_ts = rows.ts[starts]
        limit = spec.window_end(start_ts)
        origin = layout.after_same(starts)
        moments = np.full((len(starts), spec.steps), np.iinfo(np.int64).max, dtype=np.int64)
        moments[:, 0] = start_ts
        column = 1
        for other in range(spec.steps):
            if other == first:
                continue
            candidate = layout.next_with("mask", other)[origin]
            ok = layout.found(candidate, group) & (layout.ts[candidate] <= limit)
            moments[ok, column] = layout.ts[candidate[ok]]
            column += 1
        steps = (moments != np.iinfo(np.int64).max).sum(axis=1)
        moments.sort(axis=1)
        times = np.full((len(starts), spec.steps), np.nan)
        if spec.steps > 1:
            reached = np.arange(1, spec.steps)[None, :] < steps[:, None]
            gaps = (np.diff(moments, axis=1) / MICROS).astype(float)
            times[:, 1:] = np.where(reached, gaps, np.nan)
        last = moments[np.arange(len(starts)), steps - 1]
        dropped = np.zeros(len(starts), dtype=bool)
        for bit, _span in enumerate(spec.exclusions):
            event = layout.next_with("excluded", bit)[origin]
            bound = np.where(steps == spec.steps, last, limit + 1)
            dropped |= layout.found(event, group) & (layout.ts[event] < bound)
        all_starts.append(starts)
        all_steps.append(steps)
        all_times.append(times)
        all_dropped.append(dropped)
        all_last.append(last)
    return (
        np.concatenate(all_starts),
        np.concatenate(all_steps).astype(np.int64),
        np.concatenate(all_times),
        np.concatenate(all_dropped),
        np.concatenate(all_last),
    )


def compute_attempts(
    rows: FunnelRows,
    spec: FunnelSpec,
    *,
    chunk_rows: int = CHUNK_ROWS,
    before_chunk: Callable[[], None] | None = None,
) -> Attempts:
    """Every attempt of every group (exclusions applied), sorted by group then start.

    Groups are independent, so rows are processed in slices of about ``chunk_rows`` cut at group
    boundaries: the working arrays stay the size of a slice however many rows the funnel reads.
    ``before_chunk`` is called before each slice; it may raise to stop the work (a time limit).
    """
    cuts = _group_cuts(rows.group, chunk_rows)
    if spec.order == UNORDERED:
        parts: list[Attempts] = []
        for low, high in zip(cuts, cuts[1:], strict=False):
            if before_chunk is not None:
                before_chunk()
            parts.append(_unordered_attempts(_slice(rows, low, high), spec))
        if len(parts) == 1:
            return parts[0]
        if not parts:
            return _unordered_attempts(rows, spec)
        return Attempts(*(np.concatenate([getattr(part, name) for part in parts]) for name in _ATTEMPT_FIELDS))
    # ordered and strict funnels: one attempt per step-0 row, its arrays made once and filled slice by slice
    starts = np.flatnonzero(rows.mask & 1)
    start = rows.ts[starts]
    whole = _Chained(
        starts=starts,
        group=rows.group[starts],
        start=start,
        steps=np.ones(len(starts), dtype=np.int64),
        times=np.full((len(starts), spec.steps), np.nan),
        finish=start.copy(),
    )
    dropped = np.zeros(len(starts), dtype=bool) if spec.exclusions else None
    bounds = np.searchsorted(starts, cuts)

    def run(low: int, high: int, first: int, last: int) -> None:
        part = _Chained(
            (starts[first:last] - low).astype(np.int32), whole.group[first:last], whole.start[first:last],
            whole.steps[first:last], whole.times[first:last], whole.finish[first:last],
        )  # fmt: skip
        layout = _Layout(_slice(rows, low, high))
        positions = _chain(layout, spec, part)
        if dropped is not None and positions is not None:
            dropped[first:last] = _chain_excluded(layout, spec, part.steps, positions)

    _in_pairs(list(zip(cuts, cuts[1:], bounds, bounds[1:], strict=False)), run, before_chunk)
    attempts = Attempts(whole.group, whole.start, whole.steps, whole.times, whole.finish)
    return attempts.subset(~dropped) if dropped is not None and dropped.any() else attempts


def _in_pairs(
    slices: list[tuple[int, int, int, int]],
    run: Callable[[int, int, int, int], None],
    before_chunk: Callable[[], None] | None,
) -> None:
    """``run`` each slice, two at a time: a helper thread takes one while this thread does the next (numpy
    lets go of the interpreter in its array work, so the two use both cores). ``before_chunk`` is asked here
    before each slice starts; when it raises, the slice the helper is on is finished first."""
    if len(slices) < 2:
        for part in slices:
            if before_chunk is not None:
                before_chunk()
            run(*part)
        return
    with ThreadPoolExecutor(max_workers=1) as helper:
        pending: Future[None] | None = None
        for part in slices:
            if before_chunk is not None:
                before_chunk()
            if pending is None:
                pending = helper.submit(run, *part)
                continue
            run(*part)
            pending.result()
            pending = None
        if pending is not None:
            pending.result()


_ATTEMPT_FIELDS = ("group", "start", "steps", "times", "finish")


def _group_cuts(group: np.ndarray, chunk_rows: int) -> list[int]:
    cuts = [0]
    while cuts[-1] + chunk_rows < len(group):
        cut = int(np.searchsorted(group, group[cuts[-1] + chunk_rows], side="left"))
        if cut <= cuts[-1]:  # one group larger than a slice: keep it whole
            cut = int(np.searchsorted(group, group[cuts[-1] + chunk_rows], side="right"))
        cuts.append(cut)
    if cuts[-1] < len(group) or len(cuts) == 1:
        cuts.append(len(group))
    return cuts


def _slice(rows: FunnelRows, low: int, high: int) -> FunnelRows:
    startable = rows.startable[low:high] if rows.startable is not None else None
    return FunnelRows(rows.group[low:high], rows.ts[low:high], rows.mask[low:high], rows.excluded[low:high], startable)


def _unordered_attempts(rows: FunnelRows, spec: FunnelSpec) -> Attempts:
    starts, steps, times, dropped, finish = _unordered(_Layout(rows), spec)
    keep = ~dropped
    starts, steps, times, finish = starts[keep], steps[keep], times[keep], finish[keep]
    # rotations come one after the other; row positions order attempts by group, then by start
    order = np.argsort(starts, kind="stable")
    starts, steps, times, finish = starts[order], steps[order], times[order], finish[order]
    return Attempts(rows.group[starts], rows.ts[starts], steps, times, finish)
