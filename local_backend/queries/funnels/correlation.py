"""Funnel correlation: which events (or person properties) go with converting, and which with dropping off.

The persons of the funnel split into successes (they reached the last step) and failures (they entered and
did not). For each event name, the persons who did it during their time in the funnel (after their first
step, and before their last step, or before the end of the window when they did not convert; funnel step
events never count) are counted per side, and a 2x2 table gives the odds ratio with a prior of 1 in each
cell::

    odds_ratio = (success_count + 1) * (failure_total - failure_count + 1)
                 / ((success_total - success_count + 1) * (failure_count + 1))

Above 1 the event goes with success, else with failure. Events seen by fewer persons than
min(25, 2 % of everyone) are left out as insignificant; the result lists the 10 most positive (odds ratio
descending) then the 10 most negative (ascending). ``skewed`` warns that one side outnumbers the other more
than 10 to 1. ``funnel_correlation_type: properties`` does the same with the persons' property values
(``name::value``) of ``funnel_correlation_names`` (``$all`` for every property).

Entry points: :func:`compute_correlation` (the rows with the query of each row's people list, made into URLs
by the route's :data:`.results.PeopleLink`) and :func:`compute_correlation_people`. Both read the funnel's
steps only, for persons (a group funnel is a 400).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from ...errors import ValidationError
from ...store.actions import action_id_of, live_actions
from ...store.engine.choice import event_store
from ...store.engine.interface import PersonEventScan
from .filter import FunnelFilter
from .results import PeopleLink, action_names, linked_params
from .scan import FunnelRun, funnel_spec, run_funnel

__all__ = [
    "CorrelationRow",
    "compute_correlation",
    "compute_correlation_people",
    "correlation_rows",
    "correlation_payload",
    "correlation_actors",
    "odds_ratio",
    "PRIOR_COUNT",
    "MIN_PERSON_COUNT",
    "MIN_PERSON_PERCENTAGE",
]

PRIOR_COUNT = 1
MIN_PERSON_COUNT = 25
MIN_PERSON_PERCENTAGE = 0.02
TOP = 10
CORRELATION_TYPES = ("events", "properties")


@dataclass(frozen=True)
class CorrelationRow:
    name: str
    success_count: int
    failure_count: int
    odds_ratio: float

    @property
    def correlation_type(self) -> str:
        return "success" if self.odds_ratio > 1 else "failure"


def odds_ratio(success_count: int, failure_count: int, success_total: int, failure_total: int) -> float:
    """The smoothed odds ratio of one event (module docstring)."""
    return ((success_count + PRIOR_COUNT) * (failure_total - failure_count + PRIOR_COUNT)) / (
        (success_total - success_count + PRIOR_COUNT) * (failure_count + PRIOR_COUNT)
    )


def _persons(run: FunnelRun) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per person of the funnel: id, converted, and the (exclusive) bounds of their time in the funnel."""
    outcomes = run.outcomes
    persons = run.labelled.group_person[outcomes.group]
    success = outcomes.steps == len(run.steps)
    spec = funnel_spec(run.filter, run.steps)
    window_end = spec.window_end(outcomes.first) + 1
    upper = np.where(success, outcomes.finish, np.minimum(window_end, run.range.end_micros + 1))
    order = np.argsort(persons, kind="stable")
    return persons[order], success[order], outcomes.first[order], upper[order]


def _step_event_names(conn: sqlite3.Connection, project_id: int, run: FunnelRun) -> list[str]:
    names: set[str] = set()
    actions = live_actions(conn, project_id, [step.id for step in run.steps if step.type != "events"])
    for step in run.steps:
        if step.type == "events":
            if step.id is not None:
                names.add(str(step.id))
            continue
        action = actions.get(action_id_of(step.id) or 0)
        if action is not None:
            names.update(str(item["event"]) for item in action["steps"] if item.get("event"))
    return sorted(names)


