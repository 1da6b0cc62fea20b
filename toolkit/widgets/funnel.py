"""`FunnelBuilder`: steps (add, remove, reorder), order, window, exclusions and visualisation of a funnel."""

from __future__ import annotations

from typing import Any, Protocol

import ipywidgets as widgets
import pandas as pd
from matplotlib.figure import Figure

from ..entities import Entity, entity_dict
from ..insight_requests import FunnelRequest
from ..plots.funnels import plot_funnel, plot_funnel_trends, plot_time_to_convert
from ..plots.style import untracked_axes
from .base import Builder
from .catalog import Catalog, EntityKey, entity_key
from .people import mount_people
from .people_points import funnel_points
from .starts import common_first_steps, interval_for_range

__all__ = [
    "NUMBER_WIDTH",
    "ORDER_TYPES",
    "UNIT_WIDTH",
    "VIZ_TYPES",
    "WINDOW_UNITS",
    "ExclusionRow",
    "FunnelBuilder",
    "StepList",
    "StepRow",
]

ORDER_TYPES = [("Sequential", "ordered"), ("Strict order", "strict"), ("Any order", "unordered")]
VIZ_TYPES = [("Steps", "steps"), ("Conversion over time", "trends"), ("Time to convert", "time_to_convert")]
WINDOW_UNITS = ["second", "minute", "hour", "day", "week", "month"]
DEFAULT_WINDOW = (14, "day")
"""PostHog's default conversion window."""

_STEP_KEYS = {"id", "type", "order", "name"}
_SMALL = widgets.Layout(width="40px")
_FIT = {"description_width": "initial"}
NUMBER_WIDTH = "170px"
"""A labelled number box (the window, an exclusion's steps)."""
UNIT_WIDTH = "100px"
"""The window unit picker: wide enough for "minute" and "second" and the dropdown's arrow."""
_NUMBER = widgets.Layout(width=NUMBER_WIDTH)


def _entity(key: EntityKey) -> dict[str, Any]:
    return {"id": key, "type": "actions" if isinstance(key, int) else "events"}


def move_within(items: list[Any], item: Any, offset: int) -> None:
    """Move ``item`` ``offset`` places in ``items`` (-1 up, 1 down), staying within the list."""
    index = items.index(item)
    target = min(max(index + offset, 0), len(items) - 1)
    items.insert(target, items.pop(index))


class StepList(Protocol):
    """What holds a list of `StepRow` (the funnel builder, the paths builder's funnel): it moves and removes them."""

    def move_step(self, row: StepRow, offset: int) -> None: ...

    def remove_step(self, row: StepRow) -> None: ...


class StepRow:
    """One step: event or action, with buttons to move it up or down or remove it; other keys kept."""

    def __init__(self, catalog: Catalog, entity: Entity, builder: StepList) -> None:
        value = entity_dict(entity)
        key = entity_key(value)
        self.extra = {name: item for name, item in value.items() if name not in _STEP_KEYS}
        self.entity = widgets.Dropdown(options=catalog.entity_options(key), value=key)
        self.up = widgets.Button(icon="arrow-up", tooltip="Move up", layout=_SMALL)
        self.down = widgets.Button(icon="arrow-down", tooltip="Move down", layout=_SMALL)
        self.remove = widgets.Button(icon="trash", tooltip="Remove this step", layout=_SMALL)
        self.up.on_click(lambda _button: builder.move_step(self, -1))
        self.down.on_click(lambda _button: builder.move_step(self, 1))
        self.remove.on_click(lambda _button: builder.remove_step(self))
        self.label = widgets.Label()
        self.box = widgets.HBox([self.label, self.entity, self.up, self.down, self.remove])

    def value(self) -> dict[str, Any]:
        return {**_entity(self.entity.value), **self.extra}


