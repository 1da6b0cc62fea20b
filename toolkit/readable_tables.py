"""Result frames as tables to read: `readable_table` (display text) and `table_html` (HTML without maths).

The tidy frames the client returns are for computing; a person reading a result wants what PostHog's
table view shows: one row per date and one column per series, counts as whole numbers, dates in the
project's timezone without a time of day, conversion as a percentage and durations in two units
(``3 h 15 min``). `readable_table` builds that from any calculation frame (trend, funnel steps, funnel
trends, time to convert; other frames get the same formatting column by column). Its cells are text: keep
the tidy frame for numbers.

`table_html` renders a frame as HTML that Jupyter's MathJax leaves alone, so ``$pageview`` is not read as
the start of a formula.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .labels import NO_MATHJAX_CLASSES, breakdown_label
from .result_frames import complete_trend_frame

__all__ = ["format_duration", "format_number", "format_percent", "readable_table", "table_html"]

_UNITS = (("d", 86_400), ("h", 3_600), ("min", 60), ("s", 1))


def format_duration(value: Any) -> str:
    """A duration in its two largest units, cut (not rounded) as PostHog shows it; empty for a missing one.

    Examples
    --------
    >>> format_duration(pd.Timedelta("0 days 03:15:36.068534722")), format_duration(pd.Timedelta(seconds=45.6))
    ('3 h 15 min', '45 s')
    >>> format_duration(pd.Timedelta(days=2, hours=4, minutes=50)), format_duration(pd.NaT)
    ('2 d 4 h', '')
    """
    if value is None or pd.isna(value):
        return ""
    seconds = pd.Timedelta(value).total_seconds()
    sign = "-" if seconds < 0 else ""
    seconds = abs(seconds)
    for index, (name, size) in enumerate(_UNITS[:-1]):
        if seconds >= size:
            smaller_name, smaller = _UNITS[index + 1]
            total = int(seconds // smaller)
            whole, rest = divmod(total, size // smaller)
            return f"{sign}{whole} {name}" + (f" {rest} {smaller_name}" if rest else "")
    return f"{sign}{int(seconds)} s"


def format_number(value: Any, *, whole: bool) -> str:
    """A number with thousands separators: whole, or with two decimals; empty for a missing one.

    Examples
    --------
    >>> format_number(1234.0, whole=True), format_number(2.5, whole=False), format_number(float("nan"), whole=True)
    ('1,234', '2.50', '')
    """
    if value is None or pd.isna(value):
        return ""
    return f"{value:,.0f}" if whole else f"{value:,.2f}"


def format_percent(value: Any) -> str:
    """A fraction (0..1) as a percentage with one decimal; empty for a missing one.

    Examples
    --------
    >>> format_percent(0.6049), format_percent(1.0), format_percent(None)
    ('60.5%', '100.0%', '')
    """
    if value is None or pd.isna(value):
        return ""
    return f"{value * 100:.1f}%"


def _all_whole(values: pd.Series) -> bool:
    present = pd.to_numeric(values, errors="coerce").dropna()
    return bool(((present - present.round()).abs() < 1e-9).all())


def _numbers(values: pd.Series) -> list[str]:
    whole = _all_whole(values)
    return [format_number(value, whole=whole) for value in values]


def _date_texts(values: pd.Series) -> list[str]:
    """Dates in their own timezone (the project's); the time of day only when some date has one."""
    stamps = pd.to_datetime(values)
    present = stamps.dropna()
    has_time = bool((present != present.dt.normalize()).any()) if len(present) else False
    pattern = "%Y-%m-%d %H:%M" if has_time else "%Y-%m-%d"
    return ["" if pd.isna(stamp) else stamp.strftime(pattern) for stamp in stamps]


def _trend_table(frame: pd.DataFrame) -> pd.DataFrame:
    frame = complete_trend_frame(frame)
    labels = frame["series"].astype(object).fillna("").astype(str)
    breakdown = frame["breakdown_value"].map(breakdown_label)
    labels = labels + breakdown.map(lambda text: f" - {text}" if text else "")
    previous = frame["compare_label"].astype(object).eq("previous")
    labels = labels + previous.map(lambda flag: " (previous)" if flag else "")
    whole = _all_whole(frame["value"])
    if frame["date"].isna().all():  # an aggregated display: one value per series
        table = pd.DataFrame({"value": [format_number(value, whole=whole) for value in frame["value"]]})
        table.index = pd.Index(list(labels), name="series")
        return table
    dates = _date_texts(frame.loc[~previous, "date"]) if (~previous).any() else _date_texts(frame["date"])
    rows = list(dict.fromkeys(dates))
    columns: dict[str, list[str]] = {}
    for label, group in frame.groupby(labels.to_numpy(), sort=False):
        texts = [format_number(value, whole=whole) for value in group["value"]]
        if group["compare_label"].astype(object).eq("previous").all():
            # a previous period has its own dates: put day n of it beside day n of the current period
            columns[str(label)] = (texts + [""] * len(rows))[: len(rows)]
        else:
            by_date = dict(zip(_date_texts(group["date"]), texts, strict=True))
            columns[str(label)] = [by_date.get(day, "") for day in rows]
    table = pd.DataFrame(columns, index=pd.Index(rows, name="date"))
    table.columns.name = None
    return table


def _funnel_table(frame: pd.DataFrame) -> pd.DataFrame:
    table = pd.DataFrame(index=pd.Index(frame["step"].astype(int).tolist(), name="step"))
    if frame["breakdown_value"].notna().any():
        table["breakdown"] = frame["breakdown_value"].map(breakdown_label).tolist()
    table["name"] = frame["name"].astype(object).fillna("").tolist()
    table["count"] = [format_number(value, whole=True) for value in frame["count"]]
    table["conversion"] = [format_percent(value) for value in frame["conversion_rate"]]
    table["from previous step"] = [format_percent(value) for value in frame["step_conversion_rate"]]
    table["dropped off"] = [format_number(value, whole=True) for value in frame["drop_off"]]
    table["average time"] = [format_duration(value) for value in frame["average_conversion_time"]]
    table["median time"] = [format_duration(value) for value in frame["median_conversion_time"]]
    return table


def _funnel_trends_table(frame: pd.DataFrame) -> pd.DataFrame:
    labels = frame["breakdown_value"].map(breakdown_label).map(lambda text: text or "conversion")
    rows = list(dict.fromkeys(_date_texts(frame["date"])))
    columns: dict[str, list[str]] = {}
    for label, group in frame.groupby(labels.to_numpy(), sort=False):
        by_date = dict(zip(_date_texts(group["date"]), map(format_percent, group["conversion_rate"]), strict=True))
        columns[str(label)] = [by_date.get(day, "") for day in rows]
    return pd.DataFrame(columns, index=pd.Index(rows, name="date"))


def _time_to_convert_table(frame: pd.DataFrame) -> pd.DataFrame:
    bins = [
        format_duration(start) + (f" to {format_duration(end)}" if not pd.isna(end) else "")
        for start, end in zip(frame["bin_start"], frame["bin_end"], strict=True)
    ]
    return pd.DataFrame(
        {"persons": [format_number(value, whole=True) for value in frame["count"]]},
        index=pd.Index(bins, name="time to convert"),
    )


def _any_table(frame: pd.DataFrame) -> pd.DataFrame:
    table = pd.DataFrame(index=frame.index)
    for name in frame.columns:
        values = frame[name]
        if isinstance(values.dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_any_dtype(values):
            table[name] = _date_texts(values)
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
            table[name] = values.map(breakdown_label).tolist()
        else:
            table[name] = values.astype(object).where(values.notna(), "").tolist()
    return table


def readable_table(frame: pd.DataFrame) -> pd.DataFrame:
    """A calculation frame as a table to read (text cells), the way PostHog's table view shows it.

    Trends give one row per date and one column per series (`` - <breakdown>``, `` (previous)`` for a
    compared period), counts as whole numbers and other values with two decimals; funnel steps give
    one row per step with conversion in percent and rounded conversion times; funnel trends one row
    per date; time to convert one row per bin. Breakdown buckets read ``None`` and ``Other``. Other
    frames keep their shape and get each column formatted by its type.

    Parameters
    ----------
    frame : pandas.DataFrame
        A frame from `Client.trend`, `Client.funnel` (any visualisation) or another calculation.

    Returns
    -------
    pandas.DataFrame
        Text cells (empty where there is no value); the tidy frame keeps the numbers.

    Examples
    --------
    >>> from toolkit.result_frames import trend_frame
    >>> tidy = trend_frame({"timezone": "Europe/Paris", "result": [
    ...     {"action": {"name": "$pageview"}, "days": ["2026-01-01", "2026-01-02"], "data": [1200, 5],
    ...      "breakdown_value": "$$_posthog_breakdown_null_$$"}]})
    >>> readable_table(tidy)
               $pageview - None
    date
    2026-01-01            1,200
    2026-01-02                5
    """
    columns = set(frame.columns)
    if {"date", "series", "value"} <= columns:
        return _trend_table(frame)
    if {"step", "name", "count", "conversion_rate", "step_conversion_rate"} <= columns:
        return _funnel_table(frame)
    if {"date", "breakdown_value", "conversion_rate"} == columns:
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
