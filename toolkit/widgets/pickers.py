"""Pickers of the retention, stickiness and lifecycle builders: one event or action (`EntityPicker`), a list
of series rows that can be added and removed (`SeriesList`), and the one date retention reads (`EndDateControl`).

A picked entity keeps the keys no control shows (a series' ``properties``, its ``name``), so a request opened
from a saved insight goes back out as it came in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from ..entities import Entity, entity_dict
from .catalog import Catalog, EntityKey, entity_key
from .controls import check_date

__all__ = ["NO_ENTITY", "SAME_AS_TARGET", "EndDateControl", "EntityPicker", "SeriesList"]

SAME_AS_TARGET = "Same as the first event"
"""How the returning-event picker names "no returning event of its own"."""
NO_ENTITY = ""
"""The value of that empty choice: no event is named "" (a None value would show as no choice at all)."""

_SHOWN_KEYS = {"id", "type", "order"}


def _entity(key: EntityKey) -> dict[str, Any]:
    return {"id": key, "type": "actions" if isinstance(key, int) else "events"}


class EntityPicker:
    """A dropdown of the project's events and actions; ``optional`` adds an empty choice named ``none_label``."""

    def __init__(
        self,
        catalog: Catalog,
        entity: Entity | None,
        description: str,
        *,
        optional: bool = False,
        none_label: str = SAME_AS_TARGET,
    ) -> None:
        value = entity_dict(entity) if entity is not None else None
        key = entity_key(value) if value is not None else None
        self.extra = {name: item for name, item in (value or {}).items() if name not in _SHOWN_KEYS}
        options: list[tuple[str, EntityKey | None]] = list(catalog.entity_options(*([key] if key is not None else [])))
        if optional:
            options = [(none_label, NO_ENTITY), *options]
            key = NO_ENTITY if key is None else key
        if key is None:
            key = options[0][1] if options else None
        self.dropdown = widgets.Dropdown(options=options, value=key, description=description)
        self._given = key

    def value(self) -> dict[str, Any] | None:
        """The picked entity as a dict (None for the empty choice); kept keys stay while the pick is unchanged."""
        key = self.dropdown.value
        if key is None or key == NO_ENTITY:
            return None
        return {**_entity(key), **(self.extra if key == self._given else {})}


class SeriesList:
    """Series rows (an event picker and a remove button each) and an "Add series" button."""

    def __init__(self, catalog: Catalog, entities: list[Entity], on_change: Callable[[], None] | None = None) -> None:
        self.catalog = catalog
        self.rows: list[tuple[EntityPicker, widgets.Button, widgets.HBox]] = []
        self.box = widgets.VBox()
        self.add_button = widgets.Button(description="Add series", icon="plus")
        self.add_button.on_click(lambda _button: self.add())
        self._on_change = on_change
        for entity in entities:
            self.add(entity)

    def add(self, entity: Entity | None = None) -> EntityPicker | None:
        """Append a series (by default the project's first event, else a copy of the last series' event)."""
        if entity is None and self.rows:
            entity = self.rows[-1][0].dropdown.value
        picker = EntityPicker(self.catalog, entity, "Series")
        if picker.dropdown.value is None:
            return None
        remove = widgets.Button(icon="trash", tooltip="Remove this series", layout=widgets.Layout(width="40px"))
        row = (picker, remove, widgets.HBox([picker.dropdown, remove]))
        remove.on_click(lambda _button: self.remove(row[0]))
        self.rows.append(row)
        self._relayout()
        return picker

    def remove(self, picker: EntityPicker) -> None:
        self.rows = [row for row in self.rows if row[0] is not picker]
        self._relayout()

    def _relayout(self) -> None:
        self.box.children = tuple(box for _, _, box in self.rows)
        if self._on_change is not None:
            self._on_change()

    @property
    def pickers(self) -> list[EntityPicker]:
        return [picker for picker, _, _ in self.rows]

    def values(self) -> list[dict[str, Any]]:
        """The series as entity dicts, in order.

        Raises
        ------
        ValueError
            With no series.
        """
        if not self.rows:
            raise ValueError("add at least one series")
        return [value for picker in self.pickers if (value := picker.value()) is not None]


class EndDateControl:
    """The date of the last cohort (empty: now): retention reads no start date, its cohorts are the last
    ``total_intervals`` periods up to ``date_to``. Stands where the other builders have `DateRangeControl`."""

    def __init__(self, date_to: str | None = None) -> None:
        self.date_to = widgets.Text(value=date_to or "", description="Up to", placeholder="empty: now")
        self.box = self.date_to

    def load(self, date_from: str | None, date_to: str | None) -> None:
        self.date_to.value = date_to or ""

    def values(self) -> dict[str, str | None]:
        """``date_to`` for the request (``date_from`` left out: retention does not read it)."""
        text = self.date_to.value.strip()
        return {"date_from": None, "date_to": check_date(text, "date_to") if text else None}