class ExclusionRow:
    """An event that removes a person who does it between two steps (shown 1-based, sent 0-based).

    A row added without an event starts empty and is left out of the request until an event is chosen.
    """

    def __init__(self, catalog: Catalog, entity: Entity | None, from_step: int, to_step: int, on_remove: Any) -> None:
        key = entity_key(entity) if entity is not None else None
        options = catalog.entity_options(*([key] if key is not None else []))
        self.entity = widgets.Dropdown(options=options, value=key, description="Exclude")
        # descriptions sized to their text: the default width cut "between step" to "between ..."
        self.from_step = widgets.BoundedIntText(
            value=from_step + 1, min=1, max=99, description="between step", style=_FIT, layout=_NUMBER
        )
        self.to_step = widgets.BoundedIntText(
            value=to_step + 1, min=1, max=99, description="and step", style=_FIT, layout=_NUMBER
        )
        self.remove = widgets.Button(icon="trash", tooltip="Remove this exclusion", layout=_SMALL)
        self.remove.on_click(lambda _button: on_remove(self))
        self.box = widgets.HBox([self.entity, self.from_step, self.to_step, self.remove])

    def value(self, number: int, steps: int) -> dict[str, Any] | None:
        """The exclusion dict with 0-based steps, checked against the funnel's ``steps``; None while no event
        is chosen."""
        if self.entity.value is None:
            return None
        first, last = self.from_step.value, self.to_step.value
        if not 1 <= first < last <= steps:
            raise ValueError(
                f"exclusion {number}: steps must satisfy 1 ≤ from < to ≤ {steps} (the funnel has {steps} steps); "
                f"got {first} and {last}"
            )
        return {**_entity(self.entity.value), "funnel_from_step": first - 1, "funnel_to_step": last - 1}


