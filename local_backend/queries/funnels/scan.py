"""Funnels from stored events: one ordered scan of the range's step events, then the per-person pass.

The scan reads only events that match a step or an exclusion (every event of the range for strict funnels,
whose steps must follow each other directly), in ``(person, timestamp)`` order, from the event store
(:meth:`~local_backend.store.engine.interface.EventStore.flagged_rows`) as integer columns: the person, the
timestamp and the bits of the steps and exclusions the event matches (plus the breakdown value when broken
down). Events on the same microsecond are put in step order here, not by the store (SQLite's index would
order them by event name).
:mod:`.engine` then finds every attempt and :mod:`.outcomes` reduces them.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from ...errors import ValidationError
from ...guard import check_deadline
from ...store.engine.choice import event_store
from ...store.engine.interface import FlaggedScan
from ..actions import event_names
from ..base_filter import Entity
from .breakdown import Labelled, attribute, bucket_values, by_membership, unlabelled
from .engine import STRICT, UNORDERED, Attempts, ExclusionSpan, FunnelRows, FunnelSpec, compute_attempts, tie_keys
from .filter import FunnelFilter
from .inputs import (
    FunnelRange,
    breakdown_expression,
    cohort_members,
    compiler_for,
    filter_condition,
    is_same_or_wider,
    resolve_funnel_range,
    step_condition,
    window_end,
)
from .outcomes import Outcomes, reduce_attempts

__all__ = ["FunnelRun", "run_funnel", "validate_funnel", "funnel_spec"]

MAX_STEPS = 30
MAX_WINDOW_DAYS = 36_600  # a century: beyond it, window arithmetic would leave the calendar
WINDOW_UNIT_DAYS = {"second": 1 / 86400, "minute": 1 / 1440, "hour": 1 / 24, "day": 1, "week": 7, "month": 31}


@dataclass(frozen=True)
class FunnelRun:
    """Everything shaped results and people lists are made of."""

    filter: FunnelFilter
    steps: list[Entity]
    range: FunnelRange
    labelled: Labelled
    attempts: Attempts
    outcomes: Outcomes
    group_keys: list[str] | None = None  # group funnels: the key of each group number

    @property
    def broken_down(self) -> bool:
        return self.filter.breakdown not in (None, "", [])


def validate_funnel(filter: FunnelFilter) -> list[Entity]:
    """The steps, after the checks that need the whole filter (each failure a 400 naming its field)."""
    steps = filter.steps
    if not steps:
        raise ValidationError("A funnel needs at least one step in events or actions.", attr="events", code="required")
    if len(steps) > MAX_STEPS:
        raise ValidationError(f"A funnel has at most {MAX_STEPS} steps.", attr="events")
    last = len(steps) - 1
    if len(filter.exclusions) > MAX_STEPS:
        raise ValidationError(f"A funnel has at most {MAX_STEPS} exclusions.", attr="exclusions")
    for index, exclusion in enumerate(filter.exclusions):
        attr = f"exclusions__{index}"
        low, high = exclusion.funnel_from_step, exclusion.funnel_to_step
        if low is None or high is None:
            raise ValidationError("An exclusion needs funnel_from_step and funnel_to_step.", attr=attr)
        if low < 0 or low >= high:
            raise ValidationError("An exclusion's funnel_to_step must be after its funnel_from_step.", attr=attr)
        if low >= last or high > last:
            raise ValidationError(f"An exclusion's steps must lie between 0 and {last}.", attr=attr)
        if filter.funnel_order_type == UNORDERED and (low, high) != (0, last):
            raise ValidationError(
                f"Exclusions of unordered funnels must span the whole funnel (0 to {last}).", attr=attr
            )
        for step in steps[low : high + 1]:
            if is_same_or_wider(exclusion, step):
                raise ValidationError("An exclusion cannot be the same event as a step it spans.", attr=attr)
    if filter.viz_type == "time_to_convert":
        low = filter.funnel_from_step or 0
        high = filter.funnel_to_step if filter.funnel_to_step is not None else last
        if high < 1 or high > last:
            raise ValidationError(f"funnel_to_step must lie between 1 and {last}.", attr="funnel_to_step")
        if low >= high:
            raise ValidationError("funnel_from_step must be before funnel_to_step.", attr="funnel_from_step")
    if filter.viz_type == "trends":
        low = filter.funnel_from_step or 0
        high = filter.funnel_to_step if filter.funnel_to_step is not None else last
        if high > last:
            raise ValidationError(f"funnel_to_step must lie between 0 and {last}.", attr="funnel_to_step")
        if low > high:
            raise ValidationError("funnel_from_step must not be after funnel_to_step.", attr="funnel_from_step")
    amount, unit = filter.window
    if amount * WINDOW_UNIT_DAYS[unit] > MAX_WINDOW_DAYS:
        from_days = filter.funnel_window_interval is None and filter.funnel_window_days is not None
        field = "funnel_window_days" if from_days and unit == "day" else "funnel_window_interval"
        raise ValidationError(f"The conversion window is at most {MAX_WINDOW_DAYS} days.", attr=field)
    if filter.bin_count is not None and filter.bin_count < 1:
        raise ValidationError("bin_count must be at least 1.", attr="bin_count")
    if filter.breakdown_attribution_type == "step":
        value = filter.breakdown_attribution_value
        if value is None or value > last:
            raise ValidationError(
                f"Step attribution needs breakdown_attribution_value between 0 and {last}.",
                attr="breakdown_attribution_value",
            )
        if filter.funnel_order_type == UNORDERED and value != 0:
            raise ValidationError(
                "An unordered funnel has no fixed step order: step attribution uses step 0, the event each "
                "attempt starts at.",
                attr="breakdown_attribution_value",
            )
    if filter.aggregation_group_type_index is not None and filter.breakdown_type == "cohort":
        raise ValidationError("Cohort breakdowns count persons, not groups.", attr="breakdown_type")
    return steps


def funnel_spec(filter: FunnelFilter, steps: list[Entity]) -> FunnelSpec:
    amount, unit = filter.window
    return FunnelSpec(
        steps=len(steps),
        order=filter.funnel_order_type,
        window_end=window_end(amount, unit),
        strictly_after=(False, *(is_same_or_wider(steps[i], steps[i - 1]) for i in range(1, len(steps)))),
        exclusions=tuple(ExclusionSpan(e.funnel_from_step or 0, e.funnel_to_step or 0) for e in filter.exclusions),
    )


def _bare_names(entities: list[Entity]) -> list[str] | None:
    """Each entity's event name when every entity is a bare event name (the store may then flag by name alone)."""
    if not all(e.type == "events" and e.id is not None and e.properties.is_empty() for e in entities):
        return None
    return [str(entity.id) for entity in entities]


