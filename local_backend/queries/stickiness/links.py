"""The people links of a stickiness series: ``persons_urls``, one per bucket in the order of ``days``.

As PostHog's legacy ``persons/stickiness/``: the series' filter, its range pinned to the period's instants (a
compared series' links name the previous period, so they carry no ``compare``), ``stickiness_days`` (the
bucket), and ``entity_id``, ``entity_type``, ``entity_math``, ``entity_order`` (and ``breakdown_value``,
``breakdown_offset`` when broken down). :func:`.people.stickiness_people` answers them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..dates import DateRange
from ..people_links import PeopleLink, filter_params, pinned_dates, present
from .filter import StickinessFilter

__all__ = ["bucket_links"]


def bucket_links(
    filter: StickinessFilter, date_range: DateRange, link: PeopleLink, *, offset: int = 0
) -> Callable[[Any], list[dict[str, Any]]]:
    """For a series of the period ``date_range``: ``[{filter, url}]``, one per bucket 1..N."""
    base = {
        **filter_params(filter, leave_out=("compare", "compare_to")),
        **pinned_dates(date_range.lower, date_range.date_to),
    }

    def series_links(item: Any) -> list[dict[str, Any]]:
        entity = item.entity
        named: dict[str, Any] = {
            "entity_id": entity.id,
            "entity_type": entity.type,
            "entity_math": entity.math or "total",
            "entity_order": entity.index,
        }
        if filter.breakdown is not None:
            named["breakdown_value"] = item.breakdown_value
            if offset:
                named["breakdown_offset"] = offset
        links = []
        for days in range(1, item.total + 1):
            shown = {**named, "stickiness_days": days}
            links.append({"filter": shown, "url": link(present({**base, **shown}))})
        return links

    return series_links