def _event_pairs(
    conn: sqlite3.Connection, project_id: int, run: FunnelRun, exclude: list[str]
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Distinct (person index, event code) pairs of events done during each person's time in the funnel."""
    persons, _, lower, upper = _persons(run)
    skipped = [*_step_event_names(conn, project_id, run), *exclude]
    marks = ",".join("?" for _ in skipped) or "NULL"
    scan = PersonEventScan(
        project_id=project_id,
        lower=run.range.start_micros,
        upper=run.range.end_micros,
        where=(f"e.event NOT IN ({marks})", skipped),
    )
    rows = list(event_store(conn).person_events(scan))
    if not rows or not len(persons):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), []
    ids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
    ts = np.fromiter((row[1] for row in rows), dtype=np.int64, count=len(rows))
    names: dict[str, int] = {}
    codes = np.fromiter((names.setdefault(row[2], len(names)) for row in rows), dtype=np.int64, count=len(rows))
    slot = np.minimum(np.searchsorted(persons, ids), len(persons) - 1)
    inside = (persons[slot] == ids) & (ts > lower[slot]) & (ts < upper[slot])
    pairs = np.unique(np.stack([slot[inside], codes[inside]], axis=1), axis=0)
    return pairs[:, 0], pairs[:, 1], list(names)


