"""`TrendBuilder`: pick series, maths, dates, breakdown, filters and display, then run and plot a trend."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import pandas as pd
from matplotlib.figure import Figure

from ..entities import Entity, entity_dict
from ..insight_requests import TrendRequest
from ..plots.style import untracked_axes
from ..plots.trends import plot_trend
from .base import Builder
from .catalog import Catalog, entity_key
from .people import mount_people
from .people_points import trend_points
from .starts import start_event

__all__ = ["DISPLAYS", "MATHS", "PROPERTY_MATHS", "SeriesRow", "TrendBuilder"]

MATHS: list[tuple[str, str]] = [
    ("Total count", "total"),
    ("Unique users", "dau"),
    ("Weekly active users", "weekly_active"),
    ("Monthly active users", "monthly_active"),
    ("Unique sessions", "unique_session"),
    ("Sum of property", "sum"),
    ("Average of property", "avg"),
    ("Minimum of property", "min"),
    ("Maximum of property", "max"),
    ("Median of property", "median"),
    ("90th percentile of property", "p90"),
    ("95th percentile of property", "p95"),
    ("99th percentile of property", "p99"),
]
"""Series maths as shown (label, math): PostHog's aggregations."""

PROPERTY_MATHS = {"sum", "avg", "min", "max", "median", "p90", "p95", "p99"}
"""Maths that aggregate a numeric property (``math_property``)."""

DISPLAYS: list[tuple[str, str]] = [
    ("Line", "ActionsLineGraph"),
    ("Cumulative line", "ActionsLineGraphCumulative"),
    ("Bars by date", "ActionsBar"),
    ("Value bars", "ActionsBarValue"),
    ("Table", "ActionsTable"),
    ("Pie", "ActionsPie"),
    ("Number", "BoldNumber"),
]
"""Trend displays as shown (label, display)."""

_ENTITY_KEYS = {"id", "type", "order", "math", "math_property", "name"}


class SeriesRow:
    """One series: event or action, its math and (for property maths) the property; other keys kept."""

    def __init__(self, catalog: Catalog, entity: Entity, on_remove: Any) -> None:
        value = entity_dict(entity)
        key = entity_key(value)
        self.extra = {name: item for name, item in value.items() if name not in _ENTITY_KEYS}
        self.entity = widgets.Dropdown(options=catalog.entity_options(key), value=key, description="Series")
        maths = MATHS if value.get("math") in (None, *[m for _, m in MATHS]) else [*MATHS, (value["math"],) * 2]
        self.math = widgets.Dropdown(options=maths, value=value.get("math") or "total")
        self.numeric = catalog.numeric_properties()
        self._check_numeric = catalog.knows_properties("event")
        self.math_property = widgets.Combobox(
            placeholder="numeric property",
            options=tuple(self.numeric),
            value=str(value.get("math_property") or ""),
            ensure_option=False,
        )
        self.remove = widgets.Button(icon="trash", tooltip="Remove this series", layout=widgets.Layout(width="40px"))
        self.remove.on_click(lambda _button: on_remove(self))
        self.math.observe(self._toggle_property, names="value")
        self._toggle_property()
        self.box = widgets.HBox([self.entity, self.math, self.math_property, self.remove])

    def _toggle_property(self, _change: Any = None) -> None:
        self.math_property.layout.display = None if self.math.value in PROPERTY_MATHS else "none"

    def value(self, number: int) -> dict[str, Any]:
        """The series as an entity dict; ``number`` (1-based) names it in error messages."""
        key = self.entity.value
        entity: dict[str, Any] = {"id": key, "type": "actions" if isinstance(key, int) else "events"}
        if self.math.value != "total":
            entity["math"] = self.math.value
        if self.math.value in PROPERTY_MATHS:
            prop = self.math_property.value.strip()
            if not prop:
                raise ValueError(f"series {number}: {self.math.value} needs a numeric property")
            if self._check_numeric and prop not in self.numeric:  # definitions unknown: let the API judge
                offered = ", ".join(self.numeric[:5]) + (", ..." if len(self.numeric) > 5 else "")
                raise ValueError(
                    f"series {number}: {prop!r} is not a numeric property of this project; "
                    f"{self.math.value} needs one ({offered})"
                )
            entity["math_property"] = prop
        return {**entity, **self.extra}


