"""`PeoplePanel`: the persons behind a point, bar or step of a builder's result, and "Save as cohort".

After each run the builder hands the panel the result's points (`toolkit.widgets.people_points`). The panel
lists them in a picker under the chart; choosing one fetches its persons and shows them as a table, one row a
person with their properties as columns. Under ipympl (``%matplotlib widget``) a click on the chart picks the
point under the mouse too (a point of a line; anywhere in a funnel's or stickiness bar, a lifecycle segment,
a retention cell or a paths node); with a PNG (inline, Agg) the picker is the way. "Save as cohort" makes a
static cohort of exactly the listed persons (`toolkit.Client.create_cohort`) named by the name box (the picked
point's label until a name is typed), and says what it made.

The table fits the output area: it scrolls sideways inside its own box (as wide as the builder), and a long
property value (a URL, a user agent) is cut to `CELL_CHARS` characters with the whole value as the cell's
tooltip, so one value does not make its column a screen wide. ``panel.people`` holds every value uncut.

Nothing needs a browser: ``panel.pick(i)``, ``panel.click_at(x, y)`` (data coordinates) and
``panel.save_cohort("name")`` do what the controls do. Errors become the message (`error`), never a traceback.

A builder mounts the panel with one line in its ``__init__``, e.g. ``self.people = mount_people(self,
trend_points)``, through `toolkit.widgets.base.Builder.add_panel`.
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as widgets
import numpy as np
import pandas as pd
from matplotlib.backend_bases import Event, MouseEvent
from matplotlib.figure import Figure

from ..errors import ToolkitError
from ..labels import NO_MATHJAX_CLASSES
from ..plots.hover import HOVER_RADIUS, nearest_point
from .base import Builder, error_message
from .people_points import PeoplePoint, PointsOf
from .results import ipympl_active, scrolling_table

__all__ = [
    "CELL_CHARS",
    "NO_POINT",
    "PEOPLE_ROWS",
    "PROPERTY_COLUMNS",
    "PeoplePanel",
    "mount_people",
    "people_html",
    "people_table",
]

NO_POINT = "Pick a point…"
PEOPLE_ROWS = 500
"""Persons shown in the table at most (the cohort holds them all)."""
PROPERTY_COLUMNS = 30
"""Person properties shown as columns at most (the most common first)."""
CELL_CHARS = 40
"""Characters of a property value shown in its cell; a longer value ends in "…", whole in its tooltip."""
_IDENTITY = ("distinct_id", "name", "created_at")


def people_table(people: pd.DataFrame, *, max_properties: int = PROPERTY_COLUMNS) -> pd.DataFrame:
    """The persons as the panel shows them: ``distinct_id`` (the first), ``name``, ``created_at``, then their
    properties, one column each, the most common first (ties by name).

    Examples
    --------
    >>> people = pd.DataFrame({"id": ["p1", "p2"], "name": ["ann", "bob"], "distinct_ids": [["ann"], ["bob", "b"]],
    ...                        "properties": [{"plan": "pro", "email": "a@x"}, {"plan": "free"}],
    ...                        "created_at": pd.to_datetime(["2026-01-04", "2026-01-06"], utc=True)})
    >>> people_table(people).columns.tolist()
    ['distinct_id', 'name', 'created_at', 'plan', 'email']
    >>> people_table(people).loc[1, ["distinct_id", "plan", "email"]].tolist()
    ['bob', 'free', nan]
    """
    rows = [dict(item) if isinstance(item, dict) else {} for item in people.get("properties", [])]
    counts = pd.Series([key for row in rows for key in row], dtype=object).value_counts()
    keys = sorted(counts.index, key=lambda key: (-int(counts[key]), str(key)))[:max_properties]
    shown = pd.DataFrame(
        {
            "distinct_id": [
                ids[0] if isinstance(ids, list | tuple) and ids else None for ids in people["distinct_ids"]
            ],
            "name": people["name"].tolist(),
            "created_at": people["created_at"].tolist(),
        }
    )
    for key in keys:
        values = [row.get(key, np.nan) for row in rows]
        shown[str(key)] = [value if not isinstance(value, list | dict) else str(value) for value in values]
    return shown


def _cell_text(value: Any) -> str:
    if value is None or (not isinstance(value, list | dict | tuple) and pd.isna(value)):
        return ""
    return str(value)


def people_html(shown: pd.DataFrame, *, max_rows: int = PEOPLE_ROWS, cell_chars: int = CELL_CHARS) -> str:
    """`people_table`'s frame as an HTML table: values escaped, a property value longer than ``cell_chars``
    cut with "…" and whole in the cell's ``title`` (its tooltip); ``distinct_id``, ``name`` and ``created_at``
    whole. No row numbers: a person is named by the first column.

    Examples
    --------
    >>> shown = pd.DataFrame({"distinct_id": ["ann"], "$current_url": ["https://example.com/" + "a" * 40]})
    >>> print(people_html(shown, cell_chars=24).split("<tbody>")[1])
    <tr><td>ann</td><td title="https://example.com/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">https://example.com/aaa…</td></tr></tbody></table>
    """
    head = "".join(f"<th>{html.escape(str(column))}</th>" for column in shown.columns)
    cut = [str(column) not in _IDENTITY for column in shown.columns]
    rows = []
    for values in shown.head(max_rows).itertuples(index=False):
        cells = []
        for value, may_cut in zip(values, cut, strict=True):
            text = _cell_text(value)
            if may_cut and len(text) > cell_chars:
                short = html.escape(text[: cell_chars - 1] + "…")
                cells.append(f'<td title="{html.escape(text, quote=True)}">{short}</td>')
            else:
                cells.append(f"<td>{html.escape(text)}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    markup = (
        f'<table border="0" class="dataframe {NO_MATHJAX_CLASSES}"><thead><tr style="text-align: left;">{head}'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )
    if len(shown) > max_rows:
        hidden = len(shown) - max_rows
        markup += f'<p class="{NO_MATHJAX_CLASSES}">{hidden:,} more row{"s" * (hidden != 1)} not shown</p>'
    return markup


class PeoplePanel:
    """The people of a picked point, and a button that saves them as a static cohort.

    Attributes
    ----------
    points : list of PeoplePoint
        The last result's points (the picker's options, in order).
    point : PeoplePoint or None
        The point whose people are shown.
    people : pandas.DataFrame or None
        Its persons (`toolkit.frames.PERSON_COLUMNS`), as `Client.people` / `Client.funnel_people` give them.
    cohort : pandas.DataFrame or None
        The cohort "Save as cohort" made last (one row of `toolkit.cohorts.COHORT_COLUMNS`).
    error : str or None
        Why the last pick or save failed.
    """

    def __init__(self, client: Any) -> None:
        self.client = client
        self.points: list[PeoplePoint] = []
        self.point: PeoplePoint | None = None
        self.people: pd.DataFrame | None = None
        self.cohort: pd.DataFrame | None = None
        self.error: str | None = None
        self.figure: Figure | None = None
        self._cid: int | None = None
        self.picker = widgets.Dropdown(
            options=[(NO_POINT, None)], value=None, description="People of", layout=widgets.Layout(width="60%")
        )
        self.hint = widgets.HTML()
        self.message = widgets.HTML()
        # as wide as the builder, scrolling sideways: the HTML widget otherwise grows to the table's width; no
        # margin, which would push a 100%-wide box past the output's edge
        self.table = widgets.HTML(layout=widgets.Layout(width="100%", max_width="100%", overflow="auto", margin="0"))
        self.cohort_name = widgets.Text(placeholder="Cohort name", description="Cohort")
        self._named = ""
        self.save_button = widgets.Button(description="Save as cohort", icon="users", disabled=True)
        self.saved = widgets.HTML()
        self.picker.observe(self._picked, names="value")
        self.save_button.on_click(lambda _button: self._guarded(self.save_cohort))
        save = widgets.HBox([self.cohort_name, self.save_button, self.saved])
        self.box = widgets.VBox(
            [widgets.HBox([self.picker, self.hint]), self.message, self.table, save],
            layout=widgets.Layout(display="none"),
        )

    # the result ------------------------------------------------------------------------------------------

    def load(self, points: list[PeoplePoint], figure: Figure | None = None) -> None:
        """Offer ``points`` (a new result): the picker lists them, nothing is picked yet; a click on ``figure``
        picks the point under it."""
        self.points = list(points)
        self.point, self.people, self.error = None, None, None
        self.table.value = self.message.value = self.saved.value = ""
        self.save_button.disabled = True
        options = [(NO_POINT, None), *[(point.label, index) for index, point in enumerate(self.points)]]
        with self.picker.hold_trait_notifications():
            self.picker.value = None
            self.picker.options = options
        self._connect(figure)
        # a click reaches the kernel only from ipympl's canvas; on a PNG the list is the way
        clickable = ipympl_active() and any(point.anchor is not None for point in self.points)
        if not self.points:
            self.box.layout.display = "none"
            return
        self.box.layout.display = None
        how = "click one on the chart or pick one from the list" if clickable else "pick one from the list"
        self.hint.value = self._note(f"{len(self.points)} points: {how} to see its people")

    def _connect(self, figure: Figure | None) -> None:
        if self.figure is not None and self._cid is not None:
            self.figure.canvas.mpl_disconnect(self._cid)
        self.figure, self._cid = figure, None
        if figure is not None:
            self._cid = figure.canvas.mpl_connect("button_press_event", self._pressed)

    # picking ---------------------------------------------------------------------------------------------

    def pick(self, index: int) -> pd.DataFrame | None:
        """List the people of point ``index`` (of `points`); returns them, or None on an error."""
        if not 0 <= index < len(self.points):
            raise IndexError(f"there are {len(self.points)} points; got {index}")
        if self.picker.value == index:
            return self._show(index)
        self.picker.value = index  # the observer lists them
        return self.people if self.error is None else None

    def point_at(self, x: float, y: float) -> int | None:
        """The point drawn at ``(x, y)`` (data coordinates of the first axes): a bar or box containing it, else
        the anchor nearest on screen within `toolkit.plots.hover.HOVER_RADIUS` pixels."""
        for index, point in enumerate(self.points):
            if point.anchor is not None and point.width is not None:
                left, top = point.anchor[0] - point.width / 2, point.anchor[1]
                low, high = (top - point.height / 2, top + point.height / 2) if point.height else (top, 0.0)
                if left <= x <= left + point.width and min(low, high) <= y <= max(low, high):
                    return index
        anchored = [(index, point.anchor) for index, point in enumerate(self.points) if point.anchor is not None]
        if not anchored or self.figure is None or not self.figure.axes:
            return None
        transform = self.figure.axes[0].transData
        screen = transform.transform([anchor for _, anchor in anchored])
        mouse = transform.transform([(x, y)])[0]
        found = nearest_point(screen, mouse[0], mouse[1], radius=HOVER_RADIUS)
        return None if found is None else anchored[found][0]

    def click_at(self, x: float, y: float) -> pd.DataFrame | None:
        """What a click at ``(x, y)`` (data coordinates) does: list the people of the point there, if any."""
        index = self.point_at(x, y)
        if index is None:
            self.hint.value = self._note("No point there: click a point of a line or a bar, or pick from the list")
            return None
        return self.pick(index)

    def _pressed(self, event: Event) -> None:
        if not isinstance(event, MouseEvent) or self.figure is None or not self.figure.axes:
            return
        if event.inaxes is not self.figure.axes[0] or event.xdata is None or event.ydata is None:
            return
        self._guarded(lambda: self.click_at(float(event.xdata), float(event.ydata)))

    def _picked(self, change: dict[str, Any]) -> None:
        if change["new"] is None:
            self.point, self.people = None, None
            self.table.value = self.message.value = ""
            self.save_button.disabled = True
            return
        self._guarded(lambda: self._show(int(change["new"])))

    def _show(self, index: int) -> pd.DataFrame | None:
        point = self.points[index]
        self.error, self.saved.value = None, ""
        self.message.value = self._note(f"Listing the people of {point.label}…")
        try:
            people = point.fetch()
        except (ToolkitError, ValueError) as error:
            self._fail(error)
            return None
        self.point, self.people = point, people
        count = len(people)
        shown = f" (the first {PEOPLE_ROWS:,} shown)" if count > PEOPLE_ROWS else ""
        noun = "person" if count == 1 else "persons"
        self.message.value = self._note(f"{count:,} {noun} behind {point.label}{shown}")
        self.table.value = scrolling_table(people_html(people_table(people))) if count else ""
        if self.cohort_name.value in ("", self._named):  # a name typed in the box stays; a label follows the pick
            self.cohort_name.value = self._named = point.label
        self.save_button.disabled = count == 0
        return people

    # saving ----------------------------------------------------------------------------------------------

    def save_cohort(self, name: str | None = None) -> pd.DataFrame | None:
        """Save the listed people as a static cohort named ``name`` (else the name box); returns its row
        (also `cohort`), or None on an error (`error` says why)."""
        if self.people is None or self.point is None:
            self._fail(ValueError("pick a point first: its people become the cohort"))
            return None
        title = (name if name is not None else self.cohort_name.value).strip()
        try:
            made = self.client.create_cohort(title, self.people)
        except (ToolkitError, ValueError) as error:
            self._fail(error)
            return None
        self.cohort, self.error = made, None
        row = made.iloc[0]
        count = row["count"]
        held = f"{int(count):,}" if pd.notna(count) else f"{len(self.people):,} (still being added)"
        text = f"Saved cohort “{row['name']}” (id {int(row['id'])}) of {held} persons"
        self.saved.value = self._note(text, "#1b5e20")
        return made

    # messages --------------------------------------------------------------------------------------------

    def _guarded(self, action: Any) -> None:
        """A control's action: anything unexpected becomes the message (a click has no caller to raise to)."""
        try:
            action()
        except Exception as error:  # the message is the only place a click can report to
            self.error = f"Unexpected error, please report it: {type(error).__name__}: {error}"
            self.message.value = self._note(self.error, "#b00020")

    def _fail(self, error: Exception) -> None:
        self.error = error_message(error)
        self.message.value = self._note(self.error, "#b00020")

    @staticmethod
    def _note(text: str, colour: str = "#666") -> str:
        return f'<span class="{NO_MATHJAX_CLASSES}" style="color:{colour}">{html.escape(text)}</span>'


def mount_people(builder: Builder, points_of: PointsOf) -> PeoplePanel:
    """Give ``builder`` a people panel under its result, fed after each run with ``points_of(client, request,
    frame, figure)``; returns the panel (the builder keeps it as ``builder.people``).

    Examples
    --------
    >>> from toolkit.widgets.people_points import trend_points
    >>> builder.people = mount_people(builder, trend_points)  # doctest: +SKIP
    """
    panel = PeoplePanel(builder.client)

    def loaded(request: Any, frame: pd.DataFrame, figure: Figure | None) -> None:
        panel.load(points_of(builder.client, request, frame, figure), figure)

    builder.add_panel(panel.box, loaded)
    return panel
