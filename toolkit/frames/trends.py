"""Trend responses as frames: `trend_frame` (tidy), `wide_trend_frame` (one column per series) and
`complete_trend_frame` (every optional column back).

Dates are bucket starts in the project's timezone (``attrs["timezone"]``); values are float64.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ._columns import column, text
from ._responses import bucket_dates, response_metadata, response_results

__all__ = ["TREND_COLUMNS", "TREND_OPTIONAL_COLUMNS", "complete_trend_frame", "trend_frame", "wide_trend_frame"]

TREND_COLUMNS = ("date", "series", "breakdown_value", "compare_label", "value")
"""Every column a trend frame can have; ``breakdown_value`` and ``compare_label`` only when the result has them."""
TREND_OPTIONAL_COLUMNS = ("breakdown_value", "compare_label")


def _series_names(series: Sequence[Mapping[str, Any]]) -> list[str]:
    """A name per series: the custom name, else the entity's name; disambiguated when two entities share one."""
    bases: list[str] = []
    for item in series:
        action = item.get("action") or {}
        if action:
            base = action.get("custom_name") or action.get("name") or text(action.get("id")) or item.get("label")
        elif item.get("breakdown_value") is not None:
            base = "Formula"
        else:
            base = item.get("label")
        bases.append(str(base) if base is not None else "")
    orders: dict[str, set[Any]] = {}
    for base, item in zip(bases, series, strict=True):
        orders.setdefault(base, set()).add((item.get("action") or {}).get("order"))
    names = []
    for base, item in zip(bases, series, strict=True):
        action = item.get("action") or {}
        if len(orders[base]) > 1:
            maths = Counter(
                (s.get("action") or {}).get("math") for s, b in zip(series, bases, strict=True) if b == base
            )
            math = action.get("math")
            suffix = (math or "total") if maths[math] == 1 else f"#{(action.get('order') or 0) + 1}"
            names.append(f"{base} ({suffix})")
        else:
            names.append(base)
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
        ``series`` (string: the custom name or event/action name; ``Formula`` for a broken-down formula),
        ``breakdown_value`` (string, lists joined with ``::``; only when the result is broken down),
        ``compare_label`` (string ``current``/``previous``; only when the result compares periods) and
        ``value`` (float64). A column that would hold nothing but NA is left out, so a plain trend reads
        ``date, series, value``; `complete_trend_frame` adds them back for code that wants every column.
        Aggregated displays (``ActionsPie``, ``ActionsTable``, ``BoldNumber``, ...) give one row per series
        with ``date`` NaT. ``attrs`` holds the response without its results, plus ``aggregated`` (bool).

    Examples
    --------
    >>> response = {"timezone": "UTC", "result": [
    ...     {"action": {"name": "$pageview", "order": 0}, "label": "$pageview",
    ...      "days": ["2026-01-01", "2026-01-02"], "data": [3, 5]}]}
    >>> trend_frame(response)[["series", "value"]]
          series  value
    0  $pageview    3.0
    1  $pageview    5.0
    """
    series = list(response_results(response) or [])
    timezone = response.get("timezone") or "UTC"
    aggregated = any("aggregated_value" in item for item in series)
    names = _series_names(series)
    days: list[Any] = []
    rows: dict[str, list[Any]] = {"series": [], "breakdown_value": [], "compare_label": [], "value": []}
    for name, item in zip(names, series, strict=True):
        points = [(None, item.get("aggregated_value"))] if aggregated else zip(item["days"], item["data"], strict=True)
        for day, value in points:
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
    data["value"] = column(rows["value"], "float")
    frame = pd.DataFrame(data)
    frame.attrs = {**response_metadata(response), "timezone": timezone, "aggregated": aggregated}
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
    label = tidy["series"].astype(object)
    breakdown = tidy["breakdown_value"].astype(object)
    compare = tidy["compare_label"].astype(object)
    label = label + breakdown.map(lambda value: "" if pd.isna(value) else f" - {value}")
    label = label + compare.map(lambda value: "" if pd.isna(value) else f" ({value})")
    order = list(dict.fromkeys(label))
    wide = (
        pd.DataFrame({"date": tidy["date"], "column": label, "value": tidy["value"]})
        .pivot(index="date", columns="column", values="value")
        .reindex(columns=order)
    )
    wide.columns.name = None
    wide.index.name = "date"
    wide.attrs = dict(tidy.attrs)
    return wide
