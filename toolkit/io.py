"""Writing toolkit frames to files where plain ``DataFrame.to_csv``/``to_parquet`` fall short.

Toolkit frames have object columns holding lists and dicts (``tags``, ``filters``, ``properties``,
``changes``) and ``attrs`` holding the response metadata. pandas writes such cells to CSV as Python
reprs, which nothing reads back, and pyarrow refuses columns that mix dicts and lists. These helpers
write those cells as JSON text and, for Parquet, keep ``attrs`` (made JSON-safe) in the file.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["to_csv", "to_parquet"]


def _json_cell(value: Any) -> Any:
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, default=str, ensure_ascii=False)
    return value


def _portable(df: pd.DataFrame) -> pd.DataFrame:
    out = df.copy()
    for name in out.columns:
        if out[name].dtype == np.dtype("object"):
            out[name] = pd.array([_json_cell(value) for value in out[name]], dtype=pd.StringDtype())
    out.attrs = json.loads(json.dumps(df.attrs, default=str))
    return out


def to_csv(df: pd.DataFrame, path: str | os.PathLike[str], **options: Any) -> None:
    """Write a toolkit frame to CSV with list and dict cells as JSON text.

    Parameters
    ----------
    df : pandas.DataFrame
    path : str or path
    **options
        Passed to `pandas.DataFrame.to_csv` (``index=False`` unless given).

    Examples
    --------
    >>> import io as _io
    >>> buffer = _io.StringIO()
    >>> to_csv(pd.DataFrame({"id": [1], "tags": [["a", "b"]]}), buffer)
    >>> buffer.getvalue()
    'id,tags\\n1,"[""a"", ""b""]"\\n'
    """
    options.setdefault("index", False)
    _portable(df).to_csv(path, **options)


def to_parquet(df: pd.DataFrame, path: str | os.PathLike[str], **options: Any) -> None:
    """Write a toolkit frame to Parquet (needs ``pyarrow``): JSON text for list and dict cells, ``attrs`` kept.

    Examples
    --------
    >>> to_parquet(client.insights(), "insights.parquet")  # doctest: +SKIP
    >>> pd.read_parquet("insights.parquet").attrs["source"]  # doctest: +SKIP
    """
    _portable(df).to_parquet(path, **options)
