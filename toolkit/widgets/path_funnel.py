"""`PathFunnelControl`: the paths builder's "Restrict to a funnel" (only the paths of a funnel step's people).

The controls read as a sentence: "Restrict to a funnel [After a step] Step [2] of the people [who reached it]",
then the funnel's steps (event pickers, as the funnel builder's) and a note saying in words which stretch of
whose paths is kept, or what is wrong with the choice (a step the funnel does not have, a drop-off before
step 1). They become `PathsRequest`'s ``funnel``, ``funnel_step`` (k for who reached step k, -k for who
dropped off before it) and ``funnel_paths`` (``after``, ``before`` or ``between``).

The funnel is part of the same analysis: it takes the builder's date range and test-account filter, unless
the request the builder opened on gave the funnel its own; the funnel's other fields (window, order,
exclusions) are kept as given.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import ipywidgets as widgets

from ..entities import Entity
from ..insight_requests import FunnelRequest, PathsRequest
from ..labels import NO_MATHJAX_CLASSES
from .catalog import Catalog
from .funnel import NUMBER_WIDTH, StepRow, move_within
from .results import watch_values

__all__ = ["DEFAULT_FUNNEL_STEP", "RESTRICTIONS", "WHOSE", "PathFunnelControl", "restriction_kind"]

RESTRICTIONS: list[tuple[str, str]] = [
    ("No funnel", ""),
    ("After a step", "after"),
    ("Before a step", "before"),
    ("Between two steps", "between"),
]
"""The restrictions as shown (label, ``funnel_paths``); "" keeps every path."""
WHOSE: list[tuple[str, int]] = [("who reached it", 1), ("who dropped off before it", -1)]
"""Whose paths (label, the sign of ``funnel_step``)."""
DEFAULT_FUNNEL_STEP = 2
"""The step a new restriction starts on: the second, valid for all three restrictions."""
_FIT = {"description_width": "initial"}
_KINDS = {
    "after": "after",
    "funnel_path_after_step": "after",
    "before": "before",
    "funnel_path_before_step": "before",
    "between": "between",
    "funnel_path_between_steps": "between",
}


def restriction_kind(funnel_paths: str | None) -> str:
    """The restriction ``funnel_paths`` names, as `RESTRICTIONS` holds it (PostHog's default: after).

    Examples
    --------
    >>> restriction_kind("funnel_path_between_steps"), restriction_kind(None)
    ('between', 'after')
    """
    text = (funnel_paths or "after").strip()
    return _KINDS.get(text.lower(), text)


def _steps_word(count: int) -> str:
    return f"{count} step" + "s" * (count != 1)


class PathFunnelControl:
    """The restriction, the step and whose paths, and the funnel's steps; ``values(...)`` gives the request's
    ``funnel``, ``funnel_step`` and ``funnel_paths``, raising ``ValueError`` for a choice the funnel cannot
    answer.

    Parameters
    ----------
    catalog : Catalog
        Fills the step pickers.
    request : PathsRequest
        The request shown first.
    first_steps : callable
        The steps a funnel starts with when a restriction is chosen and the funnel has none yet (the
        project's most common first two).
    """

    def __init__(self, catalog: Catalog, request: PathsRequest, first_steps: Callable[[], list[Entity]]) -> None:
        self.catalog = catalog
        self._first_steps = first_steps
        funnel = request.funnel
        self._kept = funnel
        self._given_paths = request.funnel_paths
        pair = (funnel.date_from, funnel.date_to) if funnel is not None else (None, None)
        self._own_dates = pair != (None, None) and pair != (request.date_from, request.date_to)
        own = funnel.filter_test_accounts if funnel is not None else None
        self._own_test_accounts = own is not None and own != request.filter_test_accounts
        kind = restriction_kind(request.funnel_paths) if funnel is not None else ""
        options = list(RESTRICTIONS)
        if kind not in [value for _, value in options]:  # a restriction this version does not name: kept
            options.append((kind, kind))
        self.restriction = widgets.Dropdown(options=options, value=kind, description="Restrict to a funnel", style=_FIT)
        given = request.funnel_step if funnel is not None else None
        self.step = widgets.BoundedIntText(
            value=abs(given) if given else DEFAULT_FUNNEL_STEP,
            min=1,
            max=99,
            description="Step",
            style=_FIT,
            layout=widgets.Layout(width=NUMBER_WIDTH),
        )
        self.whose = widgets.Dropdown(
            options=WHOSE, value=-1 if given is not None and given < 0 else 1, description="of the people", style=_FIT
        )
        self.note = widgets.HTML()
        self.steps: list[StepRow] = []
        self.steps_box = widgets.VBox()
        self.add_step_button = widgets.Button(description="Add funnel step", icon="plus")
        self.add_step_button.on_click(lambda _button: self.add_step())
        for entity in funnel.steps if funnel is not None else []:
            self.add_step(entity)
        self.details = widgets.VBox([self.note, self.steps_box, self.add_step_button])
        self.choice = widgets.HBox([self.restriction, self.step, self.whose])
        self.box = widgets.VBox([self.choice, self.details])
        self.restriction.observe(self._restriction_changed, names="value")
        watch_values(self.box, self._describe)
        self._restriction_changed()

    # the steps -------------------------------------------------------------------------------------------

    def add_step(self, entity: Entity | None = None) -> StepRow | None:
        """Append a funnel step (by default the project's first event); None when there is nothing to pick."""
        if entity is None:
            options = self.catalog.entity_options()
            entity = options[0][1] if options else (self.steps[-1].entity.value if self.steps else None)
        if entity is None:
            return None
        row = StepRow(self.catalog, entity, self)
        self.steps.append(row)
        self._relayout()
        return row

    def remove_step(self, row: StepRow) -> None:
        self.steps.remove(row)
        self._relayout()

    def move_step(self, row: StepRow, offset: int) -> None:
        """Move a step ``offset`` places (-1 up, 1 down), staying within the list."""
        move_within(self.steps, row, offset)
        self._relayout()

    def _relayout(self) -> None:
        for number, row in enumerate(self.steps, start=1):
            row.label.value = f"Step {number}"
            row.up.disabled = number == 1
            row.down.disabled = number == len(self.steps)
        self.steps_box.children = tuple(row.box for row in self.steps)

    # what is shown ---------------------------------------------------------------------------------------

    def _restriction_changed(self, _change: Any = None) -> None:
        chosen = bool(self.restriction.value)
        if chosen and not self.steps:  # a funnel to start from: the project's most common first steps
            for entity in self._first_steps():
                self.add_step(entity)
        for widget in (self.step, self.whose, self.details):
            widget.layout.display = None if chosen else "none"
        self._describe()

    def _name(self, number: int) -> str:
        return f"step {number} ({self.steps[number - 1].entity.label})"

    @property
    def description(self) -> str:
        """The note's words: which stretch of whose paths the choice keeps, or why the funnel cannot answer it
        ("" with No funnel).

        Raises
        ------
        ValueError
            For a choice the funnel cannot answer (the note shows the same message).

        Examples
        --------
        >>> builder.funnel.description  # doctest: +SKIP
        'Paths from step 1 (signed_up) on, of the people who dropped off before step 2 (onboarding_completed).'
        """
        kind = self.restriction.value
        if not kind:
            return ""
        step = self._checked_step(kind)
        number = abs(step)
        who = f"who reached {self._name(number)}" if step > 0 else f"who dropped off before {self._name(number)}"
        reached = number if step > 0 else number - 1  # the step whose event times the stretch
        stretch = {
            "after": f"from {self._name(reached)} on",
            "before": f"up to {self._name(reached)}" + (" and a conversion window after it" if step < 0 else ""),
            "between": f"from {self._name(reached - 1)} to {self._name(reached)}" if reached > 1 else "",
        }.get(kind, f"restricted by {kind}")
        return f"Paths {stretch}, of the people {who}."

    def _describe(self, _change: Any = None) -> None:
        try:
            self.note.value = _note(self.description) if self.restriction.value else ""
        except ValueError as error:
            self.note.value = _note(str(error), "#b00020")

    def _checked_step(self, kind: str) -> int:
        """``funnel_step``: the step number, negative for the people who dropped off before it."""
        count = len(self.steps)
        number, sign = int(self.step.value), int(self.whose.value)
        if count < 2:
            raise ValueError(f"funnel: it needs at least two steps, it has {count}; add a step, or choose No funnel")
        if number > count:
            raise ValueError(f"funnel step {number}: the funnel has {_steps_word(count)}; choose 1 to {count}")
        if sign < 0 and number == 1:
            raise ValueError(
                "funnel step 1: nobody drops off before step 1; choose step 2 or later, or the people who reached it"
            )
        if kind == "between" and sign > 0 and number == 1:
            raise ValueError("funnel step 1: step 1 has no step before it to start from; choose step 2 or later")
        if kind == "between" and sign < 0 and number == 2:
            raise ValueError(
                "funnel step 2: who dropped off before step 2 stopped at step 1, with no step before it to start "
                "from; choose step 3 or later"
            )
        return number * sign

    def values(self, dates: dict[str, Any], test_accounts: bool | None) -> dict[str, Any]:
        """``funnel``, ``funnel_step`` and ``funnel_paths`` for the request (all None with No funnel); the funnel
        takes ``dates`` (``date_from``, ``date_to``) and ``test_accounts`` unless it came with its own.

        Raises
        ------
        ValueError
            For fewer than two steps or a step the restriction cannot use (the message says which).
        """
        kind = self.restriction.value
        if not kind:
            return {"funnel": None, "funnel_step": None, "funnel_paths": None}
        step = self._checked_step(kind)
        # a plain event or action by its name or id, as one writes it by hand (and copy-as-code shows it)
        steps = [row.value() if row.extra else row.entity.value for row in self.steps]
        changes: dict[str, Any] = {"steps": steps}
        if not self._own_dates:
            changes.update(date_from=dates.get("date_from"), date_to=dates.get("date_to"))
        if not self._own_test_accounts:
            changes["filter_test_accounts"] = test_accounts
        funnel = replace(self._kept, **changes) if self._kept is not None else FunnelRequest(**changes)
        # the spelling the request came with, while it names the shown restriction (PostHog's or the short one)
        given = self._given_paths if self._kept is not None else None
        paths = given if given is not None and restriction_kind(given) == kind else kind
        return {"funnel": funnel, "funnel_step": step, "funnel_paths": paths}


def _note(text: str, colour: str = "#666") -> str:
    # escaped, and kept from MathJax, which would read "$pageview ... $screen" as a formula
    return f'<span class="{NO_MATHJAX_CLASSES}" style="color:{colour}">{html.escape(text)}</span>'
