"""Result frames as tables to read: `readable_table` (display text) and `table_html` (HTML without maths).

The tidy frames the client returns are for computing; a person reading a result wants what PostHog's
table view shows: one row per date and one column per series, counts as whole numbers, dates in the
project's timezone without a time of day (hourly buckets keep it), conversion as a percentage and
durations in two units (``3 h 15 min``), breakdown buckets as ``None`` and ``Other`` (always last). The
name of the rows (``date``, ``step``) sits in the header's corner, so the header is one row.
`readable_table` builds that from any calculation frame (trend, funnel steps, funnel trends, time to
convert, stickiness, lifecycle; other frames get the same formatting column by column);
`toolkit.frames.readable_values` formats the cells. Its cells are text: keep the tidy frame for numbers.

`table_html` renders a frame as HTML that Jupyter's MathJax leaves alone, so ``$pageview`` is not read as
the start of a formula.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import pandas as pd

from ..labels import NO_MATHJAX_CLASSES, breakdown_label, bucket_rank
from .readable_values import date_texts, format_duration, format_number, format_percent, is_whole
from .trends import complete_trend_frame

__all__ = ["format_duration", "format_number", "format_percent", "readable_table", "table_html"]


def _interval(attrs: Mapping[str, Any]) -> str | None:
    request = attrs.get("request")
    return request.get("interval") if isinstance(request, Mapping) else None


def _numbers(values: pd.Series | list[Any]) -> list[str]:
    """A column's numbers: whole when every one is (a count), else with two decimals."""
    whole = is_whole(values)
    return [format_number(value, whole=whole) for value in values]


def _labelled(table: pd.DataFrame, rows: str) -> pd.DataFrame:
    """``rows`` (what the rows are) in the header's corner instead of on a header row of its own."""
    table.index.name = None
    table.columns.name = rows
    return table


def _buckets_last(labels: list[Hashable], breakdowns: Mapping[Hashable, Any]) -> list[Hashable]:
    """``labels`` in their order, with the ``None`` then the ``Other`` breakdown bucket moved to the end."""
    return sorted(labels, key=lambda label: bucket_rank(breakdowns.get(label)))


def _trend_table(frame: pd.DataFrame) -> pd.DataFrame:
    frame = complete_trend_frame(frame)
    labels = _series_labels(frame)
    previous = frame["compare_label"].astype(object).eq("previous")
    order = _buckets_last(list(dict.fromkeys(labels)), dict(zip(labels, frame["breakdown_value"], strict=True)))
    if frame["date"].isna().all():  # an aggregated display: one value per series
        values = dict(zip(labels, frame["value"], strict=True))
        table = pd.DataFrame(
            {"value": [format_number(values[label], whole=is_whole([values[label]])) for label in order]}
        )
        table.index = pd.Index(order)
        return _labelled(table, "series")
    dates = date_texts(frame["date"], _interval(frame.attrs))
    earlier = previous.tolist()
    rows = list(dict.fromkeys(day for day, old in zip(dates, earlier, strict=True) if not old or all(earlier)))
    values = frame["value"].tolist()
    positions: dict[str, list[int]] = {}
    for position, label in enumerate(labels.tolist()):
        positions.setdefault(str(label), []).append(position)
    columns: dict[str, list[str]] = {}
    for label, chosen in positions.items():
        texts = _numbers([values[i] for i in chosen])
        if all(earlier[i] for i in chosen):
            # a previous period has its own dates: put day n of it beside day n of the current period
            columns[label] = (texts + [""] * len(rows))[: len(rows)]
        else:
            by_date = dict(zip([dates[i] for i in chosen], texts, strict=True))
            columns[label] = [by_date.get(day, "") for day in rows]
    return _labelled(pd.DataFrame({label: columns[label] for label in order}, index=pd.Index(rows)), "date")


def _funnel_table(frame: pd.DataFrame) -> pd.DataFrame:
    table = pd.DataFrame(index=pd.Index(frame["step"].astype(int).tolist()))
    if "breakdown_value" in frame.columns and frame["breakdown_value"].notna().any():
        names = frame.attrs.get("breakdown_labels")
        table["breakdown"] = frame["breakdown_value"].map(lambda value: breakdown_label(value, names)).tolist()
        rank = frame["breakdown_value"].map(bucket_rank).tolist()
    else:
        rank = [0] * len(frame)
    table["name"] = frame["name"].astype(object).fillna("").tolist()
    table["count"] = [format_number(value, whole=True) for value in frame["count"]]
    table["conversion"] = [format_percent(value) for value in frame["conversion_rate"]]
    table["from previous step"] = [format_percent(value) for value in frame["step_conversion_rate"]]
    table["dropped off"] = [format_number(value, whole=True) for value in frame["drop_off"]]
    table["average time"] = [format_duration(value) for value in frame["average_conversion_time"]]
    table["median time"] = [format_duration(value) for value in frame["median_conversion_time"]]
    # the None and Other buckets' steps after the values' (a stable sort keeps each group's steps in order)
    order = sorted(range(len(table)), key=lambda position: rank[position])
    return _labelled(table.iloc[order], "step")