class FunnelBuilder(Builder):
    """An interactive funnel: steps (add, remove, reorder), order type, conversion window, exclusions,
    dates, breakdown, filters and visualisation (steps, conversion over time, time to convert).

    Parameters
    ----------
    client : toolkit.Client
    steps : list, optional
        The initial steps, as for `FunnelRequest` (names, `event`/`action` dicts or action ids). Without it the
        builder opens on the project's most common first and second step (`starts.common_first_steps`) and
        shows that funnel at once.
    **initial
        Further `FunnelRequest` fields shown in the controls (``funnel_order_type``,
        ``funnel_window_interval``, ``exclusions``, ``funnel_viz_type``, ...); others are sent as given.

    Attributes
    ----------
    request : FunnelRequest
    df : pandas.DataFrame or None
        The last result (steps, funnel trends or time-to-convert frame, by visualisation).
    figure : matplotlib.figure.Figure or None
    error : str or None

    Examples
    --------
    >>> builder = FunnelBuilder(client, steps=["signup", "purchase"], funnel_window_interval=7)  # doctest: +SKIP
    >>> builder.order.value = "strict"  # doctest: +SKIP
    >>> builder.run()[["step", "count", "conversion_rate"]]  # doctest: +SKIP
    """

    request_class = FunnelRequest
    kind = "funnel"

    def __init__(self, client: Any, steps: list[Entity] | None = None, **initial: Any) -> None:
        request = FunnelRequest(steps=list(steps or []), **initial)
        super().__init__(client, request)
        self.steps: list[StepRow] = []
        self.steps_box = widgets.VBox()
        self.add_step_button = widgets.Button(description="Add step", icon="plus")
        self.add_step_button.on_click(lambda _button: self.add_step())
        # given no steps, a funnel opens on the project's most common first and second step
        for entity in request.steps or ([] if steps is not None else common_first_steps(client, self.catalog)):
            self.add_step(entity)
        self.order = widgets.Dropdown(options=ORDER_TYPES, value=request.funnel_order_type or "ordered")
        self.order.description = "Order"
        # the window reads "Window [14] [day]": a number box and a unit picker sized to their content, like
        # the exclusions' step numbers (ipywidgets' default 300px made "day" the widest control of the row)
        self.window = widgets.BoundedIntText(
            value=request.funnel_window_interval or DEFAULT_WINDOW[0],
            min=1,
            max=100_000,
            description="Window",
            style=_FIT,
            layout=widgets.Layout(width=NUMBER_WIDTH),
        )
        unit = (request.funnel_window_interval_unit or DEFAULT_WINDOW[1]).lower()
        self.window_unit = widgets.Dropdown(options=WINDOW_UNITS, value=unit, layout=widgets.Layout(width=UNIT_WIDTH))
        self.viz = widgets.Dropdown(options=VIZ_TYPES, value=request.viz_type, description="Show")
        self.viz.observe(self._toggle_interval, names="value")
        self._interval_given = request.interval is not None
        self.interval.observe(self._interval_chosen, names="value")
        self.dates.preset.observe(self._fit_interval, names="value")
        self.dates.date_from.observe(self._fit_interval, names="value")
        self.dates.date_to.observe(self._fit_interval, names="value")
        self._toggle_interval()
        self.exclusions: list[ExclusionRow] = []
        self.exclusions_box = widgets.VBox()
        self.add_exclusion_button = widgets.Button(description="Add exclusion", icon="ban")
        self.add_exclusion_button.on_click(lambda _button: self.add_exclusion())
        for item in request.exclusions or []:
            value = (
                item
                if isinstance(item, dict)
                else {**entity_dict(item[0]), "funnel_from_step": item[1], "funnel_to_step": item[2]}
            )
            self.add_exclusion(value, value.get("funnel_from_step", 0), value.get("funnel_to_step", 1))
        self.people = mount_people(self, funnel_points)
        self._ready()
        if steps is None and len(self.steps) >= 2:
            self.run()  # a good start shows its result

    def _toggle_interval(self, _change: Any = None) -> None:
        """The interval only shapes conversion over time; the other views would ignore it."""
        self.interval.layout.display = None if self.viz.value == "trends" else "none"
        self._fit_interval()

    def _interval_chosen(self, _change: Any = None) -> None:
        if not getattr(self, "_fitting", False):
            self._interval_given = True

    def _fit_interval(self, _change: Any = None) -> None:
        """Conversion over time in the interval its date range reads best in (`interval_for_range`), until an
        interval is given or chosen by hand."""
        if self._interval_given or self.viz.value != "trends":
            return
        try:
            dates = self.dates.values()
        except ValueError:  # a custom range being typed
            return
        self._fitting = True
        try:
            self.interval.value = interval_for_range(dates["date_from"], dates["date_to"])
        finally:
            self._fitting = False

    def _relayout_steps(self) -> None:
        for number, row in enumerate(self.steps, start=1):
            row.label.value = f"Step {number}"
            row.up.disabled = number == 1
            row.down.disabled = number == len(self.steps)
        self.steps_box.children = tuple(row.box for row in self.steps)

    def _default_entity(self) -> Entity | None:
        options = self.catalog.entity_options()
        if options:
            return options[0][1]
        return self.steps[-1].entity.value if self.steps else None

    def add_step(self, entity: Entity | None = None) -> StepRow | None:
        """Append a step (by default the first event the project knows); None when there is nothing to pick."""
        entity = entity if entity is not None else self._default_entity()
        if entity is None:
            self._fail(ValueError("no events to pick from: pass steps=[...] to the builder"))
            return None
        row = StepRow(self.catalog, entity, self)
        self.steps.append(row)
        self._relayout_steps()
        return row

    def remove_step(self, row: StepRow) -> None:
        self.steps.remove(row)
        self._relayout_steps()

    def move_step(self, row: StepRow, offset: int) -> None:
        """Move a step ``offset`` places (-1 up, 1 down), staying within the list."""
        move_within(self.steps, row, offset)
        self._relayout_steps()

    def add_exclusion(self, entity: Entity | None = None, from_step: int = 0, to_step: int = 1) -> ExclusionRow:
        """Append an exclusion between two steps (0-based, as in `FunnelRequest.exclusions`); without
        ``entity`` it starts empty (an exclusion chosen for the analyst cut the demo funnel from 238 people to 5)
        and counts once an event is picked."""
        row = ExclusionRow(self.catalog, entity, from_step, to_step, self.remove_exclusion)
        self.exclusions.append(row)
        self.exclusions_box.children = tuple(item.box for item in self.exclusions)
        return row

    def remove_exclusion(self, row: ExclusionRow) -> None:
        self.exclusions.remove(row)
        self.exclusions_box.children = tuple(item.box for item in self.exclusions)

    def _fields(self) -> dict[str, Any]:
        if len(self.steps) < 2:
            raise ValueError("a funnel needs at least two steps")
        return {
            "steps": [row.value() for row in self.steps],
            "funnel_order_type": self.order.value,
            "funnel_window_interval": self.window.value,
            "funnel_window_interval_unit": self.window_unit.value,
            "funnel_viz_type": self.viz.value,
            "exclusions": [
                value
                for number, row in enumerate(self.exclusions, 1)
                if (value := row.value(number, len(self.steps))) is not None
            ]
            or None,
        }

    def _compute(self, request: FunnelRequest) -> pd.DataFrame:
        return self.client.funnel(request)

    def _draw(self, frame: pd.DataFrame) -> Figure:
        draw = {"trends": plot_funnel_trends, "time_to_convert": plot_time_to_convert}.get(self.viz.value, plot_funnel)
        return draw(frame, ax=untracked_axes()).figure

    def _controls(self) -> list[widgets.Widget]:
        return [
            self.steps_box,
            self.add_step_button,
            widgets.HBox([self.order, self.window, self.window_unit, self.viz]),
            self.exclusions_box,
            self.add_exclusion_button,
            widgets.HBox([self.dates.box, self.interval]),
            self.breakdown.box,
            self.filters.box,
        ]
