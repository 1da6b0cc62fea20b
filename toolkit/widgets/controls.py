"""Controls both builders share: the date range, the breakdown and the property filter editor.

Each control is a small class holding its ipywidgets (public attributes, so code and tests can set their
``.value``), a ``box`` to lay out, a ``load(...)`` that shows request values and a ``values()`` that turns
what is shown back into request fields, raising ``ValueError`` with a readable message when it can't.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any

import ipywidgets as widgets

from .catalog import Catalog

__all__ = [
    "DATE_PRESETS",
    "OPERATORS",
    "DEFAULT_BREAKDOWN_LIMIT",
    "BreakdownControl",
    "DateRangeControl",
    "PropertyFilterEditor",
    "PropertyFilterRow",
    "check_date",
    "filter_value",
]

CUSTOM = "Custom"
DATE_PRESETS: dict[str, tuple[str, str | None]] = {
    "Last 24 hours": ("-24h", None),
    "Today": ("dStart", None),
    "Yesterday": ("-1dStart", "-1dEnd"),
    "Last 7 days": ("-7d", None),
    "Last 14 days": ("-14d", None),
    "Last 30 days": ("-30d", None),
    "Last 90 days": ("-90d", None),
    "Last 180 days": ("-180d", None),
    "This month": ("mStart", None),
    "Previous month": ("-1mStart", "-1mEnd"),
    "Year to date": ("yStart", None),
    "All time": ("all", None),
}
"""PostHog's date presets: label -> (``date_from``, ``date_to``); anything else is ``Custom``."""

DEFAULT_PRESET = "Last 7 days"
_RELATIVE = re.compile(r"^(-?\d*[hdwmqyM](Start|End)?|all)$")


def check_date(value: str, field: str) -> str:
    """``value`` if it is an absolute date or time, or a relative date (``-7d``, ``-1mStart``, ``all``).

    Raises
    ------
    ValueError
        Naming ``field`` and the accepted forms.

    Examples
    --------
    >>> check_date("2026-01-31", "date_from"), check_date("-3w", "date_from")
    ('2026-01-31', '-3w')
    """
    text = value.strip()
    if _RELATIVE.match(text):
        return text
    for parse in (date.fromisoformat, datetime.fromisoformat):
        try:
            parse(text)
            return text
        except ValueError:
            continue
    raise ValueError(f"{field}: {value!r} is neither a date (2026-01-31) nor a relative date (-7d, -1mStart, all)")


class DateRangeControl:
    """A preset dropdown, with from/to text fields when ``Custom`` is chosen (absolute or relative dates)."""

    def __init__(self) -> None:
        self.preset = widgets.Dropdown(options=[*DATE_PRESETS, CUSTOM], value=DEFAULT_PRESET, description="Dates")
        self.date_from = widgets.Text(description="From", placeholder="2026-01-01 or -21d")
        self.date_to = widgets.Text(description="To", placeholder="empty: now")
        self.custom = widgets.HBox([self.date_from, self.date_to])
        self.box = widgets.VBox([self.preset, self.custom])
        self.preset.observe(self._toggle, names="value")
        self._toggle()

    def _toggle(self, _change: Any = None) -> None:
        self.custom.layout.display = None if self.preset.value == CUSTOM else "none"

    def load(self, date_from: str | None, date_to: str | None) -> None:
        """Show a request's dates: a matching preset, else ``Custom`` with the dates as given."""
        if date_from is None and date_to is None:
            self.preset.value = DEFAULT_PRESET
            return
        for label, pair in DATE_PRESETS.items():
            if pair == (date_from, date_to):
                self.preset.value = label
                return
        self.date_from.value = date_from or ""
        self.date_to.value = date_to or ""
        self.preset.value = CUSTOM

    def values(self) -> dict[str, str | None]:
        """``date_from`` and ``date_to`` for the request."""
        if self.preset.value != CUSTOM:
            date_from, date_to = DATE_PRESETS[self.preset.value]
            return {"date_from": date_from, "date_to": date_to}
        if not self.date_from.value.strip():
            raise ValueError("date_from: give a start date for a custom range (2026-01-01 or -21d)")
        date_to = self.date_to.value.strip()
        return {
            "date_from": check_date(self.date_from.value, "date_from"),
            "date_to": check_date(date_to, "date_to") if date_to else None,
        }


BREAKDOWN_TYPES = [
    ("No breakdown", ""),
    ("Event property", "event"),
    ("Person property", "person"),
    ("Session property", "session"),
]


DEFAULT_BREAKDOWN_LIMIT = 25
"""PostHog's default number of breakdown values; the rest form the Other bucket."""
MAX_BREAKDOWN_LIMIT = 1000


