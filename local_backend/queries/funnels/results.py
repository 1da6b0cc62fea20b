"""A computed funnel as the API answers it: step objects, funnel trends, or the time-to-convert histogram.

Every step object links to its people: ``converted_people_url`` (``funnel_step`` = step + 1: those who reached
the step) and ``dropped_people_url`` (``funnel_step`` = -(step + 1): those who reached the step before and not
this one; null on the first step). The links carry the funnel's filter with its dates pinned to the instants
they resolved to, so they keep naming the same people later on. The parameters are made here; the URL is
the caller's (a :data:`PeopleLink` from the route, which owns the persons endpoint's path).

Entry points: :func:`compute_funnel` (the result), :func:`funnel_payload` (a saved insight's filter dict); the
persons behind one people URL are :mod:`.people`'s.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

import numpy as np

from ...store.actions import live_actions
from ..base_filter import Entity
from ..filter_parsing import parse_filter
from .breakdown import OTHER
from .engine import UNORDERED, Attempts
from .filter import FunnelFilter
from .outcomes import Outcomes, conversion_bins, step_numbers, trend_periods
from .scan import FunnelRun, run_funnel

__all__ = [
    "PeopleLink",
    "compute_funnel",
    "funnel_result",
    "funnel_payload",
    "encode_step_breakdown",
    "bucket_outcomes",
    "breakdown_value_of",
    "people_params",
    "linked_params",
    "action_names",
    "MAX_BREAKDOWN_VALUES",
]

# The URL of a people list from its query parameters; routes make it from their own path.
PeopleLink = Callable[[dict[str, Any]], str]

MAX_BREAKDOWN_VALUES = 100
_NOT_LINKED = ("funnel_step", "funnel_step_breakdown", "date_from", "date_to", "explicit_date")


def bucket_outcomes(run: FunnelRun) -> list[tuple[int | None, Outcomes]]:
    """``(bucket, outcomes)`` per breakdown value, best converting first; ``[(None, all)]`` without breakdown."""
    if not run.broken_down or run.filter.viz_type == "time_to_convert":
        return [(None, run.outcomes)]
    values = run.labelled.group_value[run.outcomes.group]
    buckets = sorted(set(values.tolist()))
    parts = [(bucket, run.outcomes.subset(values == bucket)) for bucket in buckets]
    size = len(run.steps)

    def exact_counts(item: tuple[int, Outcomes]) -> tuple[int, ...]:
        tally = np.bincount(item[1].steps, minlength=size + 1)
        return tuple(-int(tally[k]) for k in range(size, 0, -1))

    return sorted(parts, key=exact_counts)[:MAX_BREAKDOWN_VALUES]


def breakdown_value_of(run: FunnelRun, bucket: int) -> tuple[Any, Any]:
    """``(breakdown, breakdown_value)`` of one bucket as the API shows them."""
    labels = run.labelled.values
    label = labels[bucket] if bucket < len(labels) else OTHER
    filter = run.filter
    kind = filter.breakdown_type or "event"
    if kind == "cohort":
        value, name = json.loads(label)  # the cohort id ("all" for everyone) and its name
        return name, value
    if isinstance(filter.breakdown, list):
        boxed = [OTHER] if label == OTHER else json.loads(label)
        return boxed, boxed
    if kind in ("group", "session"):
        return label, label
    if (filter.insight or "").upper() == "FUNNELS" and kind in ("event", "person"):
        return label, label
    return [label], [label]


def _named(entities: Any, action_names: Mapping[int, str]) -> Any:
    """Entities as a link echoes them: one sent without a name is named as its step is (event id, action name)."""
    if not isinstance(entities, list):
        return entities
    named = []
    for entity in entities:
        if isinstance(entity, dict) and entity.get("name") is None:
            if entity.get("type", "events") == "actions":
                name = action_names.get(entity.get("id"))  # type: ignore[arg-type]
            else:
                name = "All events" if entity.get("id") is None else str(entity["id"])
            entity = {**entity, "name": name} if name is not None else entity
        named.append(entity)
    return named


def linked_params(run: FunnelRun, action_names: Mapping[int, str] | None = None) -> dict[str, Any]:
    """The funnel's filter as query parameters of a people link, its range pinned to exact instants.

    Its entities carry a ``name`` as the steps do (``action_names`` gives the stored name of each action).
    """
    data = run.filter.model_dump(exclude_none=True, exclude_defaults=True)
    for key in ("events", "actions"):
        if key in data:
            data[key] = _named(data[key], action_names or {})
    params = {
        key: json.dumps(value) if isinstance(value, list | dict) else value
        for key, value in data.items()
        if key not in _NOT_LINKED
    }
    params["date_from"] = run.range.start.replace(tzinfo=None).isoformat()
    params["date_to"] = run.range.end.replace(tzinfo=None).isoformat()
    params["explicit_date"] = "true"
    return params


def people_params(
    run: FunnelRun,
    step: int,
    breakdown_value: Any = None,
    action_names: Mapping[int, str] | None = None,
) -> dict[str, Any]:
    """The query of the people list for ``funnel_step`` = ``step`` (negative: dropped before ``-step``)."""
    params = linked_params(run, action_names)
    params["funnel_step"] = step
    if breakdown_value is not None:
        params["funnel_step_breakdown"] = encode_step_breakdown(breakdown_value)
    return params


def encode_step_breakdown(value: Any) -> str:
    """``funnel_step_breakdown`` as a query parameter, as PostHog sends it: text as it is, anything else (or a
    text that would read as JSON, or the empty text, which would read as no value) as JSON.

    >>> encode_step_breakdown("Chrome"), encode_step_breakdown(["Chrome", "Mac"]), encode_step_breakdown("")
    ('Chrome', '["Chrome", "Mac"]', '""')
    """
    if isinstance(value, str) and value and not value.startswith(("[", "{", '"')):
        return value
    return json.dumps(value)


def action_names(conn: sqlite3.Connection, project_id: int, steps: list[Entity]) -> dict[int, str]:
    """The stored name of each action among ``steps``."""
    actions = live_actions(conn, project_id, [step.id for step in steps if step.type == "actions"])
    return {action_id: action["name"] for action_id, action in actions.items()}


def _steps(
    conn: sqlite3.Connection, project_id: int, run: FunnelRun, bucket: int | None, outcomes: Outcomes, link: PeopleLink
) -> list:
    numbers = step_numbers(outcomes, len(run.steps))
    names = action_names(conn, project_id, run.steps)
    breakdown, value = breakdown_value_of(run, bucket) if bucket is not None else (None, None)
    unordered = run.filter.funnel_order_type == UNORDERED
    result = []
    for index, (step, number) in enumerate(zip(run.steps, numbers, strict=True)):
        if unordered:
            plural = "step" if index == 0 else "steps"
            action_id, name, custom_name = None, f"Completed {index + 1} {plural}", None
        else:
            action_id = step.id
            name = names.get(step.id, str(step.id)) if step.type == "actions" else step.id  # type: ignore[arg-type]
            custom_name = step.custom_name
        item: dict[str, Any] = {
            "action_id": action_id,
            "name": name,
            "custom_name": custom_name,
            "order": index,
            "people": [],
            "count": number.count,
            "type": step.type,
            "average_conversion_time": number.average_conversion_time,
            "median_conversion_time": number.median_conversion_time,
            "converted_people_url": link(people_params(run, index + 1, value, names)),
            "dropped_people_url": link(people_params(run, -(index + 1), value, names)) if index else None,
        }
        if bucket is not None:
            item["breakdown"] = breakdown
            item["breakdown_value"] = value
        result.append(item)
    return result


def _trend_items(run: FunnelRun, bucket: int | None) -> dict[str, Any]:
    last = len(run.steps) - 1
    low = run.filter.funnel_from_step or 0
    high = run.filter.funnel_to_step if run.filter.funnel_to_step is not None else last
    attempts: Attempts = run.attempts
    if bucket is not None:
        keep = run.labelled.group_value[attempts.group] == bucket
        attempts = attempts.subset(keep)
    periods = trend_periods(attempts, run.range.period_of, len(run.range.period_starts), low, high)
    hourly = run.filter.interval == "hour"
    return {
        "count": len(periods),
        "data": [period.conversion_rate for period in periods],
        "days": [moment.strftime("%Y-%m-%d %H:%M:%S" if hourly else "%Y-%m-%d") for moment in run.range.period_starts],
        "labels": [f"{moment.day}-{moment.strftime('%b')}-{moment.year}" for moment in run.range.period_starts],
        "reached_from_step_count": [period.reached_from_step_count for period in periods],
        "reached_to_step_count": [period.reached_to_step_count for period in periods],
    }


def funnel_result(conn: sqlite3.Connection, project_id: int, run: FunnelRun, people_link: PeopleLink) -> Any:
    """The ``result`` of the funnel response for the filter's visualisation."""
    viz = run.filter.viz_type
    if viz == "time_to_convert":
        last = len(run.steps) - 1
        high = run.filter.funnel_to_step if run.filter.funnel_to_step is not None else last
        bins, average = conversion_bins(run.outcomes, run.filter.funnel_from_step or 0, high, run.filter.bin_count)
        return {"bins": bins, "average_conversion_time": average}
    if viz == "trends":
        if not run.broken_down:
            return [_trend_items(run, None)]
        buckets = sorted(set(run.labelled.group_value[run.attempts.group].tolist()))
        items = []
        for bucket in buckets:
            # ``breakdown`` as the steps show it: a cohort's name beside its id, else the value again
            breakdown, value = breakdown_value_of(run, bucket)
            items.append({**_trend_items(run, bucket), "breakdown": breakdown, "breakdown_value": value})
        return items
    parts = bucket_outcomes(run)
    if not run.broken_down:
        return _steps(conn, project_id, run, None, parts[0][1], people_link)
    return [_steps(conn, project_id, run, bucket, outcomes, people_link) for bucket, outcomes in parts]


def compute_funnel(
    conn: sqlite3.Connection, project: dict[str, Any], filter: FunnelFilter, now: datetime, people_link: PeopleLink
) -> Any:
    """The ``result`` of the funnel response: step objects (a list per breakdown value), trends or the histogram."""
    return funnel_result(conn, int(project["id"]), run_funnel(conn, project, filter, now), people_link)


def funnel_payload(
    conn: sqlite3.Connection, project: dict[str, Any], data: dict[str, Any], now: datetime, people_link: PeopleLink
) -> dict[str, Any]:
    """``{"result", "timezone"}`` for a legacy funnel filter given as a dict (a saved insight's ``filters``)."""
    result = compute_funnel(conn, project, parse_filter(FunnelFilter, data), now, people_link)
    return {"result": result, "timezone": project.get("timezone") or "UTC"}
