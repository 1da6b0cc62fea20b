"""Shaping stickiness numbers into PostHog's series: ``data``, ``days`` (1..N), ``labels``, ``count``, ``label``,
``action``, ``breakdown_value`` when broken down and ``compare``/``compare_label`` when compared.

``count`` is the number of actors of the series (the sum of the exact buckets, also when ``data`` is
cumulative). Broken-down series of one entity come largest first (by ``count``, then label), as trends'.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..breakdowns import value_label
from .engine import interval_labels, stickiness_counts
from .filter import StickinessFilter

__all__ = ["shape_series"]


def _action(raw: Any, label: str) -> dict[str, Any]:
    action = raw.entity.echo()
    if action["name"] is None:  # an action sent without a name carries the stored action's name
        action["name"] = label
    return action


def _sort_key(series: dict[str, Any]) -> tuple[int, int, str]:
    return (0 if series.get("breakdown_value") == "all" else 1, -int(series["count"]), str(series["label"]))


def shape_series(
    filter: StickinessFilter,
    raw: list[Any],
    labels: dict[int, str],
    *,
    compare_label: str | None,
    links: Callable[[Any], list[dict[str, Any]]] | None = None,
) -> list[dict[str, Any]]:
    """The series of one entity in one period (:class:`.compute.ActorIntervals` each); ``links`` gives each
    series' buckets their people links (:mod:`.people`)."""
    several = len(labels) > 1
    shaped = []
    for item in raw:
        entity_label = labels[item.entity.index]
        data = stickiness_counts(item.intervals, item.total, cumulative=filter.cumulative)
        body: dict[str, Any] = {
            "action": _action(item, entity_label),
            "label": entity_label,
            "count": len(item.intervals),
            "data": data,
            "labels": interval_labels(item.total, filter.interval, cumulative=filter.cumulative),
            "days": list(range(1, item.total + 1)),
        }
        if links is not None:
            body["persons_urls"] = links(item)
        if filter.breakdown is not None:
            shown = item.breakdown_label if item.breakdown_label is not None else value_label(item.breakdown_value)
            body["label"] = f"{entity_label} - {shown}" if several else shown
            body["breakdown_value"] = item.breakdown_value
        if compare_label:
            body.update(compare=True, compare_label=compare_label)
        shaped.append(body)
    return sorted(shaped, key=_sort_key) if filter.breakdown is not None else shaped
