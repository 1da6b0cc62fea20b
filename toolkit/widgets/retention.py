"""`RetentionBuilder`: who comes back after a first event, as a cohort table (target and returning event,
period, number of periods, recurring or first-time retention, breakdown)."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import pandas as pd
from matplotlib.figure import Figure

from ..entities import Entity
from ..insight_requests import RetentionRequest
from ..plots.layout import FixedLayout, measuring_canvas
from ..plots.retention import _values as breakdown_values
from ..plots.retention import plot_retention
from ..plots.style import untracked_axes
from .base import Builder
from .kind_points import retention_points
from .people import mount_people
from .pickers import EndDateControl, EntityPicker
from .starts import start_event

__all__ = ["DEFAULT_PERIODS", "PERIODS", "RETENTION_TYPES", "RetentionBuilder"]

PERIODS = ["Hour", "Day", "Week", "Month"]
RETENTION_TYPES = [("Recurring", "retention_recurring"), ("First time", "retention_first_time")]
DEFAULT_PERIODS = 11
"""PostHog's number of cohorts and periods."""
_FIT = {"description_width": "initial"}


class RetentionBuilder(Builder):
    """An interactive retention table: the event that puts a person in a cohort, the event that counts as
    coming back, period, number of periods, retention type, breakdown, the last cohort's date, filters.

    Parameters
    ----------
    client : toolkit.Client
    target_entity : str, int or dict, optional
        The cohort event, as for `RetentionRequest`. Without it the builder opens on the project's common
        event (``$pageview``, else its first event), by day, and shows that table at once.
    **initial
        Further `RetentionRequest` fields shown in the controls (``returning_entity``, ``period``,
        ``total_intervals``, ``retention_type``, ``date_to``, ``breakdown``, ...); others are sent as given.

    Attributes
    ----------
    request : RetentionRequest
    df : pandas.DataFrame or None
        The last result (`Client.retention`'s cohort frame).
    figure : matplotlib.figure.Figure or None
    error : str or None

    Examples
    --------
    >>> builder = RetentionBuilder(client, "signup", returning_entity="purchase", period="Week")  # doctest: +SKIP
    >>> builder.total_intervals.value = 6  # doctest: +SKIP
    >>> builder.run()  # doctest: +SKIP
    """

    request_class = RetentionRequest
    kind = "retention"

    def __init__(self, client: Any, target_entity: Entity | None = None, **initial: Any) -> None:
        given = target_entity is not None
        request = RetentionRequest(target_entity if given else "$pageview", **initial)
        super().__init__(client, request)
        start = None if given else start_event(self.catalog)
        self.target = EntityPicker(self.catalog, request.target_entity if given else start, "Cohort event")
        self.returning = EntityPicker(self.catalog, request.returning_entity, "Comes back with", optional=True)
        self.target.dropdown.style = self.returning.dropdown.style = _FIT
        self.period = widgets.Dropdown(options=PERIODS, value="Day", description="Period")
        if request.period is not None:
            self.period.options = PERIODS if request.period in PERIODS else [*PERIODS, request.period]
            self.period.value = request.period
        self.total_intervals = widgets.BoundedIntText(
            value=request.total_intervals or DEFAULT_PERIODS,
            min=2,
            max=100,
            description="Periods",
            layout=widgets.Layout(width="170px"),
        )
        self.retention_type = widgets.Dropdown(
            options=RETENTION_TYPES, value=request.retention_type or "retention_recurring", description="Type"
        )
        self.dates = EndDateControl(request.date_to)  # retention reads no start date
        self.people = mount_people(self, retention_points)
        self._ready()
        if not given and start is not None:
            self.run()  # a good start shows its table

    def _fields(self) -> dict[str, Any]:
        target = self.target.value()
        if target is None:
            raise ValueError("choose the event that puts a person in a cohort")
        return {
            "target_entity": target,
            "returning_entity": self.returning.value(),
            "period": self.period.value,
            "total_intervals": self.total_intervals.value,
            "retention_type": self.retention_type.value,
        }

    def _compute(self, request: RetentionRequest) -> pd.DataFrame:
        return self.client.retention(request)

    def _draw(self, frame: pd.DataFrame) -> Figure:
        values = breakdown_values(frame) if len(frame) else [None]
        if len(values) == 1:
            return plot_retention(frame, ax=untracked_axes((9.0, 5.0))).figure
        # one heat map per value, stacked in a figure pyplot does not track (as untracked_axes makes)
        cohorts = int((frame["period"] == 0).sum() / len(values)) or 1
        figure = measuring_canvas(Figure(figsize=(9.0, len(values) * (1.3 + 0.32 * cohorts)), layout=FixedLayout()))
        return plot_retention(frame, ax=list(figure.subplots(len(values), 1, squeeze=False)[:, 0])).figure

    def _controls(self) -> list[widgets.Widget]:
        return [
            widgets.HBox([self.target.dropdown, self.returning.dropdown]),
            widgets.HBox([self.period, self.total_intervals, self.retention_type, self.dates.box]),
            self.breakdown.box,
            self.filters.box,
        ]
