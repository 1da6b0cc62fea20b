"""The points with people of stickiness, lifecycle, retention and paths results (see `people_points` for the
trend and funnel ones, and `PeoplePoint`).

- `stickiness_points`: a bucket (k intervals) per series, breakdown value and period, anchored on its bar;
- `lifecycle_points`: an interval x status; a click inside its stacked segment picks it;
- `retention_points`: a cohort cell (cohort x period); a click inside its cell of the heat map picks it (one
  table; with a breakdown, the picker);
- `path_points`: who reached each node, then who made each edge, through `Client.path_people`; a click inside
  a node's rectangle picks the node (edges from the picker).

Stickiness, lifecycle and retention rows carry a people URL, so a point lists exactly what
``client.people(frame.iloc[i])`` lists.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

import pandas as pd
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..labels import breakdown_label
from .people_points import PeoplePoint, url_points

__all__ = ["lifecycle_points", "path_points", "retention_points", "stickiness_points"]


def _bars(figure: Figure | None) -> dict[str, BarContainer]:
    if figure is None or not figure.axes:
        return {}
    return {str(item.get_label()): item for item in figure.axes[0].containers if isinstance(item, BarContainer)}


def _present(row: pd.Series, name: str) -> Any:
    return row[name] if name in row.index and pd.notna(row[name]) else None


def stickiness_points(
    client: Any, request: Any, frame: pd.DataFrame, figure: Figure | None = None
) -> list[PeoplePoint]:
    """A point per bucket of a tidy stickiness frame; a click inside its bar picks it."""
    bars = _bars(figure)
    names = frame.attrs.get("breakdown_labels")
    slots = {value: number for number, value in enumerate(sorted({int(v) for v in frame.get("intervals", [])}))}
    anchors: list[tuple[float, float] | None] = []
    widths: list[float | None] = []
    for _, row in frame.iterrows():
        label = str(row["series"])
        breakdown, compare = _present(row, "breakdown_value"), _present(row, "compare_label")
        label += f" - {breakdown_label(breakdown, names)}" if breakdown is not None else ""
        label += f" ({compare})" if compare is not None else ""
        slot = slots.get(int(row["intervals"])) if pd.notna(row["intervals"]) else None
        found = [
            patch
            for patch in (bars[label].patches if label in bars and slot is not None else [])
            if abs(patch.get_x() + patch.get_width() / 2 - slot) < 0.4
        ]
        patch = found[0] if len(found) == 1 else None
        anchors.append(None if patch is None else (patch.get_x() + patch.get_width() / 2, patch.get_height()))
        widths.append(None if patch is None else patch.get_width())
    return [
        replace(point, label=_bucket_label(frame.iloc[point.row], names, point.value), width=widths[point.row])
        for point in url_points(client, frame, anchors)
        if point.row is not None
    ]


def _bucket_label(row: pd.Series, names: dict[str, str] | None, value: float | None) -> str:
    """``view · pro · 2 days: 1`` (series, breakdown value, compare period, bucket: persons)."""
    parts = [str(row["series"])]
    breakdown, compare = _present(row, "breakdown_value"), _present(row, "compare_label")
    parts += [breakdown_label(breakdown, names)] if breakdown is not None else []
    parts += [str(compare)] if compare is not None else []
    bucket = _present(row, "interval_label") or f"{row['intervals']} intervals"
    return f"{' · '.join(parts)} · {bucket}: {'?' if value is None else f'{value:,.0f}'}"


def lifecycle_points(client: Any, request: Any, frame: pd.DataFrame, figure: Figure | None = None) -> list[PeoplePoint]:
    """A point per interval and status of a tidy lifecycle frame, anchored in the middle of its segment."""
    bars = _bars(figure)
    dates = sorted(set(frame["date"].dropna())) if "date" in frame.columns else []
    slots = {stamp: number for number, stamp in enumerate(dates)}
    boxes: list[tuple[tuple[float, float], float, float] | None] = []
    for _, row in frame.iterrows():
        container = bars.get(str(row["status"]))
        slot = slots.get(row["date"])
        patches = container.patches if container is not None else []
        if slot is None or len(patches) != len(dates) or not row["value"]:
            boxes.append(None)
            continue
        patch = patches[slot]
        middle = (patch.get_x() + patch.get_width() / 2, patch.get_y() + patch.get_height() / 2)
        boxes.append((middle, patch.get_width(), abs(patch.get_height())))
    anchors = [box[0] if box is not None else None for box in boxes]
    return [_boxed(point, boxes[point.row]) for point in url_points(client, frame, anchors)]


def _boxed(point: PeoplePoint, box: tuple[tuple[float, float], float, float] | None) -> PeoplePoint:
    return point if box is None else replace(point, anchor=box[0], width=box[1], height=box[2])


def retention_points(client: Any, request: Any, frame: pd.DataFrame, figure: Figure | None = None) -> list[PeoplePoint]:
    """A point per cohort cell; without a breakdown, anchored on its cell (x the period, y the cohort's row)."""
    urls = frame.attrs.get("people_urls") or []
    one_table = "breakdown_value" not in frame.columns
    cohorts: dict[Any, int] = {}
    points = []
    for position, url in enumerate(urls[: len(frame)]):
        row = frame.iloc[position]
        number = cohorts.setdefault((row["cohort_date"], _present(row, "breakdown_value")), len(cohorts))
        if not url:
            continue
        period, count = int(row["period"]), int(row["count"])
        when = row["cohort_date"].strftime("%Y-%m-%d %H:%M" if row["cohort_date"].hour else "%Y-%m-%d")
        breakdown = _present(row, "breakdown_value")
        where = f" · {breakdown}" if breakdown is not None else ""
        what = "in the cohort" if period == 0 else f"back in period {period}"
        label = f"{row['cohort']} ({when}){where}: {what} · {count:,}"
        anchor = (float(period), float(number)) if one_table and figure is not None else None
        size = 1.0 if anchor is not None else None  # a click anywhere in the cell
        fetch = partial(client.people, url)
        points.append(PeoplePoint(label, float(count), fetch, anchor, size, position, size))
    return points


def _node_boxes(figure: Figure | None) -> dict[str, tuple[tuple[float, float], float, float]]:
    """Where `plot_paths` drew each node (``"2_/pricing"``): the middle of its rectangle, its width and height."""
    if figure is None or not figure.axes:
        return {}
    found = {}
    for patch in figure.axes[0].patches:
        gid = patch.get_gid() or ""
        if isinstance(patch, Rectangle) and gid.startswith("node:"):
            _, step, name = gid.split(":", 2)
            middle = (patch.get_x() + patch.get_width() / 2, patch.get_y() + patch.get_height() / 2)
            found[f"{step}_{name}"] = (middle, patch.get_width(), patch.get_height())
    return found


def _sessions(count: float) -> str:
    return f"{count:,.0f} session" + ("" if count == 1 else "s")


def path_points(client: Any, request: Any, frame: pd.DataFrame, figure: Figure | None = None) -> list[PeoplePoint]:
    """Who reached each node of a paths frame (by step, the busiest first), then who made each edge."""
    if frame.empty or "source" not in frame.columns:
        return []
    sizes: dict[str, list[float]] = {}
    shown: dict[str, tuple[int, str]] = {}
    for row in frame.itertuples(index=False):
        step = int(row.step)
        sizes.setdefault(str(row.source), [0.0, 0.0])[1] += float(row.value)
        sizes.setdefault(str(row.target), [0.0, 0.0])[0] += float(row.value)
        shown[str(row.source)] = (step, str(row.source_name))
        shown[str(row.target)] = (step + 1, str(row.target_name))
    boxes = _node_boxes(figure)
    nodes = sorted(sizes, key=lambda key: (shown[key][0], -max(sizes[key]), key))
    points = []
    for key in nodes:
        step, name = shown[key]
        sessions = max(sizes[key])
        fetch = partial(client.path_people, request, end_key=key)
        label = f"Step {step} {name}: reached · {_sessions(sessions)}"
        points.append(_boxed(PeoplePoint(label, sessions, fetch), boxes.get(key)))
    for position, row in enumerate(frame.itertuples(index=False)):
        fetch = partial(client.path_people, request, start_key=str(row.source), end_key=str(row.target))
        label = f"Step {int(row.step)} {row.source_name} → {row.target_name} · {_sessions(row.value)}"
        points.append(PeoplePoint(label, float(row.value), fetch, row=position))
    return points
