"""`PathsBuilder`: the steps people take, as a flow drawing (event types, start and end point, steps, and a
funnel whose step's people the paths are restricted to, `path_funnel`)."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import pandas as pd
from matplotlib.figure import Figure

from ..insight_requests import PathsRequest
from ..plots.paths import plot_paths
from ..plots.style import untracked_axes
from .base import Builder
from .kind_points import path_points
from .path_funnel import PathFunnelControl
from .people import mount_people
from .starts import common_first_steps

__all__ = ["DEFAULT_STEPS", "EVENT_TYPES", "PathsBuilder"]

EVENT_TYPES: list[tuple[str, str]] = [
    ("Pageviews (by URL)", "$pageview"),
    ("Screens (by name)", "$screen"),
    ("Custom events (by name)", "custom_event"),
]
"""The kinds of event a path is made of, as shown (label, PostHog's ``include_event_types`` value)."""
DEFAULT_STEPS = 5
"""PostHog's number of steps per path."""
_FIT = {"description_width": "initial"}


class PathsBuilder(Builder):
    """Interactive paths: which events make the paths (pageviews, screens, custom events), where they start
    or end, how many steps they show, dates and filters, and "Restrict to a funnel": only the paths of the
    people who reached (or dropped off before) a funnel's step, after it, before it or between it and the
    step before (`toolkit.widgets.path_funnel.PathFunnelControl`, ``builder.funnel``).

    Parameters
    ----------
    client : toolkit.Client
    **initial
        `PathsRequest` fields shown in the controls (``include_event_types``, ``start_point``, ``end_point``,
        ``step_limit``, ``date_from``, ``funnel``, ``funnel_step``, ``funnel_paths``, ...); others are sent as
        given. Given nothing, the builder opens on the project's pageviews (its custom events when it has no
        ``$pageview``) and shows them at once.

    Attributes
    ----------
    request : PathsRequest
    df : pandas.DataFrame or None
        The last result (`Client.paths`' edges).
    figure : matplotlib.figure.Figure or None
    error : str or None

    Examples
    --------
    >>> builder = PathsBuilder(client, include_event_types=["$pageview"], start_point="/pricing")  # doctest: +SKIP
    >>> builder.step_limit.value = 4  # doctest: +SKIP
    >>> builder.funnel.restriction.value = "after"  # doctest: +SKIP
    >>> builder.funnel.step.value = 2  # after step 2, of the people who reached it  # doctest: +SKIP
    >>> builder.run()  # doctest: +SKIP
    """

    request_class = PathsRequest
    kind = "paths"

    def __init__(self, client: Any, **initial: Any) -> None:
        request = PathsRequest(**initial)
        super().__init__(client, request)
        fresh = not initial
        types = request.include_event_types
        if fresh:
            types = ["$pageview"] if "$pageview" in self.catalog.events or not self.catalog.events else ["custom_event"]
        self.event_types = {
            value: widgets.Checkbox(value=value in (types or []), description=label, indent=False)
            for label, value in EVENT_TYPES
        }
        self.start_point = widgets.Text(value=request.start_point or "", description="Starts at", style=_FIT)
        self.end_point = widgets.Text(value=request.end_point or "", description="Ends at", style=_FIT)
        self.start_point.placeholder = self.end_point.placeholder = "a URL or an event (empty: any)"
        self.step_limit = widgets.BoundedIntText(
            value=request.step_limit or DEFAULT_STEPS,
            min=2,
            max=50,
            description="Steps",
            layout=widgets.Layout(width="170px"),
        )
        self._steps_given = request.step_limit is not None
        self.funnel = PathFunnelControl(self.catalog, request, lambda: common_first_steps(client, self.catalog))
        self.people = mount_people(self, path_points)
        self._ready()
        if fresh:
            self.run()  # a good start shows its paths

    def _fields(self) -> dict[str, Any]:
        chosen = [value for value, box in self.event_types.items() if box.value]
        steps = self.step_limit.value
        return {
            # none ticked: every event counts, as the API reads an absent list
            "include_event_types": chosen or None,
            "start_point": self.start_point.value.strip() or None,
            "end_point": self.end_point.value.strip() or None,
            "step_limit": None if not self._steps_given and steps == DEFAULT_STEPS else steps,
            **self.funnel.values(self.dates.values(), self._test_accounts_value()),
        }

    def _compute(self, request: PathsRequest) -> pd.DataFrame:
        return self.client.paths(request)

    def _draw(self, frame: pd.DataFrame) -> Figure:
        return plot_paths(frame, ax=untracked_axes((10.0, 5.5))).figure

    def _controls(self) -> list[widgets.Widget]:
        return [
            widgets.HBox(list(self.event_types.values())),
            widgets.HBox([self.start_point, self.end_point, self.step_limit]),
            self.funnel.box,
            widgets.HBox([self.dates.box]),
            self.filters.box,
        ]
