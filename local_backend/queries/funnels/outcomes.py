"""From attempts to numbers: one outcome per group, then step counts, conversion times, trends and bins.

A group's outcome is its furthest attempt. Its conversion time for step ``i`` is the average (and the median)
over its attempts that went that far; a later attempt that got less far never counts. Across groups, the
step's ``average_conversion_time`` is the mean of the groups' averages and ``median_conversion_time`` the
interpolating median of their medians (median(3600, 7200) = 5400).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .engine import Attempts

__all__ = [
    "Outcomes",
    "StepNumbers",
    "TrendPeriod",
    "reduce_attempts",
    "step_numbers",
    "trend_periods",
    "conversion_bins",
    "group_medians",
]


@dataclass(frozen=True)
class Outcomes:
    """Per group (sorted ids): the steps reached, and per step the group's average and median time.

    ``first`` and ``finish`` are the first and last step times of the group's earliest furthest attempt.
    """

    group: np.ndarray
    steps: np.ndarray
    average: np.ndarray
    median: np.ndarray
    first: np.ndarray
    finish: np.ndarray

    def __len__(self) -> int:
        return len(self.group)

    def subset(self, keep: np.ndarray) -> Outcomes:
        return Outcomes(
            self.group[keep], self.steps[keep], self.average[keep], self.median[keep], self.first[keep],
            self.finish[keep],
        )  # fmt: skip


@dataclass(frozen=True)
class StepNumbers:
    count: int
    average_conversion_time: float | None
    median_conversion_time: float | None


@dataclass(frozen=True)
class TrendPeriod:
    reached_from_step_count: int
    reached_to_step_count: int

    @property
    def conversion_rate(self) -> float:
        if not self.reached_from_step_count:
            return 0.0
        return round(self.reached_to_step_count / self.reached_from_step_count * 100, 2)


def group_medians(keys: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    """The interpolating median of ``values`` for each key in ``0..size-1`` (NaN for keys without values)."""
    result = np.full(size, np.nan)
    present = ~np.isnan(values)
    keys, values = keys[present], values[present]
    if not len(keys):
        return result
    counts = np.bincount(keys, minlength=size)
    # most groups have one value, which is their median: sort only the others
    single = counts[keys] == 1
    result[keys[single]] = values[single]
    keys, values = keys[~single], values[~single]
    if not len(keys):
        return result
    order = np.lexsort((values, keys))
    keys, values = keys[order], values[order]
    counts = np.bincount(keys, minlength=size)
    firsts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    has = counts > 0
    low = firsts[has] + (counts[has] - 1) // 2
    high = firsts[has] + counts[has] // 2
    result[has] = (values[low] + values[high]) / 2
    return result


def _group_means(keys: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    present = ~np.isnan(values)
    sums = np.bincount(keys[present], weights=values[present], minlength=size)
    counts = np.bincount(keys[present], minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def reduce_attempts(attempts: Attempts, steps: int) -> Outcomes:
    """One outcome per group: its furthest attempt, and its times over the attempts that went that far."""
    if not len(attempts):
        empty, none = np.zeros((0, steps)), np.zeros(0, dtype=np.int64)
        return Outcomes(none, none, empty, empty, none, none)
    change = np.ones(len(attempts), dtype=bool)
    change[1:] = attempts.group[1:] != attempts.group[:-1]
    firsts = np.flatnonzero(change)
    index = np.cumsum(change, dtype=np.int32) - 1  # group numbers fit 32 bits, halving the largest array
    del change
    best = np.maximum.reduceat(attempts.steps, firsts)
    keep = attempts.steps == best[index]
    size = len(firsts)
    average = np.full((size, steps), np.nan)
    median = np.full((size, steps), np.nan)
    for step in range(1, steps):
        # an attempt has a time for the step only when it went past it: the others' NaNs are skipped anyway
        timed = keep & (attempts.steps > step)
        values = attempts.times[timed, step]
        average[:, step] = _group_means(index[timed], values, size)
        median[:, step] = group_medians(index[timed], values, size)
    # attempts are sorted by group then start, so a group's first kept attempt is its earliest furthest one
    chosen = firsts.copy()
    late = ~keep[firsts]  # groups whose first attempt is not one of their furthest: their first kept one
    if late.any():
        kept = np.flatnonzero(late[index] & keep)
        first_kept = np.ones(len(kept), dtype=bool)
        first_kept[1:] = index[kept][1:] != index[kept][:-1]
        chosen[late] = kept[first_kept]
    return Outcomes(attempts.group[firsts], best, average, median, attempts.start[chosen], attempts.finish[chosen])


def _float_or_none(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def step_numbers(outcomes: Outcomes, steps: int) -> list[StepNumbers]:
    """Per step: how many groups reached it, and the average / median time from the step before."""
    numbers = []
    for step in range(steps):
        reached = outcomes.steps > step
        count = int(reached.sum())
        if step == 0 or not count:
            numbers.append(StepNumbers(count, None, None))
            continue
        averages = outcomes.average[reached, step]
        medians = outcomes.median[reached, step]
        numbers.append(
            StepNumbers(
                count,
                _float_or_none(float(np.mean(averages))),
                _float_or_none(float(np.median(medians))),
            )
        )
    return numbers


def trend_periods(
    attempts: Attempts, period_of: Callable[[np.ndarray], np.ndarray], periods: int, from_step: int, to_step: int
) -> list[TrendPeriod]:
    """Per entrance period (of the attempt's first event): groups reaching ``from_step`` and ``to_step``.

    A group counts once per period it entered in, with its furthest attempt entered in that period.
    """
    index = period_of(attempts.start)
    inside = (index >= 0) & (index < periods)
    group, index, steps = attempts.group[inside], index[inside], attempts.steps[inside]
    result = []
    if len(group):
        order = np.lexsort((-steps, index, group))
        group, index, steps = group[order], index[order], steps[order]
        first = np.ones(len(group), dtype=bool)
        first[1:] = (group[1:] != group[:-1]) | (index[1:] != index[:-1])
        index, steps = index[first], steps[first]
    for period in range(periods):
        in_period = steps[index == period] if len(group) else np.zeros(0, dtype=np.int64)
        result.append(TrendPeriod(int((in_period > from_step).sum()), int((in_period > to_step).sum())))
    return result


def conversion_bins(
    outcomes: Outcomes, from_step: int, to_step: int, bin_count: int | None
) -> tuple[list[list[int]], float | None]:
    """Histogram of the time from ``from_step`` to ``to_step`` over groups that reached ``to_step``.

    A group's value is the sum of its average step times; bins start at floor(min), are ceil(range /
    bin_count) seconds wide (60 when that is 0), and there are ``bin_count + 1`` of them.
    """
    reached = outcomes.steps > to_step
    samples = outcomes.average[reached, from_step + 1 : to_step + 1].sum(axis=1)
    if not len(samples):
        return [], None
    count = min(max(bin_count, 1), 90) if bin_count else min(max(math.ceil(float(np.cbrt(len(samples)))), 1), 60)
    low, high = math.floor(samples.min()), math.ceil(samples.max())
    width = math.ceil((high - low) / count) or 60
    slots = np.floor((samples - low) / width).astype(np.int64)
    tally = np.bincount(slots, minlength=count + 1)
    bins = [[low + k * width, int(tally[k])] for k in range(count + 1)]
    return bins, round(float(samples.mean()), 2)
