"""The funnel state machine on hand-written rows: (group, seconds, steps matched[, exclusions matched])."""

from __future__ import annotations

import numpy as np
import pytest

from local_backend.queries.funnels.engine import (
    ORDERED,
    STRICT,
    UNORDERED,
    ExclusionSpan,
    FunnelRows,
    FunnelSpec,
    compute_attempts,
)
from local_backend.queries.funnels.outcomes import (
    conversion_bins,
    group_medians,
    reduce_attempts,
    step_numbers,
    trend_periods,
)

MINUTE, HOUR, DAY = 60, 3600, 86400


def rows(*specs: tuple) -> FunnelRows:
    """``(group, second, {steps}[, {exclusions}])``; the caller lists them in time order per group."""
    group, ts, mask, excluded = [], [], [], []
    for spec in specs:
        group.append(spec[0])
        ts.append(spec[1] * 1_000_000)
        mask.append(sum(1 << step for step in spec[2]))
        excluded.append(sum(1 << bit for bit in (spec[3] if len(spec) > 3 else ())))
    return FunnelRows.from_lists(group, ts, mask, excluded)


def spec(steps: int, order: str = ORDERED, window: int = 14 * DAY, **kwargs) -> FunnelSpec:
    return FunnelSpec(steps=steps, order=order, window_end=lambda start: start + window * 1_000_000, **kwargs)


def outcome(data: FunnelRows, funnel: FunnelSpec) -> dict[int, int]:
    reduced = reduce_attempts(compute_attempts(data, funnel), funnel.steps)
    return dict(zip(reduced.group.tolist(), reduced.steps.tolist(), strict=True))


def numbers(data: FunnelRows, funnel: FunnelSpec) -> list[tuple]:
    reduced = reduce_attempts(compute_attempts(data, funnel), funnel.steps)
    return [(n.count, n.average_conversion_time, n.median_conversion_time) for n in step_numbers(reduced, funnel.steps)]


def test_ordered_three_steps_counts_and_times() -> None:
    # 1: all three (10 min, then 1 h); 2: two steps (30 min); 3: only the first; 4: no first step at all
    data = rows(
        (1, 0, {0}), (1, 600, {1}), (1, 4200, {2}),
        (2, 100, {0}), (2, 1900, {1}),
        (3, 50, {0}),
        (4, 10, {1}), (4, 20, {2}),
    )  # fmt: skip
    assert outcome(data, spec(3)) == {1: 3, 2: 2, 3: 1}
    # step 2: persons 1 (600 s) and 2 (1800 s): mean 1200, median 1200; step 3: person 1 only, 3600 s
    assert numbers(data, spec(3)) == [(3, None, None), (2, 1200.0, 1200.0), (1, 3600.0, 3600.0)]


def test_later_step_before_first_does_not_count() -> None:
    data = rows((1, 0, {1}), (1, 10, {0}))
    assert outcome(data, spec(2)) == {1: 1}


def test_different_events_at_same_time_convert() -> None:
    # the second step's event is stored at the very same microsecond as the first step's
    data = rows((1, 5, {0}), (1, 5, {1}))
    assert numbers(data, spec(2)) == [(1, None, None), (1, 0.0, 0.0)]


def test_one_event_matching_both_steps_counts_once_when_steps_repeat() -> None:
    # steps $pageview -> $pageview: one pageview is not a conversion, and a second one at the same time is not either
    repeated = spec(2, strictly_after=(False, True))
    assert outcome(rows((1, 5, {0, 1})), repeated) == {1: 1}
    assert outcome(rows((1, 5, {0, 1}), (1, 5, {0, 1})), repeated) == {1: 1}
    assert outcome(rows((1, 5, {0, 1}), (1, 6, {0, 1})), repeated) == {1: 2}
    # without the repeat rule (a step-1 filter that the same event happens to match), the event counts for both
    assert outcome(rows((1, 5, {0, 1})), spec(2)) == {1: 2}


