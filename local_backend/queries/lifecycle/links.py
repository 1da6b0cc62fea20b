"""The people links of a lifecycle series: ``persons_urls``, one per interval in the order of ``days``.

As PostHog's legacy ``persons/lifecycle/``: the filter with its range pinned to the instants it resolved to,
``target_date`` (the interval's start, as ``days`` shows it), ``lifecycle_type`` (new, returning, resurrecting or
dormant) and ``entity_id``, ``entity_type``, ``entity_math``, ``entity_order``. :func:`.people.lifecycle_people`
answers them.
"""

from __future__ import annotations

from typing import Any

from ..dates import DateRange
from ..people_links import PeopleLink, filter_params, pinned_dates, present
from .filter import LifecycleFilter

__all__ = ["status_links"]


def status_links(
    filter: LifecycleFilter, date_range: DateRange, days: list[str], status: str, link: PeopleLink
) -> list[dict[str, Any]]:
    """``[{filter, url}]`` of one status' series, one per interval."""
    entity = filter.entity
    base = {**filter_params(filter), **pinned_dates(date_range.lower, date_range.date_to)}
    named: dict[str, Any] = {
        "entity_id": entity.id,
        "entity_type": entity.type,
        "entity_math": entity.math or "total",
        "entity_order": entity.index,
        "lifecycle_type": status,
    }
    links = []
    for day in days:
        shown = {**named, "target_date": day}
        links.append({"filter": shown, "url": link(present({**base, **shown}))})
    return links