def _property_pairs(
    conn: sqlite3.Connection, project_id: int, run: FunnelRun, names: list[str], exclude: list[str]
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    persons, _, _, _ = _persons(run)
    labels: dict[str, int] = {}
    slots: list[int] = []
    codes: list[int] = []
    position = {int(person): index for index, person in enumerate(persons.tolist())}
    for person_id, properties in event_store(conn).person_properties(project_id, persons.tolist()):
        keys = sorted(properties) if "$all" in names else names
        for key in keys:
            if key in exclude or key not in properties:
                continue
            value = properties[key]
            shown = json.dumps(value) if isinstance(value, dict | list) else str(value).lower() if isinstance(
                value, bool
            ) else str(value)  # fmt: skip
            slots.append(position[int(person_id)])
            codes.append(labels.setdefault(f"{key}::{shown}", len(labels)))
    return np.array(slots, dtype=np.int64), np.array(codes, dtype=np.int64), list(labels)


def correlation_rows(
    conn: sqlite3.Connection, project_id: int, run: FunnelRun, options: dict[str, Any]
) -> tuple[list[CorrelationRow], bool]:
    """The significant rows, best first on each side, and whether the totals are skewed."""
    kind = _correlation_type(options)
    _, success, _, _ = _persons(run)
    success_total = int(success.sum())
    failure_total = int(len(success) - success_total)
    if not success_total or not failure_total:
        return [], True
    skewed = success_total / failure_total > 10 or failure_total / success_total > 10
    if kind == "properties":
        names = _name_list(options, "funnel_correlation_names")
        if not names:
            raise ValidationError(
                "Property correlation needs funnel_correlation_names.", attr="funnel_correlation_names"
            )
        slots, codes, labels = _property_pairs(
            conn, project_id, run, names, _name_list(options, "funnel_correlation_exclude_names")
        )
    else:
        slots, codes, labels = _event_pairs(
            conn, project_id, run, _name_list(options, "funnel_correlation_exclude_event_names")
        )
    won = np.bincount(codes[success[slots]], minlength=len(labels)) if len(codes) else np.zeros(len(labels))
    lost = np.bincount(codes[~success[slots]], minlength=len(labels)) if len(codes) else np.zeros(len(labels))
    floor = min(MIN_PERSON_COUNT, MIN_PERSON_PERCENTAGE * (success_total + failure_total))
    rows = [
        CorrelationRow(label, int(won[code]), int(lost[code]),
                       odds_ratio(int(won[code]), int(lost[code]), success_total, failure_total))
        for code, label in enumerate(labels)
        if won[code] + lost[code] >= floor
    ]  # fmt: skip
    positive = sorted((row for row in rows if row.correlation_type == "success"), key=lambda r: (-r.odds_ratio, r.name))
    negative = sorted((row for row in rows if row.correlation_type == "failure"), key=lambda r: (r.odds_ratio, r.name))
    return positive[:TOP] + negative[:TOP], skewed


def _correlation_type(options: dict[str, Any]) -> str:
    kind = options.get("funnel_correlation_type") or "events"
    if not isinstance(kind, str) or kind.lower() not in CORRELATION_TYPES:
        raise ValidationError(
            f"funnel_correlation_type must be one of {', '.join(CORRELATION_TYPES)}.", attr="funnel_correlation_type"
        )
    return kind.lower()


def _name_list(options: dict[str, Any], key: str) -> list[str]:
    value = options.get(key)
    if value in (None, ""):
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValidationError(f"{key} must be a list of names.", attr=key)
    return value


def _people_params(
    run: FunnelRun, options: dict[str, Any], row: CorrelationRow, success: bool, names: dict[int, str]
) -> dict[str, Any]:
    params = linked_params(run, names)
    for key in ("funnel_correlation_type", "funnel_correlation_names", "funnel_correlation_exclude_names",
                "funnel_correlation_exclude_event_names"):  # fmt: skip
        if options.get(key) not in (None, ""):
            value = options[key]
            params[key] = json.dumps(value) if isinstance(value, list) else value
    params["funnel_correlation_person_converted"] = "true" if success else "false"
    params["funnel_correlation_value"] = row.name
    return params


def correlation_payload(
    conn: sqlite3.Connection, project_id: int, run: FunnelRun, options: dict[str, Any], people_link: PeopleLink
) -> dict:
    """``{"events": [...], "skewed": bool}``: each entry with its counts, odds ratio, side and people URLs."""
    rows, skewed = correlation_rows(conn, project_id, run, options)
    names = action_names(conn, project_id, run.steps)
    return {
        "events": [
            {
                "event": {"event": row.name, "properties": {}, "elements": []},
                "success_count": row.success_count,
                "failure_count": row.failure_count,
                "odds_ratio": row.odds_ratio,
                "correlation_type": row.correlation_type,
                "success_people_url": people_link(_people_params(run, options, row, True, names)),
                "failure_people_url": people_link(_people_params(run, options, row, False, names)),
            }
            for row in rows
        ],
        "skewed": skewed,
    }


def correlation_actors(
    conn: sqlite3.Connection, project_id: int, run: FunnelRun, options: dict[str, Any], value: str, converted: bool
) -> list[int]:
    """The persons behind one correlation count: who did ``value`` and converted (or not), sorted by id."""
    persons, success, _, _ = _persons(run)
    if _correlation_type(options) == "properties":
        names = _name_list(options, "funnel_correlation_names") or ["$all"]
        slots, codes, labels = _property_pairs(conn, project_id, run, names, [])
    else:
        slots, codes, labels = _event_pairs(conn, project_id, run, [])
    if value not in labels:
        return []
    chosen = slots[(codes == labels.index(value)) & (success[slots] == converted)]
    return sorted(set(persons[chosen].tolist()))


def _steps_only(filter: FunnelFilter) -> FunnelFilter:
    """Correlation splits persons by conversion over the whole funnel: no breakdown, the steps view."""
    if filter.aggregation_group_type_index is not None:
        raise ValidationError(
            "Correlation of group funnels is not supported.",
            attr="aggregation_group_type_index",
            code="unsupported",
        )
    return filter.model_copy(update={"breakdown": None, "funnel_viz_type": "steps", "display": None})


def compute_correlation(
    conn: sqlite3.Connection,
    project: dict[str, Any],
    filter: FunnelFilter,
    now: datetime,
    options: dict[str, Any],
    people_link: PeopleLink,
) -> dict:
    """The correlation ``result`` of the funnel ``filter``; ``options`` holds the ``funnel_correlation_*`` keys."""
    run = run_funnel(conn, project, _steps_only(filter), now)
    return correlation_payload(conn, int(project["id"]), run, options, people_link)


def compute_correlation_people(
    conn: sqlite3.Connection,
    project: dict[str, Any],
    filter: FunnelFilter,
    now: datetime,
    options: dict[str, Any],
    value: str,
    converted: bool,
) -> list[int]:
    """The persons behind one correlation count (see :func:`correlation_actors`)."""
    run = run_funnel(conn, project, _steps_only(filter), now)
    return correlation_actors(conn, int(project["id"]), run, options, value, converted)
