"""Shaping computed numbers into PostHog's series objects: labels, cumulative sums, aggregated displays,
formulas, comparison labels and the order of broken-down series."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from ..base_filter import Entity
from ..breakdowns import value_label
from ..buckets import Buckets
from .filter import CUMULATIVE_DISPLAY, TrendsFilter
from .formula import formula_breakdown_order, parse_formula

__all__ = ["RawSeries", "shape_period", "echo_filter", "SeriesLinks"]


@dataclass
class RawSeries:
    """One entity's numbers for one breakdown value (``breakdown_value`` None without a breakdown)."""

    entity: Entity
    data: list[float]
    numeric: bool
    breakdown_value: Any = None
    breakdown_label: str | None = None
    has_more: bool = False


# The people links of one series' points: ``[{filter, url}]``, one per point (one for an aggregated display).
SeriesLinks = Callable[[RawSeries], list[dict[str, Any]]]


def _group_echo(group: Any) -> dict[str, Any]:
    return group.model_dump() if hasattr(group, "model_dump") else {"type": "AND", "values": []}


def echo_filter(filter: TrendsFilter, labels: dict[int, str] | None = None) -> dict[str, Any]:
    """The ``filter`` object of each series: the filter as read, defaults filled in; an action sent without a
    name is named by its label in ``labels`` (entity index -> label: the stored action's name), as its series is."""
    echo: dict[str, Any] = {
        "insight": "TRENDS",
        "events": [_entity_echo(entity) for entity in filter.events],
        "actions": [_entity_echo(entity, labels) for entity in filter.actions],
        "properties": _group_echo(filter.properties),
        "filter_test_accounts": filter.filter_test_accounts,
        "date_from": filter.date_from or "-7d",
        "date_to": filter.date_to,
        "interval": filter.interval,
        "display": filter.display,
    }
    if filter.breakdown is not None:
        echo.update(
            breakdown=filter.breakdown,
            breakdown_type=filter.breakdown_type,
            breakdown_limit=filter.breakdown_limit,
        )
        if filter.breakdown_group_type_index is not None:
            echo["breakdown_group_type_index"] = filter.breakdown_group_type_index
    for key in ("compare", "compare_to", "formula", "aggregation_group_type_index"):
        value = getattr(filter, key)
        if value not in (None, False):
            echo[key] = value
    if filter.explicit_date:
        echo["explicit_date"] = True
    return echo


def _entity_echo(entity: Entity, labels: dict[int, str] | None = None) -> dict[str, Any]:
    echo = entity.echo()
    if echo["name"] is None and labels:
        echo["name"] = labels.get(entity.index)
    echo["properties"] = [_group_echo(entity.properties)] if not entity.properties.is_empty() else []
    return echo


def _value_label(series: RawSeries) -> str:
    if series.breakdown_label is not None:
        return series.breakdown_label
    return value_label(series.breakdown_value)


def _number(value: float | None, numeric: bool) -> float:
    if value is None:
        return 0.0 if numeric else 0
    return float(value) if numeric else int(value)


def _finish(
    filter: TrendsFilter,
    body: dict[str, Any],
    data: list[float],
    buckets: Buckets,
    compare_label: str | None,
    links: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    days = buckets.days
    if filter.is_aggregate:
        body.update(aggregated_value=data[0] if data else 0, count=0, data=[], labels=[], days=days)
        if links:
            body["persons"] = links[0]
    else:
        count = sum(data)
        if filter.display == CUMULATIVE_DISPLAY:
            data = list(accumulate(data))
        labels = [f"{filter.interval} {index}" for index in range(len(days))] if compare_label else buckets.labels
        body.update(count=count, data=data, labels=labels, days=days)
        if links is not None:
            body["persons_urls"] = links
    if compare_label:
        body.update(compare=True, compare_label=compare_label)
    return body


def _sort_key(series: dict[str, Any]) -> tuple[float, str]:
    size = series["aggregated_value"] if "aggregated_value" in series else series["count"]
    first = series.get("breakdown_value") == "all"
    return (0 if first else 1, -float(size or 0), str(series["label"]))


def _sorted(filter: TrendsFilter, series: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(series, key=_sort_key) if filter.uses_breakdown else series


def shape_period(
    filter: TrendsFilter,
    raw: list[RawSeries],
    buckets: Buckets,
    labels: dict[int, str],
    *,
    compare_label: str | None,
    links: SeriesLinks | None = None,
) -> list[dict[str, Any]]:
    """The series objects of one period (the current one, or the previous one of a comparison); ``links``
    gives each entity series its points' people links (a formula's series have none: see :mod:`.actors`)."""
    if filter.formula:
        return _formula_series(filter, raw, buckets, compare_label)
    echo = echo_filter(filter, labels)
    several = len(labels) > 1
    shaped: list[dict[str, Any]] = []
    by_entity: dict[int, list[dict[str, Any]]] = {}
    for series in raw:
        entity_label = labels[series.entity.index]
        action = series.entity.echo()
        if action["name"] is None:  # an action sent without a name carries the stored action's name
            action["name"] = entity_label
        body: dict[str, Any] = {"action": action, "label": entity_label, "filter": echo}
        if series.breakdown_value is not None:
            value_label = _value_label(series)
            body["label"] = f"{entity_label} - {value_label}" if several else value_label
            body["breakdown_value"] = series.breakdown_value
        data = [_number(value, series.numeric) for value in series.data]
        point_links = links(series) if links is not None else None
        finished = _finish(filter, body, data, buckets, compare_label, point_links)
        by_entity.setdefault(series.entity.index, []).append(finished)
    for index in sorted(by_entity):
        shaped.extend(_sorted(filter, by_entity[index]))
    return shaped


def _formula_series(
    filter: TrendsFilter, raw: list[RawSeries], buckets: Buckets, compare_label: str | None
) -> list[dict[str, Any]]:
    """One series per breakdown value found in any entity's series, in PostHog's order (:mod:`.formula`)."""
    assert filter.formula is not None
    count = len(filter.entities)
    formula = parse_formula(filter.formula, count)
    width = 1 if filter.is_aggregate else len(buckets)
    found: list[list[Any]] = [[] for _ in range(count)]
    vectors: dict[Any, dict[int, list[float]]] = {}
    labels: dict[Any, str] = {}
    for series in raw:
        key = series.breakdown_value
        found[series.entity.index].append(key)
        if key not in labels:
            labels[key] = series.breakdown_label or (str(key) if key is not None else "")
        vectors.setdefault(key, {})[series.entity.index] = [float(value or 0) for value in series.data]
    shaped = []
    for key in formula_breakdown_order(found):
        inputs = [vectors[key].get(index, [0.0] * width) for index in range(count)]
        data = formula.evaluate(inputs, width)
        body: dict[str, Any] = {"label": f"Formula ({filter.formula})" if key is None else labels[key]}
        if key is not None:
            body["breakdown_value"] = key
        shaped.append(_finish(filter, body, data, buckets, compare_label))
    return shaped
