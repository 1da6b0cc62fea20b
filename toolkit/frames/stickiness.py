"""Stickiness responses as frames: `stickiness_frame` (tidy) and `wide_stickiness_frame` (one column per series).

A stickiness series answers, for k = 1..N intervals of the range, how many actors did the event in exactly
k of them (k or more when the request is cumulative). The frames keep k as a whole number, the API's label
of it (``2 days``, ``3 weeks or more``) beside it, and name series as trend frames do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ._columns import actor_point, column, keep_people_urls, point_urls, text
from ._responses import response_metadata, response_results
from .trends import TREND_OPTIONAL_COLUMNS, series_names, wide_column_names

__all__ = ["STICKINESS_COLUMNS", "stickiness_frame", "wide_stickiness_frame"]

STICKINESS_COLUMNS = ("intervals", "interval_label", "series", "breakdown_value", "compare_label", "value")
"""Every column a stickiness frame can have; ``breakdown_value`` and ``compare_label`` only when the result
has them."""


def _whole(values: list[Any]) -> bool:
    return all(value is None or (isinstance(value, int | float) and float(value).is_integer()) for value in values)


def stickiness_frame(response: Mapping[str, Any], *, wide: bool = False) -> pd.DataFrame:
    """A stickiness response as a tidy frame (or a wide one).

    Parameters
    ----------
    response : Mapping
        The decoded response of ``insights/trend/`` for a stickiness request, or of the query API for a
        ``StickinessQuery``.
    wide : bool
        Pivot to one column per series (see `wide_stickiness_frame`).

    Returns
    -------
    pandas.DataFrame
        One row per series and number of intervals: ``intervals`` (Int64, k = 1..N), ``interval_label``
        (string, the API's ``1 day``, ``2 days``, ``... or more`` when cumulative), ``series`` (string, named as
        in `toolkit.frames.trend_frame`), ``breakdown_value`` (string; only with a breakdown),
        ``compare_label`` (string ``current``/``previous``; only with compare) and ``value`` (Int64: the
        actors active in exactly k intervals, or in k or more when cumulative). ``attrs`` holds the response
        without its results, plus ``timezone`` and ``actors`` (each series' number of actors, by the
        `wide_stickiness_frame` column name) and, when the answer links its buckets to their people,
        ``people_urls`` (one per row, by position), else ``actor_points`` (each row's ``InsightActorsQuery`` point,
        ``day`` the number of intervals).

    Examples
    --------
    >>> response = {"result": [{"action": {"name": "signup", "order": 0}, "label": "signup", "count": 3,
    ...     "days": [1, 2, 3], "labels": ["1 day", "2 days", "3 days"], "data": [2, 0, 1]}]}
    >>> stickiness_frame(response)[["intervals", "interval_label", "value"]]
       intervals interval_label  value
    0          1          1 day      2
    1          2         2 days      0
    2          3         3 days      1
    """
    series = list(response_results(response) or [])
    names = series_names(series)
    rows: dict[str, list[Any]] = {
        key: [] for key in ("intervals", "interval_label", "series", "breakdown_value", "compare_label", "value")
    }
    urls: list[str | None] = []
    actors: list[dict[str, Any] | None] = []
    for name, item in zip(names, series, strict=True):
        days = list(item.get("days") or range(1, len(item.get("data") or []) + 1))
        urls.extend(point_urls(item, len(days)))
        labels = list(item.get("labels") or [None] * len(days))
        for day, label, value in zip(days, labels, item.get("data") or [], strict=True):
            actors.append(actor_point(item, day))
            rows["intervals"].append(day)
            rows["interval_label"].append(label)
            rows["series"].append(name)
            rows["breakdown_value"].append(item.get("breakdown_value"))
            rows["compare_label"].append(item.get("compare_label"))
            rows["value"].append(value)
    data = {
        "intervals": column(rows["intervals"], "int"),
        "interval_label": column(rows["interval_label"], "string"),
        "series": column(rows["series"], "string"),
    }
    for name in TREND_OPTIONAL_COLUMNS:
        if any(item.get(name) is not None for item in series):
            data[name] = column(rows[name], "string")
    data["value"] = column(rows["value"], "int" if _whole(rows["value"]) else "float")
    frame = pd.DataFrame(data, index=pd.RangeIndex(len(rows["value"])))
    timezone = response.get("timezone") or "UTC"
    frame.attrs = {**response_metadata(response), "timezone": timezone, "actors": _actors(series, names)}
    keep_people_urls(frame, urls, actors)
    return wide_stickiness_frame(frame) if wide else frame


def _actors(series: list[Mapping[str, Any]], names: list[str]) -> dict[str, int]:
    """Each series' number of actors (the API's ``count``), by its wide column name."""
    actors: dict[str, int] = {}
    for name, item in zip(names, series, strict=True):
        key = name
        if item.get("breakdown_value") is not None:
            key += f" - {text(item['breakdown_value'])}"
        if item.get("compare_label") is not None:
            key += f" ({item['compare_label']})"
        actors[key] = int(item.get("count") or 0)
    return actors


def wide_stickiness_frame(tidy: pd.DataFrame) -> pd.DataFrame:
    """Pivot a tidy stickiness frame to one column per series, indexed by ``intervals``.

    Column names are as `toolkit.frames.wide_trend_frame` makes them (``series``, `` - <breakdown value>``,
    `` (<compare label>)``), in the order the series came.

    Examples
    --------
    >>> response = {"result": [{"action": {"name": "a"}, "days": [1, 2], "data": [4, 1]}]}
    >>> wide_stickiness_frame(stickiness_frame(response))["a"].tolist()
    [4, 1]
    """
    label = wide_column_names(tidy)
    order = list(dict.fromkeys(label))
    wide = (
        pd.DataFrame({"intervals": tidy["intervals"], "column": label, "value": tidy["value"]})
        .pivot(index="intervals", columns="column", values="value")
        .reindex(columns=order)
    )
    wide.columns.name = None
    wide.index.name = "intervals"
    wide.attrs = {key: value for key, value in tidy.attrs.items() if key not in ("people_urls", "actor_points")}
    return wide
