"""Retention in numpy: a scan's rows into (person, period) pairs, and the pairs into the triangle.

The same rules as :mod:`.engine` and :mod:`.breakdown`, without a Python object per person: a person joins the
cohort of each period with a target event (first time: only that of their first target event ever, when it is
in the range), carrying the breakdown value of their first target event in that period, and counts in cell
``(cohort, j)`` when they did the returning event ``j`` periods later. Each (person, period) pair is distinct,
so every cell lists each person once, sorted.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import itemgetter
from typing import Any

import numpy as np

from ...store.engine.interface import FlaggedRows
from ..breakdowns import NULL, OTHER
from .breakdown import RetentionBucket
from .engine import FIRST_TIME

__all__ = ["RetentionPairs", "retention_pairs", "pairs_triangle", "split_pairs_by_value"]

Triangle = tuple[list[list[int]], list[list[list[int]]]]


@dataclass(frozen=True)
class RetentionPairs:
    """The cohorts people join (``cohort_persons[k]`` in ``cohort_periods[k]``, under ``cohort_values[k]`` when
    broken down) and the periods they came back in (``back_persons``, ``back_periods``); int64 arrays."""

    cohort_persons: np.ndarray
    cohort_periods: np.ndarray
    back_persons: np.ndarray
    back_periods: np.ndarray
    cohort_codes: np.ndarray | None = None
    """Broken down: each cohort pair's value as its index in :attr:`value_names`."""
    value_names: tuple[str, ...] = ()

    @property
    def cohort_values(self) -> list[str] | None:
        """Each cohort pair's breakdown value (None when not broken down)."""
        if self.cohort_codes is None:
            return None
        return [self.value_names[code] for code in self.cohort_codes.tolist()]


