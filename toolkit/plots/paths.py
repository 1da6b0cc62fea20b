"""The paths flow drawing: each step a column of pages or events, ribbons as thick as the transitions."""

from __future__ import annotations

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.patches import PathPatch, Rectangle
from matplotlib.path import Path

from .style import format_count, literal_text, new_axes, no_data, series_colors

__all__ = ["DEFAULT_MAX_EDGES", "plot_paths"]

_NODE_WIDTH = 0.08
_NODE_GAP = 0.03
DEFAULT_MAX_EDGES = 40
"""How many of the heaviest edges `plot_paths` draws unless told otherwise."""


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
