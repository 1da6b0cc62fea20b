"""Retention: the per-person pass that fills the cohort-by-period triangle.

Periods are numbered 0..n-1 from the start of the range. For each person the caller supplies the periods
in which they did the target event (``target``), the periods in which they did the returning event
(``returning``), and, for first-time retention, the period of their first target event ever (``first``,
``None`` when it lies before the range).

* recurring (the default): a person belongs to the cohort of every period in which they did the target event;
* first time: a person belongs only to the cohort of the period of their first target event ever.

Row ``i`` has ``n - i`` values: value 0 is the cohort's size, value ``j > 0`` how many of the cohort did the
returning event in period ``i + j``.

Broken down, ``values`` holds the breakdown value of each of the person's target periods (that of their first
target event in the period) and ``cohorts`` the cohort breakdown buckets they belong to; :mod:`.breakdown` splits
the triangle by them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = ["PersonActivity", "compute_retention_counts", "cohorts_of", "RECURRING", "FIRST_TIME"]

RECURRING = "retention_recurring"
FIRST_TIME = "retention_first_time"


@dataclass
class PersonActivity:
    person_id: int
    target: set[int] = field(default_factory=set)
    returning: set[int] = field(default_factory=set)
    first: int | None = None
    values: dict[int, str] = field(default_factory=dict)
    cohorts: tuple[int, ...] = ()


def cohorts_of(person: PersonActivity, retention_type: str) -> set[int]:
    """The periods whose cohort ``person`` joins: every target period, or for first time the first one ever."""
    if retention_type == FIRST_TIME:
        return {person.first} if person.first is not None and person.first in person.target else set()
    return set(person.target)


def compute_retention_counts(
    people: Iterable[PersonActivity], *, periods: int, retention_type: str
) -> tuple[list[list[int]], list[list[list[int]]]]:
    """(counts[i][j], members[i][j]) for cohort ``i`` and offset ``j``; members are person ids, sorted."""
    members: list[list[list[int]]] = [[[] for _ in range(periods - i)] for i in range(periods)]
    for person in people:
        for cohort in cohorts_of(person, retention_type):
            if not 0 <= cohort < periods:
                continue
            members[cohort][0].append(person.person_id)
            for period in person.returning:
                if cohort < period < periods:
                    members[cohort][period - cohort].append(person.person_id)
    for row in members:
        for cell in row:
            cell.sort()
    return [[len(cell) for cell in row] for row in members], members