class BreakdownControl:
    """Breakdown type (none, event, person or session property), a property picker filled from the catalog,
    and how many values to show before the rest are grouped as Other.

    The property box is never disabled: enabling it again needed a round trip to the kernel, so it stayed
    greyed while the kernel was busy. "No breakdown" empties it instead (choosing a type again brings the
    property back), and typing a property while "No breakdown" is shown breaks down by that event property.
    """

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.type = widgets.Dropdown(options=BREAKDOWN_TYPES, value="", description="Breakdown")
        self.property = widgets.Combobox(placeholder="property", ensure_option=False)
        self.limit = widgets.BoundedIntText(
            value=DEFAULT_BREAKDOWN_LIMIT,
            min=1,
            max=MAX_BREAKDOWN_LIMIT,
            description="Top values",
            tooltip="Values beyond these are grouped as Other",
            style={"description_width": "initial"},
            layout=widgets.Layout(width="150px"),
        )
        self.limit_note = widgets.HTML("<i>the rest: Other</i>")
        self.box = widgets.HBox([self.type, self.property, self.limit, self.limit_note])
        self._kept: Any = None
        self._given_limit: int | None = None
        self._put_aside = ""
        self._emptying = False
        self.type.observe(self._type_changed, names="value")
        self.property.observe(self._property_typed, names="value")
        self._type_changed()

    def _type_changed(self, _change: Any = None) -> None:
        kind = self.type.value
        self.property.options = tuple(self.catalog.properties(kind or "event"))
        if not kind and self.property.value:
            self._put_aside, self._emptying = self.property.value, True
            try:
                self.property.value = ""
            finally:
                self._emptying = False
        elif kind and not self.property.value and self._put_aside:
            self.property.value = self._put_aside
        for widget in (self.limit, self.limit_note):
            widget.layout.display = None if kind else "none"

    def _property_typed(self, change: Any) -> None:
        if self._emptying:
            return
        self._put_aside = ""
        if change["new"].strip() and not self.type.value:
            self.type.value = "event"

    def load(self, breakdown: Any, breakdown_type: str | None, limit: int | None = None) -> None:
        """Show a request's breakdown; a list (several values) is kept as it is unless the text is edited."""
        self._given_limit = limit
        self.limit.value = min(max(int(limit), 1), MAX_BREAKDOWN_LIMIT) if limit else DEFAULT_BREAKDOWN_LIMIT
        if breakdown in (None, "", []):
            self.type.value = ""
            self.property.value = ""
            self._put_aside = ""
            return
        kind = breakdown_type or "event"
        if kind not in [value for _, value in BREAKDOWN_TYPES]:
            self.type.options = [*self.type.options, (f"{kind.capitalize()} breakdown", kind)]
        self.type.value = kind
        self._kept = breakdown if isinstance(breakdown, list) else None
        self.property.value = ", ".join(map(str, breakdown)) if isinstance(breakdown, list) else str(breakdown)

    def values(self) -> dict[str, Any]:
        """``breakdown``, ``breakdown_type`` and ``breakdown_limit`` (left out while it is the default)."""
        kind = self.type.value
        if not kind:
            return {"breakdown": None, "breakdown_type": None, "breakdown_limit": self._given_limit}
        text = self.property.value.strip()
        if not text:
            raise ValueError("breakdown: choose a property to break down by, or No breakdown")
        limit = self.limit.value
        fields = {
            "breakdown_type": kind,
            "breakdown_limit": None if self._given_limit is None and limit == DEFAULT_BREAKDOWN_LIMIT else limit,
        }
        if self._kept is not None and text == ", ".join(map(str, self._kept)):
            return {"breakdown": self._kept, **fields}
        return {"breakdown": text, **fields}


OPERATORS: list[tuple[str, str]] = [
    ("= equals", "exact"),
    ("≠ is not", "is_not"),
    ("contains", "icontains"),
    ("doesn't contain", "not_icontains"),
    ("matches regex", "regex"),
    ("doesn't match regex", "not_regex"),
    ("> greater than", "gt"),
    ("≥ at least", "gte"),
    ("< less than", "lt"),
    ("≤ at most", "lte"),
    ("is set", "is_set"),
    ("is not set", "is_not_set"),
    ("date before", "is_date_before"),
    ("date after", "is_date_after"),
]
"""Filter operators as shown (label, operator): PostHog's property filter operators."""

_NUMERIC = {"gt", "gte", "lt", "lte"}
_PRESENCE = {"is_set", "is_not_set"}
_LISTS = {"exact", "is_not"}
_REGEX = {"regex", "not_regex"}


def filter_value(operator: str, text: str, where: str = "filter") -> Any:
    """The filter ``value`` for what was typed: comma-separated values become a list for ``exact``/``is_not``,
    numbers for comparisons, the operator itself for ``is_set``/``is_not_set`` (as PostHog sends it).

    Raises
    ------
    ValueError
        For a missing value, a comparison with something not a number, or a regex that does not compile.

    Examples
    --------
    >>> filter_value("exact", "Chrome, Safari"), filter_value("gt", "2.5"), filter_value("is_set", "")
    (['Chrome', 'Safari'], 2.5, 'is_set')
    """
    if operator in _PRESENCE:
        return operator
    value = text.strip()
    if not value:
        raise ValueError(f"{where}: give a value to compare with")
    if operator in _NUMERIC:
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"{where}: {value!r} is not a number, and {operator} compares numbers") from None
        return int(number) if number.is_integer() and "." not in value else number
    if operator in _REGEX:
        try:
            re.compile(value)
        except re.error as error:
            raise ValueError(f"{where}: {value!r} is not a valid regular expression ({error})") from None
    if operator in _LISTS and "," in value:
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


