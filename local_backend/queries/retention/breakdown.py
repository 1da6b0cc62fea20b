"""Retention broken down: one triangle per breakdown value, no SQL.

A property breakdown (event, person, group, HogQL) files each (person, cohort) pair under the value its cohort's
start event carries: the person's first target event in the cohort's period (for first-time retention that is
their first target event ever). Coming back is counted whatever the returning event carries, as PostHog counts
it. A missing or empty value is the null bucket (:data:`..breakdowns.NULL`). Values are ranked by the cohort
sizes they hold in all (the pairs filed under them), largest first, ties by value ascending; the first
``breakdown_limit`` are shown and the rest are merged into Other (:data:`..breakdowns.OTHER`), shown last.

A cohort breakdown has one triangle per cohort listed (``all``: everyone), in the order given; a person counts
under every listed cohort they are a member of.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..breakdowns import NULL, OTHER
from .engine import PersonActivity, cohorts_of, compute_retention_counts

__all__ = ["RetentionBucket", "split_by_value", "split_by_cohort"]


@dataclass(frozen=True)
class RetentionBucket:
    """One breakdown value's triangle: its counts and members, as :func:`.engine.compute_retention_counts` gives."""

    value: Any
    counts: list[list[int]]
    members: list[list[list[int]]]


def _rank(people: Sequence[PersonActivity], periods: int, retention_type: str) -> list[str]:
    sizes: Counter[str] = Counter()
    for person in people:
        for cohort in cohorts_of(person, retention_type):
            if 0 <= cohort < periods:
                sizes[person.values.get(cohort, NULL)] += 1
    return [value for value, _ in sorted(sizes.items(), key=lambda item: (-item[1], item[0]))]


def _filed_under(person: PersonActivity, chosen: set[str]) -> PersonActivity:
    """The person with only the target periods whose value is one of ``chosen``."""
    target = {period for period in person.target if person.values.get(period, NULL) in chosen}
    return PersonActivity(person.person_id, target=target, returning=person.returning, first=person.first)


def split_by_value(
    people: Sequence[PersonActivity], *, periods: int, retention_type: str, limit: int
) -> list[RetentionBucket]:
    """The triangles of the ``limit`` largest values, then Other when more values exist (module docstring)."""
    ranked = _rank(people, periods, retention_type)
    shown, rest = ranked[:limit], set(ranked[limit:])
    buckets: list[tuple[Any, set[str]]] = [(value, {value}) for value in shown]
    if rest:
        buckets.append((OTHER, rest))
    found = []
    for value, chosen in buckets:
        counts, members = compute_retention_counts(
            (_filed_under(person, chosen) for person in people), periods=periods, retention_type=retention_type
        )
        found.append(RetentionBucket(value, counts, members))
    return found


def split_by_cohort(
    people: Sequence[PersonActivity], values: Sequence[Any], *, periods: int, retention_type: str
) -> list[RetentionBucket]:
    """One triangle per cohort of ``values`` (its position in ``person.cohorts``), in order."""
    found = []
    for index, value in enumerate(values):
        counts, members = compute_retention_counts(
            (person for person in people if index in person.cohorts), periods=periods, retention_type=retention_type
        )
        found.append(RetentionBucket(value, counts, members))
    return found