def _scan(
    conn: sqlite3.Connection,
    project: dict[str, Any],
    filter: FunnelFilter,
    steps: list[Entity],
    span: FunnelRange,
) -> tuple[FunnelRows, list[Any] | None, list[Any] | None]:
    """The range's rows in (target, timestamp) order, each row's breakdown value when broken down, and for
    group funnels the group key behind each group number.

    Each row's step bits and exclusion bits come from the event store as one integer (exclusions above the
    steps).
    """
    compiler = compiler_for(conn, project)
    entities: list[Entity] = [*steps, *filter.exclusions]
    attrs = [f"events__{i}" for i in range(len(steps))] + [f"exclusions__{i}" for i in range(len(filter.exclusions))]
    parts = [step_condition(compiler, entity, attr) for entity, attr in zip(entities, attrs, strict=True)]
    with_values = filter.breakdown not in (None, "", []) and filter.breakdown_type != "cohort"
    strict = filter.funnel_order_type == STRICT
    scan = FlaggedScan(
        project_id=int(project["id"]),
        lower=span.start_micros,
        upper=span.end_micros,
        where=filter_condition(compiler, project, filter),
        flags=parts,
        only_flagged=not strict,
        flag_events=_bare_names(entities),
        events=None if strict else event_names(conn, project["id"], [(e.type, e.id) for e in entities]),
        group_type_index=filter.aggregation_group_type_index,
        value=breakdown_expression(filter, compiler) if with_values else None,
    )
    found = event_store(conn).flagged_rows(scan)
    actors, ts, flags, values, keys = found.actors, found.timestamps, found.flags, found.values, found.keys
    del found  # so that ``del flags`` below frees that column
    count = len(steps)
    # step and exclusion bits fit 32 bits (at most 30 of each); no exclusions need no more than a byte of zeros
    mask = (flags & ((1 << count) - 1)).astype(np.int32)
    excluded = (flags >> count).astype(np.int32) if filter.exclusions else np.zeros(len(flags), dtype=np.int8)
    del flags
    rows = FunnelRows(actors, ts, mask, excluded)
    order = _step_order(rows, count)
    if order is not None:
        rows = _take(rows, order)
        values = [values[i] for i in order] if values is not None else None
    return rows, values, keys


