"""Typed columns: the one place that turns JSON values into pandas dtypes.

Every frame function declares its columns as ``{name: kind}`` and `typed_frame` builds it, so the dtypes
are the same whatever the payload held (an empty answer still gives every column with its dtype).

Kinds: ``string`` (pandas ``string``), ``int`` (``Int64``), ``float`` (``float64``), ``bool``
(``boolean``), ``datetime`` (``datetime64[ns, UTC]``), ``timedelta`` (``timedelta64[ns]`` from seconds),
``object`` (lists and dicts kept as Python objects).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["DTYPES", "column", "localize", "shared", "typed_frame", "text"]

DTYPES: dict[str, Any] = {
    "string": pd.StringDtype(),
    "int": pd.Int64Dtype(),
    "float": np.dtype("float64"),
    "bool": pd.BooleanDtype(),
    "datetime": pd.DatetimeTZDtype("ns", "UTC"),
    "timedelta": np.dtype("timedelta64[ns]"),
    "object": np.dtype("object"),
}


def text(value: Any) -> str | None:
    """A JSON value as display text: lists joined with ``::`` (PostHog's multi-value label), None kept."""
    if value is None:
        return None
    if isinstance(value, list | tuple):
        return "::".join("" if item is None else str(item) for item in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _number(value: Any) -> float:
    if value is None or isinstance(value, bool):
        return np.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        return np.nan


def column(values: Sequence[Any], kind: str) -> pd.api.extensions.ExtensionArray | np.ndarray:
    """Convert a list of JSON values to an array of the dtype for ``kind``."""
    if kind == "string":
        return pd.array([text(value) for value in values], dtype=DTYPES["string"])
    if kind == "int":
        return pd.array([None if value is None else int(value) for value in values], dtype=DTYPES["int"])
    if kind == "float":
        return np.array([_number(value) for value in values], dtype="float64")
    if kind == "bool":
        return pd.array([None if value is None else bool(value) for value in values], dtype=DTYPES["bool"])
    if kind == "datetime":
        parsed = pd.to_datetime(pd.Series(list(values), dtype=object), utc=True, format="ISO8601")
        return parsed.astype(DTYPES["datetime"]).array
    if kind == "timedelta":
        seconds = np.array([_number(value) for value in values], dtype="float64")
        return pd.to_timedelta(seconds, unit="s").astype("timedelta64[ns]").to_numpy()
    if kind == "object":
        array = np.empty(len(values), dtype=object)
        array[:] = list(values)
        return array
    raise ValueError(f"unknown column kind {kind!r}")


def typed_frame(records: Iterable[Mapping[str, Any]], columns: Mapping[str, str]) -> pd.DataFrame:
    """Build a frame with exactly ``columns`` (in order, with their dtypes) from dict records."""
    rows = list(records)
    data = {name: column([row.get(name) for row in rows], kind) for name, kind in columns.items()}
    return pd.DataFrame(data, index=pd.RangeIndex(len(rows)))


def localize(days: Sequence[str], timezone: str | None) -> pd.DatetimeIndex:
    """Bucket starts given as local wall-clock text (``days``) as tz-aware timestamps in ``timezone``.

    An ambiguous wall-clock time (the repeated hour when clocks go back) is read as standard time and a
    non-existent one (the skipped hour) moves forward, so a bucket is never lost.
    """
    naive = pd.DatetimeIndex(pd.to_datetime(list(days), format="ISO8601")).as_unit("ns")
    if naive.tz is not None:
        return naive.tz_convert(timezone or "UTC")
    return naive.tz_localize(timezone or "UTC", ambiguous=np.zeros(len(naive), dtype=bool), nonexistent="shift_forward")


def point_urls(item: Mapping[str, Any], points: int) -> list[str | None]:
    """A series' people URL per point (its ``persons_urls``, in the order of ``days``), None where it has none."""
    links = list(item.get("persons_urls") or [])
    urls = [link.get("url") if isinstance(link, Mapping) else None for link in links[:points]]
    return urls + [None] * (points - len(urls))


class RowTuple(tuple):
    """A value per row, by row position: a tuple that pandas' deep copy of ``attrs`` shares.

    pandas deep-copies a frame's ``attrs`` into every frame made from it (a column, a slice, a sort): a list of
    a few hundred URLs was copied element by element hundreds of times while a builder drew one chart. The values
    never change, so a copy of this tuple is the tuple itself.
    """

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> RowTuple:
        return self


class SharedDict(dict):
    """A dict of ``attrs`` (the request body, a response's metadata) that pandas' deep copy shares, as
    :class:`RowTuple`: about 80 copies of its items for each operation on a frame otherwise."""

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> SharedDict:
        return self


class SharedList(list):
    """A list of ``attrs`` (a response's ``timings``) that pandas' deep copy shares, as :class:`SharedDict`."""

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> SharedList:
        return self


def shared(value: Any) -> Any:
    """``value`` as an ``attrs`` value pandas shares instead of copying: dicts and lists wrapped, the rest as is.

    >>> import copy
    >>> request = shared({"events": [{"id": "a"}]})
    >>> copy.deepcopy(request) is request, request == {"events": [{"id": "a"}]}
    (True, True)
    """
    if type(value) is dict:
        return SharedDict(value)
    if type(value) is list:
        return SharedList(value)
    return value


class PeopleUrls(RowTuple):
    """Each row's people URL (or None), by row position."""

    __slots__ = ()


class ActorPoints(RowTuple):
    """Each row's point as PostHog's ``InsightActorsQuery`` names it (or None), by row position."""

    __slots__ = ()


def actor_point(item: Mapping[str, Any], day: Any = None) -> dict[str, Any] | None:
    """The point of ``item`` (a series of a trend, stickiness or lifecycle answer) on ``day`` (as its ``days``
    show it, a stickiness bucket's number; None for an aggregated display) in ``InsightActorsQuery`` fields:
    ``series`` (the series' ``order``, as PostHog's persons modal sends it), ``day``, ``breakdown`` and ``compare``,
    each only when the series has it. None for a series that counts no actors of its own (a formula has no
    ``action``).

    Examples
    --------
    >>> actor_point({"action": {"order": 1}, "breakdown_value": "pro", "compare_label": "current"}, "2026-01-05")
    {'series': 1, 'day': '2026-01-05', 'breakdown': 'pro', 'compare': 'current'}
    >>> actor_point({"action": None, "breakdown_value": "A*2"}, "2026-01-05") is None
    True
    """
    action = item.get("action")
    if not isinstance(action, Mapping):
        return None
    fields = {
        "series": action.get("order") or 0,
        "day": day,
        "breakdown": item.get("breakdown_value"),
        "compare": item.get("compare_label"),
    }
    return {key: value for key, value in fields.items() if value is not None}


def keep_people_urls(
    frame: pd.DataFrame, urls: list[str | None], points: list[dict[str, Any] | None] | None = None
) -> None:
    """Record each row's people URL in ``attrs["people_urls"]`` (by row position) when any point has one; when
    none has, each row's ``InsightActorsQuery`` point (``points``) in ``attrs["actor_points"]``, from which
    `toolkit.Client.people` asks the query API for them (PostHog's query answers carry no URLs)."""
    if any(url is not None for url in urls):
        frame.attrs["people_urls"] = PeopleUrls(urls)
    elif points and any(point is not None for point in points):
        frame.attrs["actor_points"] = ActorPoints(points)