def test_window_is_inclusive_and_measured_from_the_first_step() -> None:
    five_minutes = spec(3, window=300)
    assert outcome(rows((1, 0, {0}), (1, 200, {1}), (1, 300, {2})), five_minutes) == {1: 3}
    assert outcome(rows((1, 0, {0}), (1, 200, {1}), (1, 301, {2})), five_minutes) == {1: 2}
    # a later first step restarts the window: 100 -> 250 -> 390 fits in 300 s
    data = rows((1, 0, {0}), (1, 100, {0}), (1, 250, {1}), (1, 390, {2}))
    assert outcome(data, five_minutes) == {1: 3}


def test_incomplete_later_attempts_do_not_count_towards_times() -> None:
    # attempt at 0 reaches step 2 after 100 s; attempt at 1000 reaches nothing more; attempt at 5000 takes 300 s
    data = rows((1, 0, {0}), (1, 100, {1}), (1, 1000, {0}), (1, 5000, {0}), (1, 5300, {1}))
    # both complete attempts count: average (100 + 300) / 2 = 200, the 1000 s attempt never counts
    assert numbers(data, spec(2, window=HOUR)) == [(1, None, None), (1, 200.0, 200.0)]


def test_per_person_average_then_across_person_average_and_median() -> None:
    # person 1: attempts at 0 and 1800 both convert at 3600: times 3600 and 1800 -> average 2700, median 2700
    # person 2: one attempt of 7200 s. Across: mean (2700 + 7200) / 2 = 4950, median of (2700, 7200) = 4950
    # person 3: one attempt of 3600 s. Now mean (2700 + 7200 + 3600) / 3 = 4500, median 3600
    data = rows((1, 0, {0}), (1, 1800, {0}), (1, 3600, {1}), (2, 0, {0}), (2, 7200, {1}))
    assert numbers(data, spec(2)) == [(2, None, None), (2, 4950.0, 4950.0)]
    data = rows((1, 0, {0}), (1, 1800, {0}), (1, 3600, {1}), (2, 0, {0}), (2, 7200, {1}), (3, 0, {0}), (3, 3600, {1}))
    assert numbers(data, spec(2)) == [(3, None, None), (3, 4500.0, 3600.0)]


def test_interpolating_median_of_two() -> None:
    data = rows((1, 0, {0}), (1, 3600, {1}), (2, 0, {0}), (2, 7200, {1}))
    assert numbers(data, spec(2))[1] == (2, 5400.0, 5400.0)


def test_single_step_funnel() -> None:
    assert numbers(rows((1, 0, {0}), (1, 10, {0}), (2, 5, {0})), spec(1)) == [(2, None, None)]


def test_strict_needs_the_next_event_to_be_the_next_step() -> None:
    # person 1: A B C directly; person 2: A x B C (x breaks after A); person 3: A B x C
    data = rows(
        (1, 0, {0}), (1, 10, {1}), (1, 20, {2}),
        (2, 0, {0}), (2, 5, set()), (2, 10, {1}), (2, 20, {2}),
        (3, 0, {0}), (3, 10, {1}), (3, 15, set()), (3, 20, {2}),
    )  # fmt: skip
    assert outcome(data, spec(3, STRICT)) == {1: 3, 2: 1, 3: 2}
    assert outcome(data, spec(3, ORDERED)) == {1: 3, 2: 3, 3: 3}


def test_strict_retries_from_a_later_first_step() -> None:
    data = rows((1, 0, {0}), (1, 5, set()), (1, 10, {0}), (1, 20, {1}))
    assert numbers(data, spec(2, STRICT)) == [(1, None, None), (1, 10.0, 10.0)]


def test_strict_respects_the_window() -> None:
    data = rows((1, 0, {0}), (1, 301, {1}))
    assert outcome(data, spec(2, STRICT, window=300)) == {1: 1}


def test_unordered_any_order_and_times_between_sorted_steps() -> None:
    # C at 0, A at 100, B at 400: three steps; gaps 100 and 300
    data = rows((1, 0, {2}), (1, 100, {0}), (1, 400, {1}))
    assert numbers(data, spec(3, UNORDERED)) == [(1, None, None), (1, 100.0, 100.0), (1, 300.0, 300.0)]
    assert outcome(data, spec(3, ORDERED)) == {1: 2}