class TrendBuilder(Builder):
    """An interactive trend: series with their maths, dates, interval, breakdown, filters, compare, formula
    and display; Run shows the plot and the frame, and "Save as insight" saves it.

    Parameters
    ----------
    client : toolkit.Client
        Runs the trend and fills the pickers (event definitions, actions, property definitions).
    events : list, optional
        The initial series, as for `TrendRequest` (names, `event`/`action` dicts or action ids). Without it the
        builder opens on ``$pageview``, total, over the last 7 days, and shows that chart at once.
    **initial
        Further `TrendRequest` fields shown in the controls (``date_from``, ``interval``, ``breakdown``,
        ``display``, ...); fields without a control are sent as given.

    Attributes
    ----------
    request : TrendRequest
        What the controls describe now.
    df : pandas.DataFrame or None
        The last result (`Client.trend`'s tidy frame).
    figure : matplotlib.figure.Figure or None
        The last plot.
    error : str or None
        Why the last run or save failed.

    Examples
    --------
    >>> builder = TrendBuilder(client, events=["$pageview"], interval="week")  # doctest: +SKIP
    >>> builder.breakdown.type.value = "event"  # doctest: +SKIP
    >>> builder.breakdown.property.value = "$browser"  # doctest: +SKIP
    >>> frame = builder.run()  # doctest: +SKIP
    >>> builder  # doctest: +SKIP
    """

    request_class = TrendRequest
    kind = "trend"

    def __init__(self, client: Any, events: list[Entity] | None = None, **initial: Any) -> None:
        request = TrendRequest(events=list(events or []), **initial)
        super().__init__(client, request)
        self.series: list[SeriesRow] = []
        self.series_box = widgets.VBox()
        self.add_series_button = widgets.Button(description="Add series", icon="plus")
        self.add_series_button.on_click(lambda _button: self.add_series())
        start = start_event(self.catalog) if events is None and not request.events else None
        for entity in request.events or ([start] if start is not None else []):
            self.add_series(entity)
        self.display = widgets.Dropdown(options=DISPLAYS, value="ActionsLineGraph", description="Display")
        if request.display is not None:
            if request.display not in [value for _, value in DISPLAYS]:
                self.display.options = [*DISPLAYS, (request.display, request.display)]
            self.display.value = request.display
        self.compare = widgets.Checkbox(
            value=bool(request.compare), description="Compare to previous period", indent=False
        )
        self.formula = widgets.Text(value=request.formula or "", description="Formula", placeholder="A / B")
        self.people = mount_people(self, trend_points)
        self._ready()
        if start is not None:
            self.run()  # a good start shows its chart, as PostHog's new trend does

    def add_series(self, entity: Entity | None = None) -> SeriesRow | None:
        """Append a series row (``entity`` as for `TrendRequest.events`; by default the first event the
        project knows, else a copy of the last series' event); None when there is nothing to pick."""
        if entity is None:
            options = self.catalog.entity_options()
            entity = options[0][1] if options else (self.series[-1].entity.value if self.series else None)
        if entity is None:
            self._fail(ValueError("no events to pick from: pass events=[...] to the builder"))
            return None
        row = SeriesRow(self.catalog, entity, self.remove_series)
        self.series.append(row)
        self.series_box.children = tuple(item.box for item in self.series)
        return row

    def remove_series(self, row: SeriesRow) -> None:
        self.series.remove(row)
        self.series_box.children = tuple(item.box for item in self.series)

    def _fields(self) -> dict[str, Any]:
        if not self.series:
            raise ValueError("add at least one series")
        return {
            "events": [row.value(number) for number, row in enumerate(self.series, start=1)],
            "display": self.display.value,
            "compare": True if self.compare.value else None,
            "formula": self.formula.value.strip() or None,
        }

    def _compute(self, request: TrendRequest) -> pd.DataFrame:
        return self.client.trend(request)

    def _draw(self, frame: pd.DataFrame) -> Figure:
        return plot_trend(frame, ax=untracked_axes()).figure

    def _controls(self) -> list[widgets.Widget]:
        return [
            self.series_box,
            self.add_series_button,
            widgets.HBox([self.dates.box, self.interval]),
            self.breakdown.box,
            self.filters.box,
            widgets.HBox([self.display, self.compare, self.formula]),
        ]
