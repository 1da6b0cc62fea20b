"""Lifecycle responses as frames: `lifecycle_frame` (tidy) and `wide_lifecycle_frame` (one column per status).

A lifecycle answers four series over the same buckets: the actors who were **new** (first active in the
interval they were created in), **returning** (active in the interval before too), **resurrecting** (active
again after a gap, or for the first time long after being created) and **dormant** (active in the interval
before and not in this one), the last as negative numbers, as PostHog answers and draws them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ._columns import column, keep_people_urls, point_urls
from ._responses import bucket_dates, response_metadata, response_results
from .trends import series_names

__all__ = ["LIFECYCLE_COLUMNS", "LIFECYCLE_STATUSES", "lifecycle_frame", "wide_lifecycle_frame"]

LIFECYCLE_STATUSES = ("new", "returning", "resurrecting", "dormant")
"""The statuses in PostHog's order (the order of its series and of its stacked bars)."""
LIFECYCLE_COLUMNS = ("date", "status", "value")
"""The columns of a lifecycle frame."""


def _status(item: Mapping[str, Any]) -> str | None:
    """The series' status: the API's ``status``, else the end of its label (``signup - dormant``)."""
    if item.get("status"):
        return str(item["status"])
    ending = str(item.get("label") or "").rsplit(" - ", 1)[-1]
    return ending if ending in LIFECYCLE_STATUSES else None


def lifecycle_frame(response: Mapping[str, Any], *, wide: bool = False) -> pd.DataFrame:
    """A lifecycle response as a tidy frame (or a wide one).

    Parameters
    ----------
    response : Mapping
        The decoded response of ``insights/trend/`` for a lifecycle request, or of the query API for a
        ``LifecycleQuery``.
    wide : bool
        Pivot to one column per status (see `wide_lifecycle_frame`).

    Returns
    -------
    pandas.DataFrame
        One row per status and bucket, the statuses in `LIFECYCLE_STATUSES` order: ``date``
        (datetime64[ns, <project tz>], the bucket start), ``status`` (string) and ``value`` (Int64: actors;
        dormant ones negative). ``attrs`` holds the response without its results, plus ``timezone`` and
        ``series`` (the event's name, as trend frames name a series) and, when the answer links its intervals
        to their people, ``people_urls`` (one per row, by position), else ``actor_points`` (each row's
        ``InsightActorsQuery`` point: ``day``, ``status``).

    Examples
    --------
    >>> response = {"result": [
    ...     {"action": {"name": "signup"}, "status": "new", "days": ["2026-01-05"], "data": [2.0]},
    ...     {"action": {"name": "signup"}, "status": "dormant", "days": ["2026-01-05"], "data": [-1.0]}]}
    >>> lifecycle_frame(response)[["status", "value"]]
        status  value
    0      new      2
    1  dormant     -1
    """
    found = list(response_results(response) or [])
    rank = {status: number for number, status in enumerate(LIFECYCLE_STATUSES)}
    series = sorted(found, key=lambda item: rank.get(_status(item) or "", len(rank)))
    timezone = response.get("timezone") or "UTC"
    days: list[Any] = []
    statuses: list[Any] = []
    values: list[Any] = []
    urls: list[str | None] = []
    actors: list[dict[str, Any] | None] = []
    for item in series:
        urls.extend(point_urls(item, len(item.get("days") or [])))
        for day, value in zip(item.get("days") or [], item.get("data") or [], strict=True):
            actors.append({"series": 0, "day": day, "status": _status(item)})
            days.append(day)
            statuses.append(_status(item))
            values.append(value)
    whole = all(value is None or float(value).is_integer() for value in values)
    frame = pd.DataFrame(
        {
            "date": bucket_dates(days, timezone),
            "status": column(statuses, "string"),
            "value": column(values, "int" if whole else "float"),
        }
    )
    names = series_names(series[:1])
    frame.attrs = {**response_metadata(response), "timezone": timezone, "series": names[0] if names else None}
    keep_people_urls(frame, urls, actors)
    return wide_lifecycle_frame(frame) if wide else frame


def wide_lifecycle_frame(tidy: pd.DataFrame) -> pd.DataFrame:
    """Pivot a tidy lifecycle frame to one column per status (in `LIFECYCLE_STATUSES` order) with a
    DatetimeIndex named ``date``.

    Examples
    --------
    >>> response = {"result": [{"status": "new", "days": ["2026-01-05", "2026-01-06"], "data": [2, 1]}]}
    >>> wide_lifecycle_frame(lifecycle_frame(response)).columns.tolist()
    ['new']
    """
    present = [status for status in LIFECYCLE_STATUSES if status in set(tidy["status"].dropna())]
    others = [status for status in dict.fromkeys(tidy["status"].dropna()) if status not in present]
    wide = tidy.pivot(index="date", columns="status", values="value").reindex(columns=present + others)
    wide.columns.name = None
    wide.index.name = "date"
    wide.attrs = {key: value for key, value in tidy.attrs.items() if key not in ("people_urls", "actor_points")}
    return wide