def _take(rows: FunnelRows, order: np.ndarray) -> FunnelRows:
    return FunnelRows(rows.group[order], rows.ts[order], rows.mask[order], rows.excluded[order])


def _step_order(rows: FunnelRows, steps: int) -> np.ndarray | None:
    """The permutation putting same-time rows of a target in step order, or None when they already are."""
    if len(rows) < 2:
        return None
    keys = tie_keys(rows.mask, steps)
    tied = (rows.group[1:] == rows.group[:-1]) & (rows.ts[1:] == rows.ts[:-1])
    if not (tied & (keys[1:] < keys[:-1])).any():
        return None
    return np.lexsort((keys, rows.ts, rows.group))


def _value_text(value: Any) -> str:
    return "" if value is None else str(value)


def _blank_list(breakdown: Any) -> str:
    """The value text of an event carrying none of a list breakdown's properties (as
    :meth:`~local_backend.store.engine.sqlite.dialect.Dialect.text_array` writes it)."""
    return json.dumps([""] * len(breakdown), separators=(",", ":")) if isinstance(breakdown, list) else ""


def _list_key(text: str) -> list[str]:
    """A list value's JSON text as the list it is, so that values compare element by element."""
    return [str(item) for item in json.loads(text)]


def _label(
    conn: sqlite3.Connection, project: dict[str, Any], filter: FunnelFilter, rows: FunnelRows, values: list[Any] | None
) -> Labelled:
    if filter.breakdown in (None, "", []):
        return unlabelled(rows)
    if filter.breakdown_type == "cohort":
        pairs, splits = cohort_members(conn, compiler_for(conn, project), project, filter)
        pairs.sort()
        persons = np.array([person for person, _ in pairs], dtype=np.int64)
        buckets = np.array([index for _, index in pairs], dtype=np.int64)
        labels = [json.dumps([split.value, split.label]) for split in splits]
        return by_membership(rows, persons, buckets, labels)
    texts = [_value_text(value) for value in values or []]
    names: dict[str, int] = {}
    codes = np.array([names.setdefault(text, len(names)) for text in texts], dtype=np.int64)
    ordered_names = list(names)
    blank = {"", '[""]', _blank_list(filter.breakdown)}
    empty = np.array([text in blank for text in texts], dtype=bool) if texts else np.zeros(0, dtype=bool)
    attribution = filter.breakdown_attribution_type
    if attribution == "step" and filter.funnel_order_type != UNORDERED:
        counted = (rows.mask >> (filter.breakdown_attribution_value or 0)) & 1 == 1
    else:
        counted = rows.mask != 0
    value_key = _list_key if isinstance(filter.breakdown, list) else str
    bucket, labels = bucket_values(codes, ordered_names, counted, filter.breakdown_limit, value_key)
    unordered = filter.funnel_order_type == UNORDERED
    step = filter.breakdown_attribution_value or 0
    return attribute(rows, bucket[codes], empty, labels, attribution, step, unordered=unordered)


def run_funnel(conn: sqlite3.Connection, project: dict[str, Any], filter: FunnelFilter, now: datetime) -> FunnelRun:
    """Scan, attribute, and compute every attempt and every group's outcome."""
    steps = validate_funnel(filter)
    span = resolve_funnel_range(conn, filter, project, now)
    rows, values, keys = _scan(conn, project, filter, steps, span)
    # a time-to-convert histogram is one distribution of persons, whatever the breakdown
    labelled = unlabelled(rows) if filter.viz_type == "time_to_convert" else _label(conn, project, filter, rows, values)
    spec = funnel_spec(filter, steps)
    attempts = compute_attempts(labelled.rows, spec, before_chunk=check_deadline)
    outcomes = reduce_attempts(attempts, len(steps))
    return FunnelRun(filter, steps, span, labelled, attempts, outcomes, keys)