def _value_text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return "" if value is None or value in _PRESENCE else str(value)


class PropertyFilterRow:
    """One filter: property key (picker), its type (event or person), operator and value (suggesting the
    values an event property has taken)."""

    def __init__(self, catalog: Catalog, on_remove: Any) -> None:
        self.catalog = catalog
        self.type = widgets.Dropdown(options=[("event", "event"), ("person", "person")], value="event")
        self.key = widgets.Combobox(placeholder="property", ensure_option=False)
        self.operator = widgets.Dropdown(options=OPERATORS, value="exact")
        self.value = widgets.Combobox(placeholder="value (a, b for several)", ensure_option=False)
        self.remove = widgets.Button(icon="trash", tooltip="Remove this filter", layout=widgets.Layout(width="40px"))
        self.remove.on_click(lambda _button: on_remove(self))
        self.type.observe(self._fill_keys, names="value")
        self.type.observe(self._suggest_values, names="value")
        self.key.observe(self._suggest_values, names="value")
        self.operator.observe(self._toggle_value, names="value")
        self.box = widgets.HBox([self.type, self.key, self.operator, self.value, self.remove])
        self._fill_keys()

    def _fill_keys(self, _change: Any = None) -> None:
        self.key.options = tuple(self.catalog.properties(self.type.value))

    def _suggest_values(self, _change: Any = None) -> None:
        key = self.key.value.strip()
        suggest = self.type.value == "event" and key and hasattr(self.catalog, "values")
        self.value.options = tuple(self.catalog.values(key)) if suggest else ()

    def _toggle_value(self, _change: Any = None) -> None:
        self.value.disabled = self.operator.value in _PRESENCE

    def load(self, item: dict[str, Any]) -> None:
        kind = item.get("type") or "event"
        if kind not in [value for _, value in self.type.options]:
            self.type.options = [*self.type.options, (kind, kind)]
        self.type.value = kind
        self.key.value = str(item.get("key") or "")
        operator = item.get("operator") or "exact"
        if operator not in [value for _, value in OPERATORS]:
            self.operator.options = [*OPERATORS, (operator, operator)]
        self.operator.value = operator
        self.value.value = _value_text(item.get("value"))

    def filter(self, number: int) -> dict[str, Any]:
        """The filter dict; ``number`` (1-based) names the row in error messages."""
        where = f"filter {number}"
        key = self.key.value.strip()
        if not key:
            raise ValueError(f"{where}: choose a property")
        value = filter_value(self.operator.value, self.value.value, where)
        return {"key": key, "value": value, "operator": self.operator.value, "type": self.type.value}


class PropertyFilterEditor:
    """Rows of property filters, all of which must hold (AND); an add button appends a row.

    A request's AND/OR group (a dict) cannot be shown as rows: it is kept as it is, and rows added beside it
    are combined with it under AND.
    """

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.rows: list[PropertyFilterRow] = []
        self.add = widgets.Button(description="Add filter", icon="filter")
        self.add.on_click(lambda _button: self.add_row())
        self.kept_note = widgets.HTML()
        self.rows_box = widgets.VBox()
        self.box = widgets.VBox([self.kept_note, self.rows_box, self.add])
        self._kept_group: dict[str, Any] | None = None

    def add_row(self, item: dict[str, Any] | None = None) -> PropertyFilterRow:
        """Append a row (showing ``item`` when given) and return it."""
        row = PropertyFilterRow(self.catalog, self.remove_row)
        if item is not None:
            row.load(item)
        self.rows.append(row)
        self._relayout()
        return row

    def remove_row(self, row: PropertyFilterRow) -> None:
        self.rows.remove(row)
        self._relayout()

    def _relayout(self) -> None:
        self.rows_box.children = tuple(row.box for row in self.rows)

    def load(self, properties: list[dict[str, Any]] | dict[str, Any] | None) -> None:
        self.rows = []
        self._kept_group = properties if isinstance(properties, dict) else None
        self.kept_note.value = "<i>A filter group from the request is kept as given.</i>" if self._kept_group else ""
        for item in properties if isinstance(properties, list) else []:
            self.add_row(item)
        self._relayout()

    def values(self) -> dict[str, Any]:
        """``properties``: the rows' filters (None when there are none), with a kept group ANDed in."""
        filters = [row.filter(number) for number, row in enumerate(self.rows, start=1)]
        if self._kept_group is None:
            return {"properties": filters or None}
        if not filters:
            return {"properties": self._kept_group}
        return {"properties": {"type": "AND", "values": [self._kept_group, {"type": "AND", "values": filters}]}}
