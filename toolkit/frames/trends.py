"""Trend responses as frames: `trend_frame` (tidy), `wide_trend_frame` (one column per series) and
`complete_trend_frame` (every optional column back).

Dates are bucket starts in the project's timezone (``attrs["timezone"]``); values are Int64 when every series
counts (events, persons, groups or sessions) and float64 otherwise (property maths, formulas, smoothed counts).
A series that does not count events has its math in its name (``purchase: sum of amount``); a cohort
breakdown keeps the cohort id in ``breakdown_value`` and its name in ``attrs["breakdown_labels"]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ..labels import COUNT_MATHS, bucket_rank, series_name
from ._columns import actor_point, column, keep_people_urls, point_urls, text
from ._responses import bucket_dates, response_metadata, response_results

__all__ = [
    "TREND_COLUMNS",
    "TREND_OPTIONAL_COLUMNS",
    "complete_trend_frame",
    "series_names",
    "trend_frame",
    "wide_column_names",
    "wide_trend_frame",
]

TREND_COLUMNS = ("date", "series", "breakdown_value", "compare_label", "value")
"""Every column a trend frame can have; ``breakdown_value`` and ``compare_label`` only when the result has them."""
TREND_OPTIONAL_COLUMNS = ("breakdown_value", "compare_label")


def series_names(series: Sequence[Mapping[str, Any]]) -> list[str]:
    """A name per series: the custom name, else the entity's name with its math when that is not the total
    count (``purchase: sum of amount``); ``#n`` tells apart two entities that would read the same.

    Examples
    --------
    >>> series_names([{"action": {"name": "a", "order": 0}}, {"action": {"name": "a", "order": 1}}])
    ['a (#1)', 'a (#2)']
    """
    names: list[str] = []
    for item in series:
        action = item.get("action") or {}
        if action:
            base = action.get("name") or text(action.get("id")) or item.get("label")
            if action.get("custom_name"):
                name = str(action["custom_name"])
            else:
                name = series_name(str(base or ""), action.get("math"), action.get("math_property"))
        elif item.get("breakdown_value") is not None:
            name = "Formula"
        else:
            name = str(item.get("label") or "")
        names.append(name)
    orders: dict[str, set[Any]] = {}
    for name, item in zip(names, series, strict=True):
        orders.setdefault(name, set()).add((item.get("action") or {}).get("order"))
    return [
        f"{name} (#{((item.get('action') or {}).get('order') or 0) + 1})" if len(orders[name]) > 1 else name
        for name, item in zip(names, series, strict=True)
    ]


def _counts(series: Sequence[Mapping[str, Any]], values: Sequence[Any]) -> bool:
    """Whether the values are counts: every series an entity's count (no formula, no property math) and
    every value whole (a smoothed or averaged count is not)."""
    if not series or any(not item.get("action") for item in series):
        return False
    if any(((item.get("action") or {}).get("math") or "total") not in COUNT_MATHS for item in series):
        return False
    return all(value is None or (isinstance(value, int | float) and float(value).is_integer()) for value in values)


def _cohort_names(series: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Each cohort breakdown value (a cohort id) with the cohort's name, from the series' labels: the API
    labels a cohort's series by its name (``<entity> - <name>`` with several entities)."""
    names: dict[str, str] = {}
    for item in series:
        value, label = item.get("breakdown_value"), item.get("label")
        if value is None or label is None or isinstance(value, list) or bucket_rank(value) != 0:
            continue
        action = item.get("action") or {}
        if action:
            if (item.get("filter") or {}).get("breakdown_type") != "cohort":
                continue
            label = str(label).removeprefix(f"{action.get('name')} - ")
        if str(label) != str(value):
            names[str(value)] = str(label)
    return names


