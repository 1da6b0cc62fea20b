"""What every plot shares: titles read from the request in ``df.attrs``, percentage text, the legend's
place, local dates for the x axis and a fresh Axes when none is given (a pyplot figure, so a notebook
shows it; the builders pass Axes of figures pyplot does not track, so theirs are not shown twice)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

__all__ = [
    "LEGEND_INSIDE_MAX",
    "entity_label",
    "format_count",
    "format_percent",
    "local_dates",
    "new_axes",
    "no_data",
    "place_legend",
    "plain",
    "request_title",
    "untracked_axes",
]

LEGEND_INSIDE_MAX = 4
"""More series than this and the legend moves outside the plot, to the right."""

DEFAULT_FIGSIZE = (8.0, 4.5)


def new_axes(ax: Axes | None, *, figsize: tuple[float, float] = DEFAULT_FIGSIZE) -> Axes:
    """``ax`` itself, or the Axes of a new pyplot figure (which a notebook shows at the end of the cell)."""
    if ax is not None:
        return ax
    _figure, axes = plt.subplots(figsize=figsize, layout="constrained")
    return axes


def untracked_axes(figsize: tuple[float, float] = DEFAULT_FIGSIZE) -> Axes:
    """The Axes of a new Figure that pyplot does not track: shown only where it is displayed, freed with
    its owner."""
    return Figure(figsize=figsize, layout="constrained").add_subplot()


def plain(text: str) -> str:
    """Text drawn as written: event names such as ``$pageview`` must not switch matplotlib to math mode.

    Examples
    --------
    >>> plain("$pageview by $browser")
    '\\\\$pageview by \\\\$browser'
    """
    return text.replace("$", r"\$")


def no_data(ax: Axes) -> Axes:
    """Say "No data" in the middle of an empty plot (an empty frame draws no misleading axes)."""
    ax.text(0.5, 0.5, "No data", ha="center", va="center", transform=ax.transAxes, color="grey")
    ax.set_xticks([])
    ax.set_yticks([])
    return ax


def format_percent(fraction: float) -> str:
    """A fraction as a percentage with at most one decimal: 0.4 -> ``40%``, 1/3 -> ``33.3%``, NaN -> ``-``."""
    if pd.isna(fraction):
        return "-"
    text = f"{fraction * 100:.1f}".removesuffix(".0")
    return f"{text}%"


def format_count(value: float) -> str:
    """A count or amount with thousands separators, decimals only where the value has them."""
    if pd.isna(value):
        return "-"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}"


def entity_label(entity: Any) -> str:
    """A legacy series or step (dict, name or action id) as text: custom name, else name or id, with its math."""
    if not isinstance(entity, Mapping):
        return str(entity)
    base = entity.get("custom_name") or entity.get("name") or entity.get("id")
    if base is None:
        base = "All events"
    math = entity.get("math")
    if math and math != "total":
        prop = entity.get("math_property")
        return f"{base} ({math} of {prop})" if prop else f"{base} ({math})"
    return str(base)


def request_title(attrs: Mapping[str, Any]) -> str | None:
    """A title from the request body in ``attrs["request"]``: its series joined, and the breakdown.

    Examples
    --------
    >>> request_title({"request": {"insight": "FUNNELS", "events": [{"id": "a", "order": 0},
    ...                {"id": "b", "order": 1}], "breakdown": "$browser"}})
    'a → b by $browser'
    """
    request = attrs.get("request")
    if not isinstance(request, Mapping):
        return None
    entities = sorted(
        [*request.get("events", []), *request.get("actions", [])],
        key=lambda entity: entity.get("order") or 0 if isinstance(entity, Mapping) else 0,
    )
    if not entities:
        return None
    joiner = " → " if request.get("insight") == "FUNNELS" else ", "
    title = joiner.join(entity_label(entity) for entity in entities)
    if request.get("formula"):
        title = f"{request['formula']} of {title}"
    breakdown = request.get("breakdown")
    if breakdown not in (None, "", []):
        title += f" by {', '.join(map(str, breakdown)) if isinstance(breakdown, list) else breakdown}"
    return title


def place_legend(ax: Axes, count: int) -> None:
    """A legend inside the plot for a few series, outside on the right for more; none for one series."""
    if count <= 1:
        return
    if count <= LEGEND_INSIDE_MAX:
        ax.legend(loc="best", frameon=False)
    else:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize="small")


def local_dates(dates: pd.Series) -> pd.Series:
    """Timezone-aware dates as naive wall-clock times, so the x axis reads in the project's timezone."""
    if isinstance(dates.dtype, pd.DatetimeTZDtype):
        return dates.dt.tz_localize(None)
    return pd.to_datetime(dates)
