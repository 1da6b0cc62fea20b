"""Retention responses as a tidy cohort frame: `retention_frame`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ._columns import keep_people_urls, typed_frame
from ._responses import drop_empty_columns, response_metadata, response_results

__all__ = ["RETENTION_COLUMNS", "retention_frame"]

RETENTION_COLUMNS = ("cohort_date", "cohort", "breakdown_value", "period", "count", "retention_rate")
"""Every column a retention frame can have; ``breakdown_value`` only when the result is broken down."""


def retention_frame(response: Mapping[str, Any]) -> pd.DataFrame:
    """A retention response as a tidy cohort table.

    Returns
    -------
    pandas.DataFrame
        One row per cohort and period: ``cohort_date`` (datetime64[ns, <project tz>]), ``cohort`` (string,
        the API's label such as ``Day 0``), ``breakdown_value`` (string; only with a breakdown), ``period``
        (Int64, 0 = the cohort's own period), ``count`` (Int64) and ``retention_rate`` (float64: count /
        the cohort's period-0 count, NaN when that is 0). Where the answer links its cells to their people,
        ``attrs["people_urls"]`` holds each row's cell URL (by position; `toolkit.Client.people` follows it).

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
    urls: list[str | None] = []
    for row in response_results(response) or []:
        values = row.get("values") or []
        size = (values[0].get("count") or 0) if values else 0
        for period, value in enumerate(values):
            count = value.get("count") or 0
            dates.append(row.get("date"))
            urls.append(value.get("people_url") if isinstance(value, Mapping) else None)
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
    frame = drop_empty_columns(frame, ["breakdown_value"])
    frame.attrs = {**response_metadata(response), "timezone": timezone}
    keep_people_urls(frame, urls)
    return frame
