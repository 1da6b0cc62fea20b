"""The retention heat-map table: one row per cohort, one column per period, each cell the share retained; one
table per breakdown value.

A cell whose period had not ended when the answer was computed (the last diagonal, as a rule) is hatched
and faded, with a note under the table: its share is still growing, and read plainly it looks like a cliff.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.patches import Rectangle

from ..labels import breakdown_label, bucket_rank
from .periods import IN_PROGRESS, PERIOD_STEPS, computed_at
from .style import format_count, format_percent, literal_text, new_axes, no_data

__all__ = ["plot_retention"]


def _period_from_labels(labels: pd.Series) -> str:
    """The period's name from the API's cohort labels (``Week 0`` -> ``Week``), else ``Period``."""
    first = next((str(label) for label in labels.dropna()), "")
    match = re.fullmatch(r"([A-Za-z]+) \d+", first)
    return match.group(1) if match else "Period"


def _cohort_text(row: pd.Series) -> str:
    stamp = row["cohort_date"]
    text = row["cohort"] if pd.isna(stamp) else stamp.strftime("%b %d %H:%M" if stamp.hour else "%b %d, %Y")
    return f"{text} ({format_count(row['count'])})"


def _open_cells(attrs: dict, starts: list[pd.Timestamp], rates: np.ndarray, period_name: str) -> list[tuple[int, int]]:
    """The (cohort row, period) cells with a share whose period had not ended when the answer was computed."""
    now = computed_at(attrs)
    step = PERIOD_STEPS.get(period_name.lower())
    if now is None or step is None:
        return []
    cells = []
    for (number, period), rate in np.ndenumerate(rates):
        start = starts[number]
        if not np.isnan(rate) and not pd.isna(start) and start + step * (period + 1) > now:
            cells.append((number, period))
    return cells


def _mark_in_progress(ax: Axes, cells: list[tuple[int, int]], computed: pd.Timestamp | None) -> None:
    """Hatch and fade the cells of periods still in progress, and say so under the table."""
    for number, period in cells:
        ax.add_patch(
            Rectangle(
                (period - 0.5, number - 0.5),
                1.0,
                1.0,
                facecolor=(1.0, 1.0, 1.0, 0.55),
                edgecolor=(0.45, 0.45, 0.45, 0.8),
                hatch="///",
                linewidth=0.0,
                gid=IN_PROGRESS,
            )
        )
    if cells and computed is not None:
        ax.text(
            0.0,
            -0.02,
            f"Hatched: period still in progress on {computed.strftime('%b %d, %Y %H:%M %Z')}",
            transform=ax.transAxes,
            ha="left",
            va="top",
            fontsize="small",
            color="0.35",
            gid=IN_PROGRESS,
        )


def _values(df: pd.DataFrame) -> list[str | None]:
    """The breakdown values of a retention frame in the API's order, PostHog's None and Other buckets last;
    ``[None]`` without a breakdown."""
    if "breakdown_value" not in df.columns or df["breakdown_value"].isna().all():
        return [None]
    found = list(dict.fromkeys(str(value) for value in df["breakdown_value"].dropna()))
    return sorted(found, key=bucket_rank)


def _value_axes(ax: Axes | Sequence[Axes] | None, values: list[str | None], cohorts: int) -> list[Axes]:
    """One Axes per breakdown value: those given, or a new figure's, stacked, each as tall as its cohorts."""
    if ax is not None:
        given = [ax] if isinstance(ax, Axes) else list(ax)
        if len(given) != len(values):
            raise ValueError(
                f"the frame has {len(values)} breakdown values: give one Axes per value, or pick one with "
                "breakdown_value="
            )
        return given
    if len(values) == 1:
        return [new_axes(None, figsize=(9.0, 5.0))]
    height = sum(1.3 + 0.32 * max(cohorts, 1) for _ in values)
    _figure, axes = plt.subplots(len(values), 1, figsize=(9.0, height), layout="constrained", squeeze=False)
    return list(axes[:, 0])