def _value_codes(found: list[Any], chosen: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    """The values ``found[chosen]`` as codes into distinct names, a missing or empty value the null bucket and
    any other value its text (each distinct raw value is named once, not once per row)."""
    if chosen.size == 0:
        return np.zeros(0, dtype=np.int64), ()
    picked = [found[i] for i in chosen.tolist()] if chosen.size == 1 else list(itemgetter(*chosen.tolist())(found))
    distinct = list(dict.fromkeys(picked))
    if not all(value is None or type(value) is str for value in distinct):
        # 1, 1.0 and True are equal keys but read "1", "1.0" and "True": key numbers with their type
        picked = [(type(value), value) for value in picked]
        distinct = list(dict.fromkeys(picked))
        shown = [value for _, value in distinct]
    else:
        shown = distinct
    lookup = {value: index for index, value in enumerate(distinct)}
    codes = np.fromiter(map(lookup.__getitem__, picked), dtype=np.int64, count=len(picked))
    names: dict[str, int] = {}
    remap = [names.setdefault(NULL if value is None or value == "" else str(value), len(names)) for value in shown]
    return np.array(remap, dtype=np.int64)[codes], tuple(names)


def _first_of_each(persons: np.ndarray, periods: np.ndarray) -> np.ndarray:
    """The index of the first row of each distinct (person, period), for rows in person then time order."""
    if persons.size == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.ones(persons.size, dtype=bool)
    starts[1:] = (persons[1:] != persons[:-1]) | (periods[1:] != periods[:-1])
    return np.flatnonzero(starts)


def retention_pairs(
    rows: FlaggedRows, periods: np.ndarray, *, retention_type: str, first: dict[int, int] | None = None
) -> RetentionPairs:
    """The pairs of a retention scan's ``rows`` (bit 1: target, bit 2: returning; in person and time order) in
    ``periods`` (each row's period); ``first``: each person's period of their first target event ever (first
    time retention)."""
    target = np.flatnonzero((rows.flags & 1) == 1)
    starts = target[_first_of_each(rows.actors[target], periods[target])]
    persons, cohorts = rows.actors[starts], periods[starts]
    codes, names = (None, ()) if rows.values is None else _value_codes(rows.values, starts)
    if retention_type == FIRST_TIME:
        firsts = first or {}
        pairs = zip(persons.tolist(), cohorts.tolist(), strict=True)
        keep = np.fromiter((firsts.get(person) == cohort for person, cohort in pairs), dtype=bool, count=persons.size)
        persons, cohorts = persons[keep], cohorts[keep]
        if codes is not None:
            codes = codes[keep]
    back = np.flatnonzero((rows.flags & 2) == 2)
    back = back[_first_of_each(rows.actors[back], periods[back])]
    return RetentionPairs(
        cohort_persons=persons.astype(np.int64),
        cohort_periods=cohorts.astype(np.int64),
        back_persons=rows.actors[back].astype(np.int64),
        back_periods=periods[back].astype(np.int64),
        cohort_codes=codes,
        value_names=names,
    )


def pairs_triangle(pairs: RetentionPairs, chosen: np.ndarray | None, *, periods: int) -> Triangle:
    """``(counts[i][j], members[i][j])`` of the cohort pairs selected by the boolean ``chosen`` (all when None),
    as :func:`.engine.compute_retention_counts` gives them."""
    persons, cohorts = pairs.cohort_persons, pairs.cohort_periods
    if chosen is not None:
        persons, cohorts = persons[chosen], cohorts[chosen]
    inside = (cohorts >= 0) & (cohorts < periods)
    persons, cohorts = persons[inside], cohorts[inside]
    order = np.argsort(pairs.back_persons, kind="stable")
    back_persons, back_periods = pairs.back_persons[order], pairs.back_periods[order]
    low = np.searchsorted(back_persons, persons, side="left")
    high = np.searchsorted(back_persons, persons, side="right")
    lengths = high - low
    owner = np.repeat(np.arange(persons.size), lengths)
    offsets = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    later = back_periods[np.repeat(low, lengths) + offsets]
    came_back = (later > cohorts[owner]) & (later < periods)
    owner, later = owner[came_back], later[came_back]
    cell_cohorts = np.concatenate([cohorts, cohorts[owner]])
    cell_offsets = np.concatenate([np.zeros(cohorts.size, dtype=np.int64), later - cohorts[owner]])
    cell_persons = np.concatenate([persons, persons[owner]])
    cell = cell_cohorts * periods + cell_offsets
    order = np.lexsort((cell_persons, cell))
    cell, cell_persons = cell[order], cell_persons[order]
    edges = np.searchsorted(cell, np.arange(periods * periods + 1))
    members = [
        [cell_persons[edges[i * periods + j] : edges[i * periods + j + 1]].tolist() for j in range(periods - i)]
        for i in range(periods)
    ]
    return [[len(cell) for cell in row] for row in members], members


def split_pairs_by_value(pairs: RetentionPairs, *, periods: int, limit: int) -> list[RetentionBucket]:
    """The triangles of the ``limit`` largest breakdown values, then Other when more exist (:mod:`.breakdown`:
    values ranked by the cohort pairs filed under them, largest first, ties by value)."""
    names = pairs.value_names
    codes = pairs.cohort_codes if pairs.cohort_codes is not None else np.zeros(0, dtype=np.int64)
    inside = (pairs.cohort_periods >= 0) & (pairs.cohort_periods < periods)
    sizes = np.bincount(codes[inside], minlength=len(names)).tolist()
    counted = [(size, name, code) for code, (name, size) in enumerate(zip(names, sizes, strict=True)) if size]
    ranked = sorted(counted, key=lambda item: (-item[0], item[1]))
    shown, rest = [name for _, name, _ in ranked[:limit]], ranked[limit:]
    rank = np.full(len(names), -1, dtype=np.int64)
    for index, (_, _, code) in enumerate(ranked):
        rank[code] = index
    value_codes = rank[codes]
    buckets: list[RetentionBucket] = []
    for index, value in enumerate(shown):
        buckets.append(RetentionBucket(value, *pairs_triangle(pairs, value_codes == index, periods=periods)))
    if rest:
        buckets.append(RetentionBucket(OTHER, *pairs_triangle(pairs, value_codes >= limit, periods=periods)))
    return buckets
