"""Breakdown attribution: which value each person's funnel counts under.

Rows arrive sorted by person and time, each with the breakdown value of its event (``""`` when missing). The
values kept are the ``limit`` most frequent over the funnel's events (count descending, then value
descending, a list value compared element by element); the rest collapse into ``Other``. Then, by attribution type:

* ``first_touch`` / ``last_touch``: the person's earliest / latest non-empty value among their step events
  (``""`` when every one is empty); the whole funnel of the person counts under it;
* ``step``: every value of the person's events matching step ``k``; the person's whole funnel counts once
  under each of them, and persons without an event of step ``k`` are left out. In an unordered funnel any
  step can come first, so step ``0`` is the event an attempt starts at: the person counts under every value
  of their step events, each time with the attempts that start at an event carrying that value (PostHog's
  rotations; other steps are a 400, as in PostHog);
* ``all_events``: the funnel is computed separately per value, over only the events carrying that value.

The result regroups the rows: group ``g`` is one (person, value) pair, numbered from 0 in row order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .engine import FunnelRows

__all__ = ["OTHER", "Labelled", "bucket_values", "attribute", "by_membership", "unlabelled"]

OTHER = "Other"


@dataclass(frozen=True)
class Labelled:
    """Rows regrouped into (person, value) groups; ``group_person`` and ``group_value`` describe each group."""

    rows: FunnelRows
    group_person: np.ndarray
    group_value: np.ndarray
    values: list[str]


def _runs(group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start index of each run of equal ``group`` values, and the run index of every row."""
    change = np.ones(len(group), dtype=bool)
    change[1:] = group[1:] != group[:-1]
    return np.flatnonzero(change), np.cumsum(change) - 1


def bucket_values(
    codes: np.ndarray,
    names: list[str],
    counted: np.ndarray,
    limit: int | None,
    value_key: Callable[[str], Any] = str,
) -> tuple[np.ndarray, list[str]]:
    """Per value code the bucket it falls in, and the bucket labels (``Other`` last when anything overflowed).

    Buckets are ordered by how many ``counted`` rows carry them, then by ``value_key`` of the value, both
    descending.
    """
    tally = np.bincount(codes[counted], minlength=len(names))
    ranked = sorted(range(len(names)), key=lambda code: value_key(names[code]), reverse=True)
    ranked.sort(key=lambda code: -int(tally[code]))  # stable: equal counts keep the value order
    ranked = [code for code in ranked if tally[code] > 0]
    kept = ranked if limit is None else ranked[:limit]
    bucket = np.full(len(names), len(kept), dtype=np.int64)
    bucket[np.array(kept, dtype=np.int64)] = np.arange(len(kept))
    labels = [names[code] for code in kept]
    if limit is not None and len(ranked) > limit:
        labels.append(OTHER)
    return bucket, labels


def _regroup(rows: FunnelRows, order: np.ndarray, keys: np.ndarray, persons: np.ndarray, values: np.ndarray) -> tuple:
    """Rows taken in ``order``, new groups at every change of ``keys`` (already in ``order``)."""
    starts, run = _runs(keys) if len(keys) else (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    regrouped = FunnelRows(run.astype(np.int64), rows.ts[order], rows.mask[order], rows.excluded[order])
    return regrouped, persons[starts], values[starts]


def unlabelled(rows: FunnelRows) -> Labelled:
    """No breakdown: one group per person."""
    starts, run = _runs(rows.group)
    regrouped = FunnelRows(run.astype(np.int64), rows.ts, rows.mask, rows.excluded)
    return Labelled(regrouped, rows.group[starts], np.zeros(len(starts), dtype=np.int64), [])


def _touch(rows: FunnelRows, bucket: np.ndarray, empty: np.ndarray, last: bool) -> tuple[np.ndarray, np.ndarray]:
    starts, run = _runs(rows.group)
    size = len(starts)
    steps = rows.mask != 0
    positions = np.arange(len(rows))
    chosen = np.full(size, -1, dtype=np.int64)
    for candidates in (steps & ~empty, steps):
        picked = positions[candidates]
        runs = run[candidates]
        if last:
            found = np.full(size, -1, dtype=np.int64)
            np.maximum.at(found, runs, picked)
        else:
            found = np.full(size, len(rows), dtype=np.int64)
            np.minimum.at(found, runs, picked)
            found[found == len(rows)] = -1
        chosen = np.where(chosen >= 0, chosen, found)
    person_bucket = np.where(chosen >= 0, bucket[np.maximum(chosen, 0)], -1)
    return person_bucket, run


def attribute(
    rows: FunnelRows,
    row_bucket: np.ndarray,
    empty: np.ndarray,
    labels: list[str],
    attribution: str,
    step: int = 0,
    unordered: bool = False,
) -> Labelled:
    """Regroup ``rows`` (sorted by person, time) by person and attributed bucket (see the module docstring)."""
    if not len(rows):
        empty_ids = np.zeros(0, dtype=np.int64)
        return Labelled(rows, empty_ids, empty_ids, labels)
    if attribution in ("first_touch", "last_touch"):
        person_bucket, run = _touch(rows, row_bucket, empty, attribution == "last_touch")
        keep = person_bucket[run] >= 0
        order = np.flatnonzero(keep)
        regrouped, persons, values = _regroup(
            rows, order, rows.group[order], rows.group[order], person_bucket[run][order]
        )
        return Labelled(regrouped, persons, values, labels)
    if attribution == "all_events":
        order = np.lexsort((np.arange(len(rows)), rows.group, row_bucket))
        keys = row_bucket[order] * (int(rows.group.max()) + 1) + rows.group[order]
        regrouped, persons, values = _regroup(rows, order, keys, rows.group[order], row_bucket[order])
        return Labelled(regrouped, persons, values, labels)
    at_step = rows.mask != 0 if unordered else (rows.mask >> step) & 1 == 1
    pairs = np.unique(np.stack([rows.group[at_step], row_bucket[at_step]], axis=1), axis=0)
    return by_membership(rows, pairs[:, 0] if len(pairs) else np.zeros(0, dtype=np.int64),
                         pairs[:, 1] if len(pairs) else np.zeros(0, dtype=np.int64), labels,
                         row_bucket if unordered else None)  # fmt: skip


def by_membership(
    rows: FunnelRows,
    persons: np.ndarray,
    values: np.ndarray,
    labels: list[str],
    row_bucket: np.ndarray | None = None,
) -> Labelled:
    """Each person's whole row run once per (person, value) pair; pairs sorted by person then value.

    With ``row_bucket``, only the rows of the pair's value may start an unordered attempt (``startable``).
    """
    starts, run = _runs(rows.group)
    run_person = rows.group[starts]
    ends = np.append(starts[1:], len(rows))
    slot = np.searchsorted(run_person, persons)
    present = (slot < len(run_person)) & (run_person[np.minimum(slot, len(run_person) - 1)] == persons)
    slot, persons, values = slot[present], persons[present], values[present]
    lengths = ends[slot] - starts[slot]
    total = int(lengths.sum())
    offsets = np.repeat(np.cumsum(lengths) - lengths, lengths)
    index = np.arange(total) - offsets + np.repeat(starts[slot], lengths)
    group = np.repeat(np.arange(len(slot)), lengths)
    startable = row_bucket[index] == np.repeat(values, lengths) if row_bucket is not None else None
    regrouped = FunnelRows(group, rows.ts[index], rows.mask[index], rows.excluded[index], startable)
    return Labelled(regrouped, persons, values, labels)