def plot_retention(
    df: pd.DataFrame,
    ax: Axes | Sequence[Axes] | None = None,
    *,
    breakdown_value: str | None = None,
    title: str | None = None,
) -> Axes:
    """Plot a retention frame from `Client.retention` as a heat-map table, one per breakdown value.

    One row per cohort (labelled with its date and size), one column per period; each cell is coloured by
    its retention rate and shows it in percent. Periods a cohort has not reached yet stay blank; a period
    that had not ended when the backend computed the answer (``attrs["last_refresh"]``) is hatched and
    faded, with a note under the table, so its still-growing share does not read as a drop. A frame with
    a breakdown gets one heat map per value (``None`` and ``Other`` for PostHog's buckets, last), each
    titled with its value, stacked in one figure.

    Parameters
    ----------
    df : pandas.DataFrame
        A retention frame (``cohort_date, cohort, period, count, retention_rate``, and ``breakdown_value``
        with a breakdown).
    ax : matplotlib.axes.Axes or a list of them, optional
        Where to draw: one Axes per breakdown value drawn; by default a new figure.
    breakdown_value : str, optional
        With a breakdown, the one value whose cohorts to show; by default every value's, a heat map each.
    title : str, optional
        By default ``Retention by <period>``, and ``: <value>`` for each breakdown value.

    Returns
    -------
    matplotlib.axes.Axes
        The first (or only) heat map: ``ax.images[0]`` holds the rates (rows are cohorts, columns periods);
        the hatched cells are the patches whose ``gid`` is ``"in progress"``. With several breakdown values
        ``ax.figure.axes`` holds every value's heat map, in the values' order.

    Examples
    --------
    >>> table = pd.DataFrame({"cohort_date": pd.to_datetime(["2026-01-01"] * 2, utc=True), "cohort": "Day 0",
    ...     "breakdown_value": pd.NA, "period": [0, 1], "count": [4, 1], "retention_rate": [1.0, 0.25]})
    >>> plot_retention(table).images[0].get_array().tolist()
    [[1.0, 0.25]]
    """
    if "breakdown_value" not in df.columns:  # a retention without breakdown has no such column
        df = df.assign(breakdown_value=pd.array([pd.NA] * len(df), dtype="string"))
    if breakdown_value is not None:
        df = df[df["breakdown_value"].eq(breakdown_value).fillna(False).astype(bool)]
    request = df.attrs.get("request") or {}
    period_name = str(request.get("period") or _period_from_labels(df["cohort"]))
    heading = title if title is not None else f"Retention by {period_name.lower()}"
    values = _values(df) if not df.empty else [breakdown_value]
    cohorts = max((len(df[df["breakdown_value"].eq(value).fillna(False).astype(bool)]) for value in values), default=0)
    axes = _value_axes(ax, values, cohorts)
    names = df.attrs.get("breakdown_labels")
    for target, value in zip(axes, values, strict=True):
        rows = df if value is None else df[df["breakdown_value"].eq(value).fillna(False).astype(bool)]
        target.set_title(heading if value is None else f"{heading}: {breakdown_label(value, names)}")
        if rows.empty:
            literal_text(no_data(target))
            continue
        _draw_heat_map(target, rows, df.attrs, period_name)
    return axes[0]


def _draw_heat_map(ax: Axes, df: pd.DataFrame, attrs: dict, period_name: str) -> None:
    """One heat map: the cohorts of ``df`` (one breakdown value's, or all without a breakdown)."""
    keys = ["cohort_date", "cohort"]
    cohorts = df[df["period"] == 0].drop_duplicates(keys)
    periods = int(df["period"].max()) + 1 if len(df) else 0
    rates = np.full((len(cohorts), periods), np.nan)
    index = {tuple(row): number for number, row in enumerate(cohorts[keys].itertuples(index=False, name=None))}
    for row in df.itertuples(index=False):
        number = index.get((row.cohort_date, row.cohort))
        if number is not None:
            rates[number, int(row.period)] = row.retention_rate
    open_cells = _open_cells(attrs, list(cohorts["cohort_date"]), rates, period_name)
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
                color="white" if rate > 0.6 and (number, period) not in open_cells else "black",
                zorder=3,
            )
    _mark_in_progress(ax, open_cells, computed_at(attrs))
    ax.set_yticks(range(len(cohorts)), [_cohort_text(row) for _, row in cohorts.iterrows()])
    ax.set_xticks(range(periods), [f"{period_name} {period}" for period in range(periods)])
    ax.xaxis.set_ticks_position("top")
    ax.tick_params(axis="x", labelrotation=45 if periods > 8 else 0, length=0)
    ax.tick_params(axis="y", length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    image.set_gid("retention")
    literal_text(ax)