def test_unordered_counts_other_steps_inside_the_window_only() -> None:
    # B at 0, A at 200, C at 500: from B, A is in a 300 s window and C is not; from A, C is (300 s later)
    data = rows((1, 0, {1}), (1, 200, {0}), (1, 500, {2}))
    assert outcome(data, spec(3, UNORDERED, window=300)) == {1: 2}
    assert outcome(data, spec(3, UNORDERED, window=500)) == {1: 3}


def test_unordered_person_with_only_a_later_step_enters() -> None:
    assert outcome(rows((1, 0, {1})), spec(2, UNORDERED)) == {1: 1}


def test_unordered_attempts_start_only_at_startable_rows() -> None:
    # A at 0, B at 100: from A both steps; when only B may start (step attribution), nothing follows it
    data = rows((1, 0, {0}), (1, 100, {1}))
    only_b = FunnelRows(data.group, data.ts, data.mask, data.excluded, np.array([False, True]))
    assert outcome(data, spec(2, UNORDERED)) == {1: 2}
    assert outcome(only_b, spec(2, UNORDERED)) == {1: 1}


def test_exclusion_between_steps_removes_the_attempt() -> None:
    skip = (ExclusionSpan(0, 1),)
    # 1: A, X, B -> excluded; 2: A, B, X -> kept (X after step 1); 3: X, A, B -> kept (X before step 0)
    data = rows(
        (1, 0, {0}), (1, 5, set(), {0}), (1, 10, {1}),
        (2, 0, {0}), (2, 10, {1}), (2, 15, set(), {0}),
        (3, 0, set(), {0}), (3, 5, {0}), (3, 10, {1}),
    )  # fmt: skip
    assert outcome(data, spec(2, exclusions=skip)) == {2: 2, 3: 2}


def test_exclusion_when_to_step_was_never_reached_uses_the_window() -> None:
    skip = (ExclusionSpan(0, 1),)
    inside = rows((1, 0, {0}), (1, 300, set(), {0}))
    outside = rows((1, 0, {0}), (1, 301, set(), {0}))
    assert outcome(inside, spec(2, window=300, exclusions=skip)) == {}
    assert outcome(outside, spec(2, window=300, exclusions=skip)) == {1: 1}


def test_exclusion_keeps_other_clean_attempts() -> None:
    # the first attempt is spoiled, the second (after the exclusion event) converts cleanly
    data = rows((1, 0, {0}), (1, 5, set(), {0}), (1, 10, {0}), (1, 20, {1}))
    assert numbers(data, spec(2, exclusions=(ExclusionSpan(0, 1),))) == [(1, None, None), (1, 10.0, 10.0)]


def test_exclusion_at_the_same_time_as_the_from_step_does_not_exclude() -> None:
    data = rows((1, 0, {0}, {0}), (1, 10, {1}))
    assert outcome(data, spec(2, exclusions=(ExclusionSpan(0, 1),))) == {1: 2}


def test_exclusion_on_a_later_span_only() -> None:
    # A, X, B, C with the exclusion between steps 1 and 2: X is before step 1, so nothing is excluded
    data = rows((1, 0, {0}), (1, 5, set(), {0}), (1, 10, {1}), (1, 20, {2}))
    assert outcome(data, spec(3, exclusions=(ExclusionSpan(1, 2),))) == {1: 3}
    data = rows((1, 0, {0}), (1, 10, {1}), (1, 15, set(), {0}), (1, 20, {2}))
    assert outcome(data, spec(3, exclusions=(ExclusionSpan(1, 2),))) == {}


def test_unordered_exclusion_in_one_rotation_only() -> None:
    # A at 0, X at 5, B at 10: from A the exclusion falls inside; from B (A not after it) the attempt is 1 step
    data = rows((1, 0, {0}), (1, 5, set(), {0}), (1, 10, {1}))
    assert outcome(data, spec(2, UNORDERED, exclusions=(ExclusionSpan(0, 1),))) == {1: 1}


