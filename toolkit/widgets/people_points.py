"""The points of a result whose people can be listed: `PeoplePoint`, and the points of each kind of frame.

A point knows how to fetch its persons (``fetch()``, a `Client` call) and, where the plot allows a click on it,
where it is drawn (``anchor``, in the data coordinates of the figure's first axes; ``width`` for a bar, which
a click anywhere inside picks). Reading order:

- `url_points`: any tidy frame that keeps a people URL per row (``attrs["people_urls"]``: trends, stickiness,
  lifecycle); `client.people` follows the URL, so the panel lists exactly what ``client.people(row)`` lists;
- `trend_points`: those of a trend, anchored on the plotted line (line display, current period);
- `funnel_points`: a funnel steps frame: who reached each step (anchored on its bar) and who dropped before
  it, through `client.funnel_people`; other funnel views have no points.

A builder of another kind gives its own function of the same shape, ``(client, request, frame, figure) ->
list[PeoplePoint]``, to `toolkit.widgets.base.Builder.mount_people`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import matplotlib.dates as mdates
import pandas as pd
from matplotlib.container import BarContainer
from matplotlib.figure import Figure

from ..labels import breakdown_label
from ..plots.funnels import _groups as funnel_groups
from ..plots.style import local_dates

__all__ = ["LINE_DISPLAYS", "PeoplePoint", "PointsOf", "funnel_points", "point_label", "trend_points", "url_points"]

LINE_DISPLAYS = (None, "ActionsLineGraph", "ActionsAreaGraph")
"""Trend displays whose points sit at (date, value), where a click on the line can pick one."""


@dataclass(frozen=True)
class PeoplePoint:
    """One point, bar or step of a result, and how to list its persons.

    Attributes
    ----------
    label : str
        How the picker names it (``view · 2026-01-06: 3``).
    value : float or None
        What the chart shows for it (a count of events or of persons, by the math).
    fetch : callable
        Returns its persons (`toolkit.frames.PERSON_COLUMNS`).
    anchor : (float, float) or None
        Where it is drawn in the data coordinates of the figure's first axes; None: picked from the list only.
    width : float or None
        A bar's width: a click inside the bar (from 0 to ``anchor``'s height) picks it.
    row : int or None
        The position of its row in the result frame (``frame.iloc[row]``).
    height : float or None
        With ``width``, a box centred on ``anchor`` (a heat-map cell, a stacked segment, a paths node): a click
        inside it picks it.
    """

    label: str
    value: float | None
    fetch: Callable[[], pd.DataFrame]
    anchor: tuple[float, float] | None = None
    width: float | None = None
    row: int | None = None
    height: float | None = None


PointsOf = Callable[[Any, Any, pd.DataFrame, Figure | None], list[PeoplePoint]]
"""What a builder hands `Builder.mount_people`: the points of a result."""


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if pd.isna(number) else number


def _shown(value: float | None) -> str:
    if value is None:
        return "?"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def point_label(row: Mapping[str, Any] | pd.Series, names: dict[str, str] | None = None) -> str:
    """The picker's name of a row (a frame's row, or its record as a dict): its series, breakdown value, compare
    period, date or bucket, and value.

    Examples
    --------
    >>> row = pd.Series({"date": pd.Timestamp("2026-01-06", tz="UTC"), "series": "view", "value": 3})
    >>> point_label(row)
    'view · 2026-01-06: 3'
    >>> point_label({"series": "view", "breakdown_value": "pro", "interval": 2, "value": 1})
    'view · pro · 2 · 1'
    """

    def present(name: str) -> bool:
        return name in row and bool(pd.notna(row[name]))

    parts = [str(row["series"])] if present("series") else []
    if present("breakdown_value"):
        parts.append(breakdown_label(row["breakdown_value"], names))
    if present("compare_label"):
        parts.append(str(row["compare_label"]))
    for name in ("date", "interval", "status"):
        if present(name):
            where = row[name]
            if isinstance(where, pd.Timestamp):
                where = where.strftime("%Y-%m-%d" if where == where.normalize() else "%Y-%m-%d %H:%M")
            parts.append(str(where))
    value = _number(row["value"]) if "value" in row else None
    head = " · ".join(parts) or "point"
    return f"{head}: {_shown(value)}" if "date" in row and value is not None else f"{head} · {_shown(value)}"


def url_points(
    client: Any, frame: pd.DataFrame, anchors: list[tuple[float, float] | None] | None = None
) -> list[PeoplePoint]:
    """A point per row of ``frame`` that has a people URL (none without ``attrs["people_urls"]``)."""
    urls = frame.attrs.get("people_urls") or []
    names = frame.attrs.get("breakdown_labels")
    # records, not frame rows: a row of a frame costs pandas a Series and a deep copy of the frame's attrs
    records = frame.to_dict("records")
    points = []
    for position, url in enumerate(urls[: len(frame)]):
        if not url:
            continue
        row = records[position]
        anchor = anchors[position] if anchors is not None else None
        value = _number(row["value"]) if "value" in row else None
        fetch = partial(client.people, url)
        points.append(PeoplePoint(point_label(row, names), value, fetch, anchor, row=position))
    return points


def _line_anchors(frame: pd.DataFrame, request: Any) -> list[tuple[float, float] | None] | None:
    """Where `plot_trend` draws each row on a line display: (the date as matplotlib reads it, the value)."""
    display = getattr(request, "display", None)
    if display not in LINE_DISPLAYS or "date" not in frame.columns or "value" not in frame.columns:
        return None
    xs = mdates.date2num(local_dates(frame["date"]).dt.to_pydatetime())
    previous = frame["compare_label"].eq("previous").fillna(False) if "compare_label" in frame.columns else None
    anchors: list[tuple[float, float] | None] = []
    for position, (x, value) in enumerate(zip(xs, frame["value"], strict=True)):
        number = _number(value)
        # the previous period is drawn over the current one's dates: picked from the list only
        skip = number is None or (previous is not None and bool(previous.iloc[position]))
        anchors.append(None if skip else (float(x), number))
    return anchors


def trend_points(client: Any, request: Any, frame: pd.DataFrame, figure: Figure | None = None) -> list[PeoplePoint]:
    """The points of a tidy trend frame, anchored on the line where the display is a line."""
    return url_points(client, frame, _line_anchors(frame, request))


def funnel_points(client: Any, request: Any, frame: pd.DataFrame, figure: Figure | None = None) -> list[PeoplePoint]:
    """Who reached each step (and breakdown value) of a funnel steps frame, and who dropped off before it.

    Reached steps are anchored on their bars when ``figure`` is the funnel's bar chart.
    """
    if getattr(request, "viz_type", "steps") != "steps" or "step" not in frame.columns or frame.empty:
        return []
    bars: list[BarContainer] = []
    if figure is not None and figure.axes:
        bars = [item for item in figure.axes[0].containers if isinstance(item, BarContainer)]
    groups = funnel_groups(frame)
    reached: list[PeoplePoint] = []
    dropped: list[PeoplePoint] = []
    positions = {label: position for position, label in enumerate(frame.index)}
    for offset, (label, rows) in enumerate(groups):
        rows = rows.sort_values("step")
        patches = bars[offset].patches if offset < len(bars) and len(bars[offset].patches) == len(rows) else None
        for index, (frame_label, row) in enumerate(rows.iterrows()):
            step = int(row["step"])
            value = row.get("breakdown_value")
            kept = None if value is None or pd.isna(value) else value
            where = f" ({label})" if label is not None and "breakdown_value" in frame.columns else ""
            name = f"Step {step} {row['name']}{where}"
            anchor, width = None, None
            if patches is not None:  # the builder draws the steps as vertical bars
                patch = patches[index]
                anchor = (patch.get_x() + patch.get_width() / 2, patch.get_height())
                width = patch.get_width()

            def fetch(step: int = step, kept: Any = kept, dropped: bool = False) -> pd.DataFrame:
                return client.funnel_people(request, step=step, dropped=dropped, breakdown_value=kept)

            count = _number(row["count"])
            at = positions[frame_label]
            reached.append(PeoplePoint(f"{name}: reached · {_shown(count)}", count, fetch, anchor, width, at))
            if step > 1:
                lost = _number(row["drop_off"])
                dropped.append(
                    PeoplePoint(
                        f"{name}: dropped off before it · {_shown(lost)}",
                        lost,
                        partial(fetch, step, kept, True),
                        row=at,
                    )
                )
    return [*reached, *dropped]