def _funnel_trends_table(frame: pd.DataFrame) -> pd.DataFrame:
    raw = frame["breakdown_value"] if "breakdown_value" in frame.columns else pd.Series([pd.NA] * len(frame))
    names = frame.attrs.get("breakdown_labels")
    labels = raw.map(lambda value: breakdown_label(value, names) or "conversion").to_numpy()
    interval = _interval(frame.attrs)
    rows = list(dict.fromkeys(date_texts(frame["date"], interval)))
    columns: dict[str, list[str]] = {}
    for label, group in frame.groupby(labels, sort=False):
        texts = map(format_percent, group["conversion_rate"])
        by_date = dict(zip(date_texts(group["date"], interval), texts, strict=True))
        columns[str(label)] = [by_date.get(day, "") for day in rows]
    order = _buckets_last(list(columns), dict(zip(labels, raw, strict=True)))
    return _labelled(pd.DataFrame({label: columns[label] for label in order}, index=pd.Index(rows)), "date")


def _time_to_convert_table(frame: pd.DataFrame) -> pd.DataFrame:
    bins = [
        format_duration(start) + (f" to {format_duration(end)}" if not pd.isna(end) else "")
        for start, end in zip(frame["bin_start"], frame["bin_end"], strict=True)
    ]
    table = pd.DataFrame({"persons": [format_number(value, whole=True) for value in frame["count"]]}, index=bins)
    return _labelled(table, "time to convert")


def _series_labels(frame: pd.DataFrame) -> pd.Series:
    """Each row's column in a table: the series, `` - <breakdown>`` and `` (previous)`` for a compared period."""
    labels = frame["series"].astype(object).fillna("").astype(str)
    names = frame.attrs.get("breakdown_labels")
    if "breakdown_value" in frame.columns:
        breakdown = frame["breakdown_value"].map(lambda value: breakdown_label(value, names))
        labels = labels + breakdown.map(lambda text: f" - {text}" if text else "")
    if "compare_label" in frame.columns:
        previous = frame["compare_label"].astype(object).eq("previous")
        labels = labels + previous.map(lambda flag: " (previous)" if flag else "")
    return labels


