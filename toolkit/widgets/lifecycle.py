"""`LifecycleBuilder`: per interval, who of one event's people was new, returning, resurrecting or dormant."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import pandas as pd
from matplotlib.figure import Figure

from ..entities import Entity
from ..lifecycle_request import LifecycleRequest
from ..plots.lifecycle import plot_lifecycle
from ..plots.style import untracked_axes
from .base import Builder
from .kind_points import lifecycle_points
from .people import mount_people
from .pickers import EntityPicker
from .starts import start_event

__all__ = ["LifecycleBuilder"]


class LifecycleBuilder(Builder):
    """An interactive lifecycle of one event or action: interval, dates, filters; Run shows the stacked bars.

    Parameters
    ----------
    client : toolkit.Client
    event : str, int or dict, optional
        The event or action followed. Without it the builder opens on the project's common event
        (``$pageview``, else its first event) over the last 7 days, and shows that chart at once.
    **initial
        Further `LifecycleRequest` fields shown in the controls (``interval``, ``date_from``, ...).

    Attributes
    ----------
    request : LifecycleRequest
    df : pandas.DataFrame or None
        The last result (`Client.lifecycle`'s tidy frame).
    figure : matplotlib.figure.Figure or None
    error : str or None

    Examples
    --------
    >>> builder = LifecycleBuilder(client, "signup", interval="week", date_from="-8w")  # doctest: +SKIP
    >>> builder.run()  # doctest: +SKIP
    """

    request_class = LifecycleRequest
    kind = "lifecycle"

    def __init__(self, client: Any, event: Entity | None = None, **initial: Any) -> None:
        given = event is not None
        request = LifecycleRequest(event if given else "$pageview", **initial)
        super().__init__(client, request)
        start = None if given else start_event(self.catalog)
        self.event = EntityPicker(self.catalog, request.event if given else start, "Event")
        self.people = mount_people(self, lifecycle_points)
        self._ready()
        if not given and start is not None:
            self.run()  # a good start shows its chart

    def _fields(self) -> dict[str, Any]:
        event = self.event.value()
        if event is None:
            raise ValueError("choose the event whose people to follow")
        return {"event": event}

    def _compute(self, request: LifecycleRequest) -> pd.DataFrame:
        return self.client.lifecycle(request)

    def _draw(self, frame: pd.DataFrame) -> Figure:
        return plot_lifecycle(frame, ax=untracked_axes()).figure

    def _controls(self) -> list[widgets.Widget]:
        return [self.event.dropdown, widgets.HBox([self.dates.box, self.interval]), self.filters.box]
