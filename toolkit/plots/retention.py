"""Plots of who comes back and where they go: the retention heat-map table and the paths flow drawing."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.patches import PathPatch, Rectangle
from matplotlib.path import Path

from ..labels import breakdown_label
from .style import format_count, format_percent, literal_text, new_axes, no_data, series_colors

__all__ = ["plot_paths", "plot_retention"]

_NODE_WIDTH = 0.08
_NODE_GAP = 0.03
DEFAULT_MAX_EDGES = 40


def _period_from_labels(labels: pd.Series) -> str:
    """The period's name from the API's cohort labels (``Week 0`` -> ``Week``), else ``Period``."""
    first = next((str(label) for label in labels.dropna()), "")
    match = re.fullmatch(r"([A-Za-z]+) \d+", first)
    return match.group(1) if match else "Period"


def _cohort_text(row: pd.Series, multiple: bool) -> str:
    stamp = row["cohort_date"]
    text = row["cohort"] if pd.isna(stamp) else stamp.strftime("%b %d %H:%M" if stamp.hour else "%b %d, %Y")
    size = format_count(row["count"])
    prefix = f"{breakdown_label(row['breakdown_value'])} · " if multiple else ""
    return f"{prefix}{text} ({size})"


def plot_retention(
    df: pd.DataFrame, ax: Axes | None = None, *, breakdown_value: str | None = None, title: str | None = None
) -> Axes:
    """Plot a retention frame from `Client.retention` as a heat-map table.

    One row per cohort (labelled with its date and size), one column per period; each cell is coloured by
    its retention rate and shows it in percent. Periods a cohort has not reached yet stay blank.

    Parameters
    ----------
    df : pandas.DataFrame
        A retention frame (``cohort_date, cohort, period, count, retention_rate``, and ``breakdown_value``
        with a breakdown).
    ax : matplotlib.axes.Axes, optional
    breakdown_value : str, optional
        With a breakdown, the value whose cohorts to show; by default every value's cohorts, labelled.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.images[0]`` holds the rates (rows are cohorts, columns periods).

    Examples
    --------
    >>> table = pd.DataFrame({"cohort_date": pd.to_datetime(["2026-01-01"] * 2, utc=True), "cohort": "Day 0",
    ...     "breakdown_value": pd.NA, "period": [0, 1], "count": [4, 1], "retention_rate": [1.0, 0.25]})
    >>> plot_retention(table).images[0].get_array().tolist()
    [[1.0, 0.25]]
    """
    ax = new_axes(ax, figsize=(9.0, 5.0))
    if "breakdown_value" not in df.columns:  # a retention without breakdown has no such column
        df = df.assign(breakdown_value=pd.array([pd.NA] * len(df), dtype="string"))
    if breakdown_value is not None:
        df = df[df["breakdown_value"].eq(breakdown_value).fillna(False).astype(bool)]
    request = df.attrs.get("request") or {}
    period_name = str(request.get("period") or _period_from_labels(df["cohort"]))
    ax.set_title(title if title is not None else f"Retention by {period_name.lower()}")
    if df.empty:
        return literal_text(no_data(ax))
    keys = ["breakdown_value", "cohort_date", "cohort"]
    frame = df.assign(breakdown_value=df["breakdown_value"].astype(object).where(df["breakdown_value"].notna(), ""))
    cohorts = frame[frame["period"] == 0].drop_duplicates(keys)
    periods = int(frame["period"].max()) + 1 if len(frame) else 0
    rates = np.full((len(cohorts), periods), np.nan)
    index = {tuple(row): number for number, row in enumerate(cohorts[keys].itertuples(index=False, name=None))}
    for row in frame.itertuples(index=False):
        number = index.get((row.breakdown_value, row.cohort_date, row.cohort))
        if number is not None:
            rates[number, int(row.period)] = row.retention_rate
    masked = np.ma.masked_invalid(rates)
    image = ax.imshow(masked, cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto", interpolation="nearest")
    for (number, period), rate in np.ndenumerate(rates):
        if not np.isnan(rate):
            ax.text(
                period,
                number,
                format_percent(rate),
                ha="center",
                va="center",
                fontsize="small",
                color="white" if rate > 0.6 else "black",
            )
    multiple = cohorts["breakdown_value"].nunique() > 1
    ax.set_yticks(range(len(cohorts)), [_cohort_text(row, multiple) for _, row in cohorts.iterrows()])
    ax.set_xticks(range(periods), [f"{period_name} {period}" for period in range(periods)])
    ax.xaxis.set_ticks_position("top")
    ax.tick_params(axis="x", labelrotation=45 if periods > 8 else 0, length=0)
    ax.tick_params(axis="y", length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    image.set_gid("retention")
    return literal_text(ax)


def _band(x0: float, top0: float, x1: float, top1: float, height: float) -> Path:
    """A ribbon from a node's right edge to the next node's left edge, ``height`` thick, curved in the middle."""
    middle = (x0 + x1) / 2
    vertices = [
        (x0, top0),
        (middle, top0),
        (middle, top1),
        (x1, top1),
        (x1, top1 - height),
        (middle, top1 - height),
        (middle, top0 - height),
        (x0, top0 - height),
        (x0, top0),
    ]
    codes = [Path.MOVETO, *[Path.CURVE4] * 3, Path.LINETO, *[Path.CURVE4] * 3, Path.CLOSEPOLY]
    return Path(vertices, codes)


def plot_paths(
    df: pd.DataFrame, ax: Axes | None = None, *, max_edges: int = DEFAULT_MAX_EDGES, title: str | None = None
) -> Axes:
    """Plot a paths frame from `Client.paths` as a flow drawing (a simple Sankey diagram).

    Each step is a column of nodes (pages or events) whose heights follow the number of transitions through
    them; ribbons as thick as each edge's ``value`` join a node to the next step's.

    Parameters
    ----------
    df : pandas.DataFrame
        A paths frame (``step, source_name, target_name, value, ...``).
    ax : matplotlib.axes.Axes, optional
    max_edges : int
        Draw only this many of the largest edges, so a long tail stays readable.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        Node rectangles carry the gid ``node:<step>:<name>``; ribbons are the PathPatches.

    Examples
    --------
    >>> edges = pd.DataFrame({"step": [1], "source_name": ["/home"], "target_name": ["/pricing"], "value": [7]})
    >>> sorted(text.get_text() for text in plot_paths(edges).texts)
    ['/home (7)', '/pricing (7)']
    """
    if max_edges < 1:
        raise ValueError("max_edges must be at least 1")
    ax = new_axes(ax, figsize=(10.0, 5.5))
    ax.set_title(title if title is not None else "Paths")
    ax.set_axis_off()
    edges = df.dropna(subset=["step", "value"]).sort_values("value", ascending=False, kind="stable").head(max_edges)
    if edges.empty:
        return literal_text(no_data(ax))
    first = int(edges["step"].min())
    flows: dict[tuple[int, str], list[float]] = {}
    for row in edges.itertuples(index=False):
        column = int(row.step) - first
        flows.setdefault((column, str(row.source_name)), [0.0, 0.0])[1] += float(row.value)
        flows.setdefault((column + 1, str(row.target_name)), [0.0, 0.0])[0] += float(row.value)
    sizes = {node: max(inflow, outflow) for node, (inflow, outflow) in flows.items()}
    columns = max(column for column, _ in sizes) + 1
    stacks = [
        sorted((node for node in sizes if node[0] == column), key=lambda node: -sizes[node])
        for column in range(columns)
    ]
    scale = min((1.0 - _NODE_GAP * (len(stack) - 1)) / sum(sizes[node] for node in stack) for stack in stacks)
    tops: dict[tuple[int, str], float] = {}
    names = list(dict.fromkeys(node[1] for stack in stacks for node in stack))
    colors = dict(zip(names, series_colors(len(names)), strict=True))
    for stack in stacks:
        top = 1.0
        for node in stack:
            tops[node] = top
            height = sizes[node] * scale
            color = colors[node[1]]
            ax.add_patch(
                Rectangle(
                    (node[0], top - height), _NODE_WIDTH, height, color=color, gid=f"node:{node[0] + first}:{node[1]}"
                )
            )
            ax.text(
                node[0] + _NODE_WIDTH + 0.02,
                top - height / 2,
                f"{node[1]} ({format_count(sizes[node])})",
                va="center",
                fontsize="small",
                zorder=3,
                bbox={"facecolor": "white", "alpha": 0.7, "edgecolor": "none", "pad": 1},
            )
            top -= height + _NODE_GAP
    out_used = dict.fromkeys(tops, 0.0)
    in_used = dict.fromkeys(tops, 0.0)
    for row in edges.sort_values(["step", "value"], ascending=[True, False], kind="stable").itertuples(index=False):
        source = (int(row.step) - first, str(row.source_name))
        target = (source[0] + 1, str(row.target_name))
        height = float(row.value) * scale
        path = _band(
            source[0] + _NODE_WIDTH, tops[source] - out_used[source], target[0], tops[target] - in_used[target], height
        )
        ax.add_patch(PathPatch(path, facecolor=colors[source[1]], edgecolor="none", alpha=0.35))
        out_used[source] += height
        in_used[target] += height
    ax.set_xlim(-0.05, columns - 1 + 0.6)
    ax.set_ylim(-0.02, 1.02)
    return literal_text(ax)