def _stickiness_table(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per number of intervals (the API's ``2 days``), one column per series."""
    labels = _series_labels(frame)
    texts = frame.get("interval_label", pd.Series([pd.NA] * len(frame), index=frame.index))
    names = [str(text) if not pd.isna(text) else str(k) for k, text in zip(frame["intervals"], texts, strict=True)]
    rows = list(dict.fromkeys(names))
    breakdowns = frame["breakdown_value"] if "breakdown_value" in frame.columns else pd.Series([None] * len(frame))
    order = _buckets_last(list(dict.fromkeys(labels)), dict(zip(labels, breakdowns, strict=True)))
    columns: dict[str, list[str]] = {}
    for label, group in frame.assign(_row=names).groupby(labels.to_numpy(), sort=False):
        by_row = dict(zip(group["_row"], _numbers(group["value"]), strict=True))
        columns[str(label)] = [by_row.get(row, "") for row in rows]
    return _labelled(pd.DataFrame({label: columns[label] for label in order}, index=pd.Index(rows)), "intervals")


def _lifecycle_table(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per date, one column per status (dormant negative, as the frame holds it)."""
    interval = _interval(frame.attrs)
    rows = list(dict.fromkeys(date_texts(frame["date"], interval)))
    columns: dict[str, list[str]] = {}
    for status, group in frame.groupby(frame["status"].astype(object).fillna("").to_numpy(), sort=False):
        by_date = dict(zip(date_texts(group["date"], interval), _numbers(group["value"]), strict=True))
        columns[str(status)] = [by_date.get(day, "") for day in rows]
    return _labelled(pd.DataFrame(columns, index=pd.Index(rows)), "date")


def _wide_table(frame: pd.DataFrame) -> pd.DataFrame:
    """A wide trend frame (``wide=True``: dates down, one column per series) with its cells formatted."""
    table = pd.DataFrame({str(name): _numbers(frame[name]) for name in frame.columns})
    table.index = pd.Index(date_texts(frame.index.to_series(), _interval(frame.attrs)))
    return _labelled(table, "date")


def _any_table(frame: pd.DataFrame) -> pd.DataFrame:
    table = pd.DataFrame(index=frame.index)
    for name in frame.columns:
        values = frame[name]
        if isinstance(values.dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_any_dtype(values):
            table[name] = date_texts(values)
        elif pd.api.types.is_timedelta64_dtype(values):
            table[name] = [format_duration(value) for value in values]
        elif pd.api.types.is_bool_dtype(values):
            table[name] = values.astype(object).where(values.notna(), "").astype(str).tolist()
        elif pd.api.types.is_numeric_dtype(values):
            if str(name).endswith("_rate"):
                table[name] = [format_percent(value) for value in values]
            else:
                table[name] = _numbers(values)
        elif name == "breakdown_value":
            shown = frame.attrs.get("breakdown_labels")
            table[name] = [breakdown_label(value, shown) for value in values]
        else:
            table[name] = values.astype(object).where(values.notna(), "").tolist()
    return table


def readable_table(frame: pd.DataFrame) -> pd.DataFrame:
    """A calculation frame as a table to read (text cells), the way PostHog's table view shows it.

    Trends (tidy, or ``wide=True``) give one row per date (a plain date in the project's timezone; with
    the time for hourly buckets) and one column per series (`` - <breakdown>``, `` (previous)`` for a
    compared period), counts as whole numbers and other values with two decimals; funnel steps give one
    row per step with conversion in percent and rounded conversion times; funnel trends one row per
    date; time to convert one row per bin; stickiness one row per number of intervals (``2 days``) and one
    column per series; lifecycle one row per date and one column per status. Breakdown buckets read
    ``None`` and ``Other`` and come last,
    ``Other`` at the very end. What the rows are (``date``, ``step``, ...) is the header's first cell.
    Other frames keep their shape and get each column formatted by its type.

    Parameters
    ----------
    frame : pandas.DataFrame
        A frame from `Client.trend` (tidy or wide), `Client.funnel` (any visualisation) or another
        calculation.

    Returns
    -------
    pandas.DataFrame
        Text cells (empty where there is no value); the tidy frame keeps the numbers.

    Examples
    --------
    >>> from toolkit.frames.results import trend_frame
    >>> tidy = trend_frame({"timezone": "Europe/Paris", "result": [
    ...     {"action": {"name": "$pageview"}, "days": ["2026-01-01", "2026-01-02"], "data": [1200, 5],
    ...      "breakdown_value": "$$_posthog_breakdown_null_$$"}]})
    >>> readable_table(tidy)
    date       $pageview - None
    2026-01-01            1,200
    2026-01-02                5
    """
    columns = set(frame.columns)
    if isinstance(frame.index, pd.DatetimeIndex) and all(map(pd.api.types.is_numeric_dtype, frame.dtypes)):
        return _wide_table(frame)
    if {"intervals", "series", "value"} <= columns:
        return _stickiness_table(frame)
    if {"date", "status", "value"} == columns:
        return _lifecycle_table(frame)
    if {"date", "series", "value"} <= columns:
        return _trend_table(frame)
    if {"step", "name", "count", "conversion_rate", "step_conversion_rate"} <= columns:
        return _funnel_table(frame)
    if {"date", "conversion_rate"} <= columns <= {"date", "breakdown_value", "conversion_rate"}:
        return _funnel_trends_table(frame)
    if {"bin_start", "bin_end", "count"} == columns:
        return _time_to_convert_table(frame)
    return _any_table(frame)


def table_html(frame: pd.DataFrame, *, max_rows: int = 200) -> str:
    """``frame`` as an HTML table that markup in the values cannot break and MathJax does not typeset.

    Parameters
    ----------
    frame : pandas.DataFrame
    max_rows : int
        Rows shown at most (the first ones); a note says how many were left out.

    Examples
    --------
    >>> html = table_html(pd.DataFrame({"event": ["$pageview", "<b>"]}))
    >>> "mathjax_ignore" in html and "&lt;b&gt;" in html
    True
    """
    shown = frame.head(max_rows)
    markup = shown.to_html(escape=True, classes=NO_MATHJAX_CLASSES.split(), border=0, na_rep="")
    if len(frame) > max_rows:
        hidden = len(frame) - max_rows
        markup += f'<p class="{NO_MATHJAX_CLASSES}">{hidden:,} more row{"s" * (hidden != 1)} not shown</p>'
    return markup