def trend_frame(response: Mapping[str, Any], *, wide: bool = False) -> pd.DataFrame:
    """A trend response as a tidy frame (or a wide one).

    Parameters
    ----------
    response : Mapping
        The decoded response of ``insights/trend/`` or of the query API for a ``TrendsQuery``.
    wide : bool
        Pivot to one column per series (see `wide_trend_frame`).

    Returns
    -------
    pandas.DataFrame
        One row per series and bucket with ``date`` (datetime64[ns, <project tz>], the bucket start),
        ``series`` (string: the custom name, else the event/action name with its math when that is not the
        total count, as ``purchase: sum of amount`` or ``signed_up: unique users``; ``Formula`` for a
        broken-down formula), ``breakdown_value`` (string, lists joined with ``::``; only when the result
        is broken down), ``compare_label`` (string ``current``/``previous``; only when the result compares
        periods) and ``value`` (Int64 when every series is a count and every value whole, else float64).
        A column that would hold nothing but NA is left out, so a plain trend reads ``date, series, value``;
        `complete_trend_frame` adds them back for code that wants every column.
        Aggregated displays (``ActionsPie``, ``ActionsTable``, ``BoldNumber``, ...) give one row per series
        with ``date`` NaT. ``attrs`` holds the response without its results, plus ``aggregated`` (bool) and,
        for a cohort breakdown, ``breakdown_labels`` (cohort id as text -> the cohort's name), and, when the
        answer links its points to their people, ``people_urls`` (one URL or None per row, by position; read
        by `toolkit.Client.people`); when it does not (PostHog's query API), ``actor_points`` (each row's point as an
        ``InsightActorsQuery`` names it: ``series``, ``day``, ``breakdown``, ``compare``; by position).

    Examples
    --------
    >>> response = {"timezone": "UTC", "result": [
    ...     {"action": {"name": "$pageview", "order": 0}, "label": "$pageview",
    ...      "days": ["2026-01-01", "2026-01-02"], "data": [3, 5]}]}
    >>> trend_frame(response)[["series", "value"]]
          series  value
    0  $pageview      3
    1  $pageview      5
    """
    series = list(response_results(response) or [])
    timezone = response.get("timezone") or "UTC"
    aggregated = any("aggregated_value" in item for item in series)
    names = series_names(series)
    days: list[Any] = []
    rows: dict[str, list[Any]] = {"series": [], "breakdown_value": [], "compare_label": [], "value": []}
    urls: list[str | None] = []
    actors: list[dict[str, Any] | None] = []
    for name, item in zip(names, series, strict=True):
        points = [(None, item.get("aggregated_value"))] if aggregated else zip(item["days"], item["data"], strict=True)
        persons = item.get("persons")
        aggregate_url = persons.get("url") if isinstance(persons, Mapping) else None
        urls.extend([aggregate_url] if aggregated else point_urls(item, len(item["days"])))
        for day, value in points:
            actors.append(actor_point(item, day))
            days.append(day)
            rows["series"].append(name)
            rows["breakdown_value"].append(item.get("breakdown_value"))
            rows["compare_label"].append(item.get("compare_label"))
            rows["value"].append(value)
    present = {name: any(item.get(name) is not None for item in series) for name in TREND_OPTIONAL_COLUMNS}
    data = {"date": bucket_dates(days, timezone), "series": column(rows["series"], "string")}
    for name in TREND_OPTIONAL_COLUMNS:
        if present[name]:
            data[name] = column(rows[name], "string")
    data["value"] = column(rows["value"], "int" if _counts(series, rows["value"]) else "float")
    frame = pd.DataFrame(data)
    frame.attrs = {**response_metadata(response), "timezone": timezone, "aggregated": aggregated}
    cohorts = _cohort_names(series)
    if cohorts:
        frame.attrs["breakdown_labels"] = cohorts
    keep_people_urls(frame, urls, actors)
    return wide_trend_frame(frame) if wide else frame


def complete_trend_frame(tidy: pd.DataFrame) -> pd.DataFrame:
    """``tidy`` with every column of `TREND_COLUMNS`: a left-out ``breakdown_value`` or ``compare_label``
    comes back as an all-NA string column (other columns are kept after them).

    Examples
    --------
    >>> tidy = trend_frame({"result": [{"action": {"name": "a"}, "days": ["2026-01-01"], "data": [1]}]})
    >>> tidy.columns.tolist(), complete_trend_frame(tidy).columns.tolist()
    (['date', 'series', 'value'], ['date', 'series', 'breakdown_value', 'compare_label', 'value'])
    """
    missing = [name for name in TREND_OPTIONAL_COLUMNS if name not in tidy.columns]
    if not missing:
        return tidy
    full = tidy.copy()
    for name in missing:
        full[name] = pd.array([pd.NA] * len(full), dtype="string")
    order = [name for name in TREND_COLUMNS if name in full.columns]
    return full[order + [name for name in full.columns if name not in order]]


def wide_column_names(tidy: pd.DataFrame) -> pd.Series:
    """The wide column of each row of a tidy frame: ``series``, then `` - <breakdown value>`` and
    `` (<compare label>)`` where the frame has them.

    Examples
    --------
    >>> tidy = pd.DataFrame({"series": ["a", "a"], "compare_label": ["current", "previous"]})
    >>> wide_column_names(tidy).tolist()
    ['a (current)', 'a (previous)']
    """
    label = tidy["series"].astype(object)
    if "breakdown_value" in tidy.columns:
        breakdown = tidy["breakdown_value"].astype(object)
        label = label + breakdown.map(lambda value: "" if pd.isna(value) else f" - {value}")
    if "compare_label" in tidy.columns:
        compare = tidy["compare_label"].astype(object)
        label = label + compare.map(lambda value: "" if pd.isna(value) else f" ({value})")
    return label


def wide_trend_frame(tidy: pd.DataFrame) -> pd.DataFrame:
    """Pivot a tidy trend frame to one column per series with a DatetimeIndex named ``date``.

    Column names are ``series``, then `` - <breakdown value>`` and `` (<compare label>)`` where present,
    in the order the series came. Dates missing for a series (compare periods) are NaN.

    Raises
    ------
    ValueError
        For an aggregated display, which has no dates.

    Examples
    --------
    >>> tidy = trend_frame({"result": [{"action": {"name": "a"}, "days": ["2026-01-01"], "data": [1]}]})
    >>> wide_trend_frame(tidy).columns.tolist()
    ['a']
    """
    if tidy.attrs.get("aggregated"):
        raise ValueError("wide=True needs a time-series display; aggregated displays have one value per series")
    tidy = complete_trend_frame(tidy)
    label = wide_column_names(tidy)
    order = list(dict.fromkeys(label))
    wide = (
        pd.DataFrame({"date": tidy["date"], "column": label, "value": tidy["value"]})
        .pivot(index="date", columns="column", values="value")
        .reindex(columns=order)
    )
    wide.columns.name = None
    wide.index.name = "date"
    wide.attrs = {key: value for key, value in tidy.attrs.items() if key not in ("people_urls", "actor_points")}
    return wide
