"""What every calculation frame takes from a response: its results, its metadata and its bucket dates.

A calculation answers either the legacy envelope (``{"result": ..., "timezone": ...}``) or the query API's
(``{"results": ...}``); the frames keep everything except the results in ``DataFrame.attrs``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ._columns import localize, shared

__all__ = ["bucket_dates", "drop_empty_columns", "response_metadata", "response_results"]


def response_results(response: Mapping[str, Any]) -> Any:
    """The results of a calculation response: ``result`` (legacy endpoints) or ``results`` (query API).

    Examples
    --------
    >>> response_results({"result": [1]}), response_results({"results": [2]})
    ([1], [2])
    """
    return response["result"] if "result" in response else response.get("results")


def response_metadata(response: Mapping[str, Any]) -> dict[str, Any]:
    """Everything in ``response`` except its results (timezone, last_refresh, the request, ...), its dicts and
    lists shared by the frames pandas makes from one (:func:`._columns.shared`)."""
    return {key: shared(value) for key, value in response.items() if key not in ("result", "results")}


def bucket_dates(values: Sequence[Any], timezone: str) -> pd.arrays.DatetimeArray:
    """Bucket starts (local wall-clock text, None for none) as datetimes in ``timezone``."""
    present = [value for value in values if value is not None]
    stamps = localize(present, timezone) if present else pd.DatetimeIndex([], tz=timezone).as_unit("ns")
    out = pd.Series(pd.NaT, index=range(len(values)), dtype=pd.DatetimeTZDtype("ns", timezone))
    positions = [i for i, value in enumerate(values) if value is not None]
    out.iloc[positions] = stamps
    return out.array


def drop_empty_columns(frame: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    """``frame`` without those of ``names`` that hold nothing but NA: a column of ``<NA>`` on every row (no
    breakdown, no comparison) tells a reader nothing.

    Examples
    --------
    >>> frame = pd.DataFrame({"breakdown_value": pd.array([None], dtype="string"), "count": [3]})
    >>> drop_empty_columns(frame, ["breakdown_value"]).columns.tolist()
    ['count']
    """
    empty = [name for name in names if name in frame.columns and frame[name].isna().all()]
    return frame.drop(columns=empty) if empty else frame
