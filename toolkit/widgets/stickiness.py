"""`StickinessBuilder`: in how many intervals of the range people did each series (criteria, cumulative,
breakdown, compare)."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import pandas as pd
from matplotlib.figure import Figure

from ..entities import Entity
from ..plots.stickiness import plot_stickiness
from ..plots.style import untracked_axes
from ..stickiness_request import StickinessRequest
from .base import Builder
from .kind_points import stickiness_points
from .people import mount_people
from .pickers import SeriesList
from .starts import start_event

__all__ = ["CRITERIA", "DEFAULT_CRITERIA", "StickinessBuilder"]

CRITERIA: list[tuple[str, str]] = [("at least", "gte"), ("at most", "lte"), ("exactly", "exact")]
"""How an interval counts for a person, as shown (label, operator)."""
DEFAULT_CRITERIA = ("gte", 1)
"""Any event counts: PostHog's criteria when none is given."""


class StickinessBuilder(Builder):
    """An interactive stickiness: series, the criteria an interval must meet (at least / at most / exactly
    n events), cumulative, dates, interval, breakdown, compare and filters.

    Parameters
    ----------
    client : toolkit.Client
    events : list, optional
        The series, as for `StickinessRequest`. Without them the builder opens on the project's common event
        (``$pageview``, else its first event) over the last 7 days, and shows that chart at once.
    **initial
        Further `StickinessRequest` fields shown in the controls (``criteria``, ``cumulative``, ``interval``,
        ``breakdown``, ``compare``, ...); others are sent as given.

    Attributes
    ----------
    request : StickinessRequest
    df : pandas.DataFrame or None
        The last result (`Client.stickiness`'s tidy frame).
    figure : matplotlib.figure.Figure or None
    error : str or None

    Examples
    --------
    >>> builder = StickinessBuilder(client, events=["$pageview"], criteria=("gte", 3))  # doctest: +SKIP
    >>> builder.cumulative.value = True  # doctest: +SKIP
    >>> builder.run()  # doctest: +SKIP
    """

    request_class = StickinessRequest
    kind = "stickiness"

    def __init__(self, client: Any, events: list[Entity] | None = None, **initial: Any) -> None:
        request = StickinessRequest(events=list(events or []), **initial)
        super().__init__(client, request)
        start = start_event(self.catalog) if events is None and not request.events else None
        self.series = SeriesList(self.catalog, list(request.events) or ([start] if start is not None else []))
        criteria = request.criteria or {"operator": DEFAULT_CRITERIA[0], "value": DEFAULT_CRITERIA[1]}
        known = [value for _, value in CRITERIA]
        operators = CRITERIA if criteria["operator"] in known else [*CRITERIA, (criteria["operator"],) * 2]
        self.criteria_operator = widgets.Dropdown(
            options=operators, value=criteria["operator"], description="Counts with"
        )
        self.criteria_value = widgets.BoundedIntText(
            value=int(criteria["value"]), min=0, max=100_000, layout=widgets.Layout(width="80px")
        )
        self.criteria_note = widgets.Label("events in an interval")
        self._criteria_given = request.criteria is not None
        self.cumulative = widgets.Checkbox(
            value=bool(request.cumulative), description="Cumulative (k or more intervals)", indent=False
        )
        self.compare = widgets.Checkbox(
            value=bool(request.compare), description="Compare to previous period", indent=False
        )
        self.people = mount_people(self, stickiness_points)
        self._ready()
        if start is not None:
            self.run()  # a good start shows its chart

    def _fields(self) -> dict[str, Any]:
        criteria = (self.criteria_operator.value, self.criteria_value.value)
        return {
            "events": self.series.values(),
            "criteria": None if not self._criteria_given and criteria == DEFAULT_CRITERIA else criteria,
            "cumulative": True if self.cumulative.value else None,
            "compare": True if self.compare.value else None,
        }

    def _compute(self, request: StickinessRequest) -> pd.DataFrame:
        return self.client.stickiness(request)

    def _draw(self, frame: pd.DataFrame) -> Figure:
        return plot_stickiness(frame, ax=untracked_axes()).figure

    def _controls(self) -> list[widgets.Widget]:
        return [
            self.series.box,
            self.series.add_button,
            widgets.HBox([self.criteria_operator, self.criteria_value, self.criteria_note, self.cumulative]),
            widgets.HBox([self.dates.box, self.interval]),
            self.breakdown.box,
            self.filters.box,
            self.compare,
        ]
