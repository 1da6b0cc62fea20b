"""Retention broken down: one triangle per breakdown value, no SQL.

A property breakdown (event, person, group, HogQL) files each (person, cohort) pair under the value its cohort's
start event carries: the person's first target event in the cohort's period (for first-time retention that is
their first target event ever). Coming back is counted whatever the returning event carries, as PostHog counts
it. A missing or empty value is the null bucket (:data:`..breakdowns.NULL`). Values are ranked by the cohort
sizes they hold in all (the pairs filed under them), largest first, ties by value ascending; the first
``breakdown_limit`` are shown and the rest are merged into Other (:data:`..breakdowns.OTHER`), shown last. That
split is counted in numpy (:func:`.pairs.split_pairs_by_value`); this module holds the shape of a triangle and
the cohort split.

A cohort breakdown has one triangle per cohort listed (``all``: everyone), in the order given; a person counts
under every listed cohort they are a member of.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .engine import PersonActivity, compute_retention_counts

__all__ = ["RetentionBucket", "split_by_cohort"]


@dataclass(frozen=True)
class RetentionBucket:
    """One breakdown value's triangle: its counts and members, as :func:`.engine.compute_retention_counts` gives."""

    value: Any
    counts: list[list[int]]
    members: list[list[list[int]]]


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
