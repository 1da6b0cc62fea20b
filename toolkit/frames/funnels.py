"""Funnel responses as frames, one per visualisation: `funnel_frame` (steps), `funnel_trends_frame`
(conversion over time) and `time_to_convert_frame` (the histogram).

Rates are fractions (0..1) and durations Timedeltas. Without a breakdown the frames have no
``breakdown_value`` column (it would read ``<NA>`` on every row).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ._columns import column, text, typed_frame
from ._responses import bucket_dates, drop_empty_columns, response_metadata, response_results

__all__ = [
    "FUNNEL_COLUMNS",
    "FUNNEL_TRENDS_COLUMNS",
    "TIME_TO_CONVERT_COLUMNS",
    "funnel_frame",
    "funnel_trends_frame",
    "time_to_convert_frame",
]

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
"""Every column a funnel steps frame can have; ``breakdown_value`` only when the result is broken down."""
FUNNEL_TRENDS_COLUMNS = ("date", "breakdown_value", "conversion_rate")
"""Every column a funnel trends frame can have; ``breakdown_value`` only when the result is broken down."""
TIME_TO_CONVERT_COLUMNS = ("bin_start", "bin_end", "count")


def _step_name(step: Mapping[str, Any]) -> str | None:
    return step.get("custom_name") or step.get("name") or text(step.get("action_id"))


def funnel_frame(response: Mapping[str, Any]) -> pd.DataFrame:
    """A funnel ``steps`` response as one row per step (and breakdown value).

    Returns
    -------
    pandas.DataFrame
        Columns ``breakdown_value`` (string; only with a breakdown), ``step`` (Int64, 1 for the first step),
        ``name`` (string: custom name, else the event or action name), ``action_id`` (string), ``count``
        (Int64), ``conversion_rate`` (float64: count / first step's count), ``step_conversion_rate``
        (float64: count / previous step's count, 1.0 on step 1), ``drop_off`` (Int64: previous count -
        count, 0 on step 1), ``average_conversion_time`` and ``median_conversion_time`` (timedelta64[ns]
        from the previous step; NaT on step 1 and where nobody converted). Rates are NaN when the
        denominator is 0. A cohort breakdown keeps the cohort id in ``breakdown_value``;
        ``attrs["breakdown_labels"]`` maps it to the cohort's name, which tables and plots show.

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
    names: dict[str, str] = {}
    for group in groups:
        ordered = sorted(group, key=lambda step: step.get("order") or 0)
        first = ordered[0].get("count") if ordered else None
        previous = None
        for step in ordered:
            count = step.get("count") or 0
            _note_cohort_name(names, step)
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
    frame = drop_empty_columns(typed_frame(rows, FUNNEL_COLUMNS), ["breakdown_value"])
    frame.attrs = response_metadata(response)
    if names:
        frame.attrs["breakdown_labels"] = names
    return frame


def _note_cohort_name(names: dict[str, str], item: Mapping[str, Any]) -> None:
    """Record a cohort's name: the API sends its id as ``breakdown_value`` and its name as ``breakdown``."""
    value, shown = item.get("breakdown_value"), item.get("breakdown")
    if isinstance(shown, str) and value is not None and not isinstance(value, list) and shown != text(value):
        names[text(value) or ""] = shown


def funnel_trends_frame(response: Mapping[str, Any]) -> pd.DataFrame:
    """A funnel ``trends`` response (conversion rate per entrance period) as a tidy frame.

    Returns
    -------
    pandas.DataFrame
        ``date`` (datetime64[ns, <project tz>], the period start), ``breakdown_value`` (string; only with a
        breakdown), ``conversion_rate`` (float64 fraction; the API's percentages divided by 100); a cohort
        breakdown's names in ``attrs["breakdown_labels"]``, as for steps.

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
    names: dict[str, str] = {}
    for item in response_results(response) or []:
        _note_cohort_name(names, item)
        for day, rate in zip(item["days"], item["data"], strict=True):
            days.append(day)
            breakdowns.append(item.get("breakdown_value"))
            rates.append(None if rate is None else float(rate) / 100)
    frame = pd.DataFrame(
        {
            "date": bucket_dates(days, timezone),
            "breakdown_value": column(breakdowns, "string"),
            "conversion_rate": column(rates, "float"),
        }
    )
    frame = drop_empty_columns(frame, ["breakdown_value"])
    frame.attrs = {**response_metadata(response), "timezone": timezone}
    if names:
        frame.attrs["breakdown_labels"] = names
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
        **response_metadata(response),
        "average_conversion_time": pd.NaT if average is None else pd.Timedelta(seconds=float(average)),
    }
    return frame
