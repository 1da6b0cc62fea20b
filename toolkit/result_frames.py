"""Pure functions from calculation responses (trend, funnel, retention, paths) to typed DataFrames.

Each takes the whole decoded response, either the legacy envelope (``{"result": ..., "timezone": ...}``)
or the query API's (``{"results": ...}``), and keeps everything except the results in ``DataFrame.attrs``.
Dates are bucket starts in the project's timezone (``attrs["timezone"]``); rates are fractions (0..1);
durations are Timedeltas.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._columns import column, localize, text, typed_frame

__all__ = [
    "FUNNEL_COLUMNS",
    "FUNNEL_TRENDS_COLUMNS",
    "PATHS_COLUMNS",
    "RETENTION_COLUMNS",
    "TIME_TO_CONVERT_COLUMNS",
    "TREND_COLUMNS",
    "complete_trend_frame",
    "funnel_frame",
    "funnel_trends_frame",
    "paths_frame",
    "response_results",
    "retention_frame",
    "time_to_convert_frame",
    "trend_frame",
    "wide_trend_frame",
]

TREND_COLUMNS = ("date", "series", "breakdown_value", "compare_label", "value")
"""Every column a trend frame can have; ``breakdown_value`` and ``compare_label`` only when the result has them."""
TREND_OPTIONAL_COLUMNS = ("breakdown_value", "compare_label")
FUNNEL_COLUMNS: dict[str, str] = {
    "breakdown_value": "string",
    "step": "int",
    "name": "string",
    "action_id": "string",
    "count": "int",
    "conversion_rate": "float",
    "step_conversion_rate": "float",
    "drop_off": "int",
    "average_conversion_time": "timedelta",
    "median_conversion_time": "timedelta",
}
FUNNEL_TRENDS_COLUMNS = ("date", "breakdown_value", "conversion_rate")
TIME_TO_CONVERT_COLUMNS = ("bin_start", "bin_end", "count")
RETENTION_COLUMNS = ("cohort_date", "cohort", "breakdown_value", "period", "count", "retention_rate")
PATHS_COLUMNS: dict[str, str] = {
    "step": "int",
    "source": "string",
    "target": "string",
    "source_name": "string",
    "target_name": "string",
    "value": "int",
    "average_conversion_time": "timedelta",
}


def response_results(response: Mapping[str, Any]) -> Any:
    """The results of a calculation response: ``result`` (legacy endpoints) or ``results`` (query API)."""
    return response["result"] if "result" in response else response.get("results")


def _metadata(response: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in response.items() if key not in ("result", "results")}


def _dates(values: Sequence[Any], timezone: str) -> pd.arrays.DatetimeArray:
    present = [value for value in values if value is not None]
    stamps = localize(present, timezone) if present else pd.DatetimeIndex([], tz=timezone).as_unit("ns")
    out = pd.Series(pd.NaT, index=range(len(values)), dtype=pd.DatetimeTZDtype("ns", timezone))
    positions = [i for i, value in enumerate(values) if value is not None]
    out.iloc[positions] = stamps
    return out.array


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
    data = {"date": _dates(days, timezone), "series": column(rows["series"], "string")}
    for name in TREND_OPTIONAL_COLUMNS:
        if present[name]:
            data[name] = column(rows[name], "string")
    data["value"] = column(rows["value"], "float")
    frame = pd.DataFrame(data)
    frame.attrs = {**_metadata(response), "timezone": timezone, "aggregated": aggregated}
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


def _step_name(step: Mapping[str, Any]) -> str | None:
    return step.get("custom_name") or step.get("name") or text(step.get("action_id"))


def funnel_frame(response: Mapping[str, Any]) -> pd.DataFrame:
    """A funnel ``steps`` response as one row per step (and breakdown value).

    Returns
    -------
    pandas.DataFrame
        Columns ``breakdown_value`` (string, NA without breakdown), ``step`` (Int64, 1 for the first step),
        ``name`` (string: custom name, else the event or action name), ``action_id`` (string), ``count``
        (Int64), ``conversion_rate`` (float64: count / first step's count), ``step_conversion_rate``
        (float64: count / previous step's count, 1.0 on step 1), ``drop_off`` (Int64: previous count -
        count, 0 on step 1), ``average_conversion_time`` and ``median_conversion_time`` (timedelta64[ns]
        from the previous step; NaT on step 1 and where nobody converted). Rates are NaN when the
        denominator is 0.

    Raises
    ------
    ValueError
        When the response holds funnel trends or time to convert (use their frames).

    Examples
    --------
    >>> steps = [{"order": 0, "name": "signup", "count": 10}, {"order": 1, "name": "pay", "count": 4,
    ...           "average_conversion_time": 60, "median_conversion_time": 30}]
    >>> funnel_frame({"result": steps})[["step", "count", "conversion_rate", "drop_off"]]
       step  count  conversion_rate  drop_off
    0     1     10              1.0         0
    1     2      4              0.4         6
    """
    result = response_results(response) or []
    if isinstance(result, Mapping) or (result and isinstance(result[0], Mapping) and "data" in result[0]):
        raise ValueError("not a funnel steps result: use funnel_trends_frame or time_to_convert_frame")
    groups = result if result and isinstance(result[0], list) else [result]
    rows = []
    for group in groups:
        ordered = sorted(group, key=lambda step: step.get("order") or 0)
        first = ordered[0].get("count") if ordered else None
        previous = None
        for step in ordered:
            count = step.get("count") or 0
            rows.append(
                {
                    "breakdown_value": step.get("breakdown_value"),
                    "step": (step.get("order") or 0) + 1,
                    "name": _step_name(step),
                    "action_id": step.get("action_id"),
                    "count": count,
                    "conversion_rate": count / first if first else np.nan,
                    "step_conversion_rate": 1.0 if previous is None else (count / previous if previous else np.nan),
                    "drop_off": 0 if previous is None else previous - count,
                    "average_conversion_time": step.get("average_conversion_time"),
                    "median_conversion_time": step.get("median_conversion_time"),
                }
            )
            previous = count
    frame = typed_frame(rows, FUNNEL_COLUMNS)
    frame.attrs = _metadata(response)
    return frame


def funnel_trends_frame(response: Mapping[str, Any]) -> pd.DataFrame:
    """A funnel ``trends`` response (conversion rate per entrance period) as a tidy frame.

    Returns
    -------
    pandas.DataFrame
        ``date`` (datetime64[ns, <project tz>], the period start), ``breakdown_value`` (string, NA without
        breakdown), ``conversion_rate`` (float64 fraction; the API's percentages divided by 100).

    Examples
    --------
    >>> response = {"result": [{"days": ["2026-01-01"], "data": [25.0], "count": 1}]}
    >>> funnel_trends_frame(response).loc[0, "conversion_rate"]
    np.float64(0.25)
    """
    timezone = response.get("timezone") or "UTC"
    days: list[Any] = []
    breakdowns: list[Any] = []
    rates: list[Any] = []
    for item in response_results(response) or []:
        for day, rate in zip(item["days"], item["data"], strict=True):
            days.append(day)
            breakdowns.append(item.get("breakdown_value"))
            rates.append(None if rate is None else float(rate) / 100)
    frame = pd.DataFrame(
        {
            "date": _dates(days, timezone),
            "breakdown_value": column(breakdowns, "string"),
            "conversion_rate": column(rates, "float"),
        }
    )
    frame.attrs = {**_metadata(response), "timezone": timezone}
    return frame


def time_to_convert_frame(response: Mapping[str, Any]) -> pd.DataFrame:
    """A funnel ``time_to_convert`` response as a histogram frame.

    Returns
    -------
    pandas.DataFrame
        One row per bin: ``bin_start`` and ``bin_end`` (timedelta64[ns]; ``bin_end`` is the next bin's start,
        the last bin as wide as the others, NaT with a single bin) and ``count`` (Int64, persons).
        ``attrs["average_conversion_time"]`` is a Timedelta (NaT when absent).

    Examples
    --------
    >>> frame = time_to_convert_frame({"result": {"bins": [[60, 2], [120, 1]], "average_conversion_time": 90}})
    >>> frame["count"].tolist(), frame.attrs["average_conversion_time"]
    ([2, 1], Timedelta('0 days 00:01:30'))
    """
    result = response_results(response) or {}
    bins = result.get("bins") or []
    starts = [float(start) for start, _ in bins]
    width = starts[1] - starts[0] if len(starts) > 1 else None
    ends = [*starts[1:], starts[-1] + width] if width is not None else [None] * len(starts)
    frame = pd.DataFrame(
        {
            "bin_start": column(starts, "timedelta"),
            "bin_end": column(ends, "timedelta"),
            "count": column([count for _, count in bins], "int"),
        }
    )
    average = result.get("average_conversion_time")
    frame.attrs = {
        **_metadata(response),
        "average_conversion_time": pd.NaT if average is None else pd.Timedelta(seconds=float(average)),
    }
    return frame


def retention_frame(response: Mapping[str, Any]) -> pd.DataFrame:
    """A retention response as a tidy cohort table.

    Returns
    -------
    pandas.DataFrame
        One row per cohort and period: ``cohort_date`` (datetime64[ns, <project tz>]), ``cohort`` (string,
        the API's label such as ``Day 0``), ``breakdown_value`` (string, NA without breakdown), ``period``
        (Int64, 0 = the cohort's own period), ``count`` (Int64) and ``retention_rate`` (float64: count /
        the cohort's period-0 count, NaN when that is 0).

    Examples
    --------
    >>> rows = [{"label": "Day 0", "date": "2026-01-01T00:00:00Z", "values": [{"count": 4}, {"count": 1}]}]
    >>> retention_frame({"result": rows})[["period", "count", "retention_rate"]]
       period  count  retention_rate
    0       0      4            1.00
    1       1      1            0.25
    """
    timezone = response.get("timezone") or "UTC"
    dates: list[Any] = []
    records: list[dict[str, Any]] = []
    for row in response_results(response) or []:
        values = row.get("values") or []
        size = (values[0].get("count") or 0) if values else 0
        for period, value in enumerate(values):
            count = value.get("count") or 0
            dates.append(row.get("date"))
            records.append(
                {
                    "cohort": row.get("label"),
                    "breakdown_value": row.get("breakdown_value"),
                    "period": period,
                    "count": count,
                    "retention_rate": count / size if size else np.nan,
                }
            )
    frame = typed_frame(
        records,
        {"cohort": "string", "breakdown_value": "string", "period": "int", "count": "int", "retention_rate": "float"},
    )
    stamps = pd.to_datetime(pd.Series(dates, dtype=object), utc=True, format="ISO8601")
    frame.insert(0, "cohort_date", stamps.dt.tz_convert(timezone).astype(pd.DatetimeTZDtype("ns", timezone)).array)
    frame.attrs = {**_metadata(response), "timezone": timezone}
    return frame


def _split_node(node: Any) -> tuple[int | None, str | None]:
    value = text(node)
    if value is None:
        return None, None
    prefix, _, name = value.partition("_")
    return (int(prefix), name) if prefix.isdigit() and name else (None, value)


def paths_frame(response: Mapping[str, Any]) -> pd.DataFrame:
    """A paths response as one row per edge.

    Returns
    -------
    pandas.DataFrame
        ``step`` (Int64: the source's position, from its ``"<n>_"`` prefix), ``source``, ``target`` (string,
        as sent), ``source_name``, ``target_name`` (string, without the prefix), ``value`` (Int64, number of
        transitions) and ``average_conversion_time`` (timedelta64[ns]; the API sends milliseconds).

    Examples
    --------
    >>> edge = {"source": "1_/home", "target": "2_/pricing", "value": 7, "average_conversion_time": 1500}
    >>> paths_frame({"result": [edge]})[["step", "source_name", "target_name", "value"]]
       step source_name target_name  value
    0     1       /home    /pricing      7
    """
    rows = []
    for edge in response_results(response) or []:
        step, source_name = _split_node(edge.get("source"))
        _, target_name = _split_node(edge.get("target"))
        millis = edge.get("average_conversion_time")
        rows.append(
            {
                **edge,
                "step": step,
                "source_name": source_name,
                "target_name": target_name,
                "average_conversion_time": None if millis is None else float(millis) / 1000,
            }
        )
    frame = typed_frame(rows, PATHS_COLUMNS)
    frame.attrs = _metadata(response)
    return frame
