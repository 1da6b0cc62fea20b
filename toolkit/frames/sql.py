"""A `HogQLQueryResponse` as a typed frame: the dtype of each column read from its ClickHouse type.

``types`` holds ``[name, type]`` pairs in ClickHouse's names on every engine; ``Nullable(...)`` and
``LowCardinality(...)`` are unwrapped first:

=================================================  ==========================================================
ClickHouse type                                    pandas dtype
=================================================  ==========================================================
String, FixedString(n), UUID, Enum8/16(...)        ``string``
UInt8..UInt256, Int8..Int256                       ``Int64``
Float32, Float64, Decimal(...)                     ``Float64``
Bool                                               ``boolean``
Date, Date32                                       ``datetime64[ns]`` (midnight of the day, no time zone)
DateTime, DateTime64(p[, 'tz'])                    ``datetime64[ns, tz]``: the column's own zone, else the
                                                   project's (the answer's ``timezone``), else UTC
Array(...), Tuple(...), Map(...), anything else    ``object`` (Python lists, dicts and values as sent)
=================================================  ==========================================================
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._columns import column

__all__ = ["clickhouse_dtype", "sql_column", "sql_frame"]

_WRAPPERS = re.compile(r"^(?:Nullable|LowCardinality)\((.*)\)$")
_INTEGER = re.compile(r"^U?Int(?:8|16|32|64|128|256)$")
_FLOAT = re.compile(r"^(?:Float(?:32|64)|Decimal(?:32|64|128|256)?\(.*\))$")
_STRING = re.compile(r"^(?:String|FixedString\(\d+\)|UUID|Enum(?:8|16)?\(.*\)|IPv4|IPv6)$")
_DATETIME = re.compile(r"^DateTime(?:64)?(?:\((?:\s*\d+\s*)?(?:,?\s*'(?P<tz>[^']*)')?\s*\))?$")


def _unwrap(type_name: str) -> str:
    name = type_name.strip()
    while match := _WRAPPERS.match(name):
        name = match.group(1).strip()
    return name


def clickhouse_dtype(type_name: str, timezone: str | None = None) -> Any:
    """The pandas dtype for a ClickHouse type name.

    Examples
    --------
    >>> clickhouse_dtype("Nullable(UInt64)")
    Int64Dtype()
    >>> clickhouse_dtype("DateTime64(6, 'Europe/Berlin')")
    datetime64[ns, Europe/Berlin]
    >>> clickhouse_dtype("DateTime('UTC')", "Asia/Tokyo"), clickhouse_dtype("DateTime", "Asia/Tokyo")
    (datetime64[ns, UTC], datetime64[ns, Asia/Tokyo])
    >>> clickhouse_dtype("Array(String)")
    dtype('O')
    """
    name = _unwrap(type_name)
    if _STRING.match(name):
        return pd.StringDtype()
    if _INTEGER.match(name):
        return pd.Int64Dtype()
    if _FLOAT.match(name):
        return pd.Float64Dtype()
    if name == "Bool":
        return pd.BooleanDtype()
    if name in ("Date", "Date32"):
        return np.dtype("datetime64[ns]")
    if match := _DATETIME.match(name):
        return pd.DatetimeTZDtype("ns", match.group("tz") or timezone or "UTC")
    return np.dtype("object")


def _float(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    return float(value)


def sql_column(values: Sequence[Any], type_name: str, timezone: str | None = None) -> Any:
    """The JSON values of one result column as an array of the column's dtype (`clickhouse_dtype`).

    Times arrive as ISO 8601 text with an offset (read as that instant), dates as ``YYYY-MM-DD``.

    Examples
    --------
    >>> list(sql_column(["2026-01-05T10:00:00+01:00", None], "Nullable(DateTime64(6, 'UTC'))"))
    [Timestamp('2026-01-05 09:00:00+0000', tz='UTC'), NaT]
    """
    dtype = clickhouse_dtype(type_name, timezone)
    if isinstance(dtype, pd.StringDtype):
        return pd.array([None if value is None else str(value) for value in values], dtype=dtype)
    if isinstance(dtype, pd.Int64Dtype):
        return pd.array([None if value is None else int(value) for value in values], dtype=dtype)
    if isinstance(dtype, pd.Float64Dtype):
        return pd.array([_float(value) for value in values], dtype=dtype)
    if isinstance(dtype, pd.BooleanDtype):
        return pd.array([None if value is None else bool(value) for value in values], dtype=dtype)
    if isinstance(dtype, pd.DatetimeTZDtype):
        parsed = pd.to_datetime(pd.Series(list(values), dtype=object), utc=True, format="ISO8601")
        return parsed.dt.tz_convert(dtype.tz).astype(dtype).array
    if dtype == np.dtype("datetime64[ns]"):
        parsed = pd.to_datetime(pd.Series(list(values), dtype=object), format="ISO8601")
        return parsed.astype(dtype).to_numpy()
    return column(values, "object")


def sql_frame(response: Mapping[str, Any], rows: Sequence[Sequence[Any]] | None = None) -> pd.DataFrame:
    """A frame of a `HogQLQueryResponse`: one column per ``columns`` entry, typed by ``types``.

    Parameters
    ----------
    response : Mapping
        The answer of ``/query/`` for a ``HogQLQuery`` (``columns``, ``types``, ``results``, ``timezone``).
    rows : Sequence, optional
        The rows to use instead of ``results`` (every page of a query read page by page).

    Returns
    -------
    pandas.DataFrame
        ``attrs`` keeps ``hogql``, ``clickhouse``, ``sqlite`` (the SQL the server ran, when it says),
        ``timezone`` and ``types`` (``{column: ClickHouse type}``).

    Examples
    --------
    >>> answer = {"columns": ["event", "c"], "types": [["event", "String"], ["c", "UInt64"]],
    ...           "results": [["signup", 3]], "timezone": "UTC"}
    >>> sql_frame(answer).dtypes.astype(str).to_dict()
    {'event': 'string', 'c': 'Int64'}
    """
    columns = [str(name) for name in response.get("columns") or []]
    pairs = [(str(pair[0]), str(pair[1])) for pair in response.get("types") or [] if len(pair) >= 2]
    if [name for name, _ in pairs] == columns:
        type_list = [type_name for _, type_name in pairs]  # by position: two columns may share a name
    else:
        by_name = dict(pairs)
        type_list = [by_name.get(name, "") for name in columns]
    timezone = response.get("timezone")
    data = list(response.get("results") or []) if rows is None else list(rows)
    arrays = [sql_column([row[index] for row in data], type_list[index], timezone) for index in range(len(columns))]
    # A frame built from a dict would merge columns of the same name (``select 1 as a, 2 as a``).
    frame = pd.DataFrame(dict(enumerate(arrays)), index=pd.RangeIndex(len(data)))
    frame.columns = pd.Index(columns)
    frame.attrs.update(
        {key: response.get(key) for key in ("hogql", "clickhouse", "sqlite") if response.get(key) is not None}
    )
    frame.attrs["timezone"] = timezone
    frame.attrs["types"] = dict(zip(columns, type_list, strict=True))
    return frame
