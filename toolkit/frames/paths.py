"""Paths responses as one row per edge: `paths_frame`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ._columns import text, typed_frame
from ._responses import response_metadata, response_results

__all__ = ["PATHS_COLUMNS", "paths_frame"]

PATHS_COLUMNS: dict[str, str] = {
    "step": "int",
    "source": "string",
    "target": "string",
    "source_name": "string",
    "target_name": "string",
    "value": "int",
    "average_conversion_time": "timedelta",
}


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
    frame.attrs = response_metadata(response)
    return frame