def test_trend_periods_by_entrance_period() -> None:
    # periods of one day: person 1 enters day 0 and converts, enters day 1 and does not; person 2 enters day 1
    data = rows((1, 0, {0}), (1, 10, {1}), (1, DAY + 5, {0}), (2, DAY + 7, {0}), (2, DAY + 9, {1}))
    attempts = compute_attempts(data, spec(2, window=60))
    periods = trend_periods(attempts, lambda start: start // (DAY * 1_000_000), 3, 0, 1)
    summary = [(p.reached_from_step_count, p.reached_to_step_count, p.conversion_rate) for p in periods]
    assert summary == [(1, 1, 100.0), (2, 1, 50.0), (0, 0, 0.0)]


def test_conversion_bins() -> None:
    # three persons, times 10, 70 and 100 s: cbrt(3) -> 2 bins; width ceil(90 / 2) = 45; bins 10, 55, 100
    data = rows((1, 0, {0}), (1, 10, {1}), (2, 0, {0}), (2, 70, {1}), (3, 0, {0}), (3, 100, {1}), (4, 0, {0}))
    reduced = reduce_attempts(compute_attempts(data, spec(2)), 2)
    assert conversion_bins(reduced, 0, 1, None) == ([[10, 1], [55, 1], [100, 1]], 60.0)
    # explicit bin count 3: width 30: 10 -> bin 10, 70 -> bin 70, 100 -> bin 100
    assert conversion_bins(reduced, 0, 1, 3) == ([[10, 1], [40, 0], [70, 1], [100, 1]], 60.0)


def test_conversion_bins_sum_steps_and_zero_width() -> None:
    data = rows((1, 0, {0}), (1, 10, {1}), (1, 30, {2}), (2, 0, {0}), (2, 20, {1}), (2, 30, {2}))
    reduced = reduce_attempts(compute_attempts(data, spec(3)), 3)
    # both take 30 s from step 0 to step 2: ceil(cbrt(2)) = 2 bins, range 0 -> width 60, three bin starts
    assert conversion_bins(reduced, 0, 2, None) == ([[30, 2], [90, 0], [150, 0]], 30.0)
    # from step 1 to step 2: 20 and 10 s in one bin of width 10; the maximum opens the extra last bin
    assert conversion_bins(reduced, 1, 2, 1) == ([[10, 1], [20, 1]], 15.0)


def test_group_medians() -> None:
    keys = np.array([0, 0, 1, 1, 1, 2])
    values = np.array([4.0, 2.0, 9.0, 1.0, 5.0, np.nan])
    assert group_medians(keys, values, 4).tolist()[:2] == [3.0, 5.0]
    assert np.isnan(group_medians(keys, values, 4)[2:]).all()


@pytest.mark.parametrize("order", [ORDERED, STRICT, UNORDERED])
def test_no_rows(order: str) -> None:
    assert numbers(rows(), spec(2, order)) == [(0, None, None), (0, None, None)]


def test_outcome_keeps_the_earliest_furthest_attempt_bounds() -> None:
    # attempts at 0 (-> 50) and 100 (-> 130) both reach step 2; the earliest one gives first 0, finish 50
    data = rows((1, 0, {0}), (1, 50, {1}), (1, 100, {0}), (1, 130, {1}), (2, 10, {0}))
    reduced = reduce_attempts(compute_attempts(data, spec(2, window=40)), 2)
    assert reduced.steps.tolist() == [2, 1]
    # with a 40 s window the attempt at 0 cannot reach 50: only the one at 100 converts
    assert (reduced.first // 1_000_000).tolist() == [100, 10]
    assert (reduced.finish // 1_000_000).tolist() == [130, 10]


@pytest.mark.parametrize("order", [ORDERED, STRICT, UNORDERED])
def test_slices_give_the_same_attempts(order: str) -> None:
    # persons of 1 to 4 rows; slices of 3 rows cut between persons (a 4-row person stays whole)
    data = rows(
        (1, 0, {0}), (1, 5, {1}), (2, 0, {1}), (2, 3, {0}), (2, 4, set()), (2, 9, {1}),
        (3, 1, {0}), (4, 2, {0}), (4, 7, {1}), (4, 8, {0}),
    )  # fmt: skip
    whole = compute_attempts(data, spec(2, order), chunk_rows=100)
    sliced = compute_attempts(data, spec(2, order), chunk_rows=3)
    for name in ("group", "start", "steps", "finish"):
        assert getattr(whole, name).tolist() == getattr(sliced, name).tolist(), name
    assert np.array_equal(whole.times, sliced.times, equal_nan=True)
    assert len(whole) >= 5
